// Load-mode transactions of the pg plugin (docs/load.md, docs/pg.md): pgbench -c C -t T.
//
//   prepare      start the server (or create the database on a DSN server) and load
//                pgbench's tables at `scale`, untimed, as `pgbench -i` before a run
//   open_client  one libpq connection per client, untimed (pgbench's "initial
//                connection time"); in prepared mode its statements are prepared here;
//                with connect = per_transaction (pgbench -C) every transaction opens
//                a new one, its time reported apart from the transaction's
//   run          one transaction of tpcb_like, simple_update or select_only, with the
//                client's own pgbench random state (client k seeded as pgbench's client k),
//                or of `custom`: a script of the `scripts` mix chosen by weight
//                (pgbench_mix.h), run as pgbench runs it; a serialization failure or
//                deadlock is retried up to `max_tries` and else reported by kind
//   phase_statements  with statement_latencies (pgbench -r), each command's runs summed
//                over the phase's clients: each client keeps its own and adds them to
//                the phase's totals when it is destroyed, untimed
//   finish       pgbench's consistency check: the balances of accounts, tellers and
//                branches and the history's deltas agree, or the cell fails
// The server stops when the repeat's Transactions object is destroyed; a server that
// died during the cell fails it.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>
#include <chrono>
#include <map>
#include <mutex>
#include <optional>

#include "pg/bench/pg_params.h"
#include "pg/bench_database.h"
#include "pg/pg_stats.h"
#include "pg/pgbench_mix.h"
#include "pg/pgbench_script.h"
#include "pg/pgbench_tables.h"
#include "storh/transactions.h"

namespace {

namespace pg = storh::engines::pg;
using storh::Status;

// The transaction type that runs the `scripts` mix; the built-ins come first, in
// kScripts order.
constexpr std::size_t kCustomType = pg::kScripts.size();

// Per transaction type, per script of its mix, per command: the runs of every client of
// the type's phase (statement_latencies). Clients add theirs when destroyed, on their
// own threads, hence the lock; no transaction waits for it.
struct StatementTotals {
  std::mutex mutex;
  std::map<std::size_t, std::vector<std::vector<pg::CommandStats>>> by_type;

  void add(std::size_t type, const std::vector<std::vector<pg::CommandStats>>& client) {
    const std::lock_guard<std::mutex> lock(mutex);
    std::vector<std::vector<pg::CommandStats>>& sum = by_type[type];
    sum.resize(client.size());
    for (std::size_t s = 0; s < client.size(); ++s) {
      sum[s].resize(client[s].size());
      for (std::size_t c = 0; c < client[s].size(); ++c) {
        sum[s][c].count += client[s][c].count;
        sum[s][c].total_ns += client[s][c].total_ns;
        sum[s][c].failures += client[s][c].failures;
        sum[s][c].retries += client[s][c].retries;
      }
    }
  }
};

// One connection per client. A client serves one phase, so one transaction type: the
// built-ins run on ScriptClient (simple, prepared: its statements are prepared when the
// client is opened, untimed, as before), and the first `custom` transaction, or a
// built-in's in extended mode, moves the connection into a MixClient.
class PgClient final : public storh::Client {
 public:
  struct Mixes {
    const pg::ScriptMix* custom = nullptr;
    const std::array<pg::ScriptMix, 3>* builtins = nullptr;
    StatementTotals* statements = nullptr;
  };

  PgClient(pg::Connection conn, const pg::PgRunParams& params, const storh::ClientInfo& info,
           Mixes mixes, const pg::BenchDatabase& database)
      : params_(params), info_(info), mixes_(mixes), database_(database) {
    // Retries, reconnections and statement latencies are MixClient's: a built-in that
    // needs them runs as a script too.
    if (params.mode == pg::QueryMode::extended || params.max_tries != 1 ||
        params.connect_per_transaction || params.statement_latencies) {
      conn_.emplace(std::move(conn));
    } else {
      script_.emplace(std::move(conn), params.mode, params.scale,
                      pg::client_seed(params.random_seed, info.index));
    }
  }

  ~PgClient() override {
    if (!mix_ || mix_->statement_stats().empty()) return;
    try {
      mixes_.statements->add(type_, mix_->statement_stats());
    } catch (...) {  // NOLINT(bugprone-empty-catch): out of memory loses the rows only
    }
  }
  PgClient(const PgClient&) = delete;
  PgClient& operator=(const PgClient&) = delete;

  Status run_transaction(std::size_t type, std::uint64_t sequence) noexcept override {
    storh::TransactionReport report;
    return run_reported(type, sequence, report);
  }

  Status run_reported(std::size_t type, std::uint64_t,
                      storh::TransactionReport& report) noexcept override {
    const std::string_view name =
        type == kCustomType ? std::string_view("custom") : pg::script_name(pg::kScripts[type]);
    Status status = storh::guarded(name, [&] {
      if (params_.max_tries == 0 && report.deadline_ns == 0) {
        throw pg::PgError(std::string(pg::kUnlimitedTriesNeedDuration));
      }
      if (type != kCustomType && script_) {
        script_->run(pg::kScripts[type]);
        return;
      }
      if (params_.connect_per_transaction) reconnect(report);
      if (!mix_) {
        const pg::ScriptMix& mix = type == kCustomType ? *mixes_.custom : (*mixes_.builtins)[type];
        open_mix(mix);
        type_ = type;
      }
      // The statement rows cover the timed transactions, as the cell's figures do.
      mix_->run({params_.max_tries, report.deadline_ns}, !report.warmup);
    });
    if (mix_) {
      report.part = mix_->last_script();
      report.retries = mix_->last_retries();
    }
    if (status.ok()) return status;
    const pg::Conflict conflict = mix_ ? mix_->last_conflict() : pg::Conflict::none;
    report.failure = conflict == pg::Conflict::serialization ? storh::FailureKind::serialization
                     : conflict == pg::Conflict::deadlock    ? storh::FailureKind::deadlock
                                                             : storh::FailureKind::other;
    return Status::error(database_.failure_message(status.message()));
  }

 private:
  // pgbench -c C -j C: client k is thread k's only client, so it draws its script
  // choice from thread k's state, and with the same seed makes pgbench's choices.
  void open_mix(const pg::ScriptMix& mix) {
    bool default_seed_given = false;
    for (const auto& [name, value] : params_.vars) default_seed_given |= name == "default_seed";
    const pg::PgbenchSeeds seeds(params_.random_seed, info_.count, info_.count, default_seed_given);
    pg::ClientSetup setup;
    setup.client_id = info_.index;
    setup.scale = params_.scale;
    setup.random_seed = params_.random_seed;
    setup.default_seed = seeds.default_seed;
    setup.function_seed = seeds.client[info_.index];
    setup.defines = params_.vars;
    pg::Connection conn = script_ ? std::move(script_->connection()) : std::move(*conn_);
    script_.reset();
    conn_.reset();
    mix_.emplace(std::move(conn), params_.mode, mix, setup, seeds.choose[info_.index],
                 params_.statement_latencies);
  }

  // pgbench -C: a new connection for this transaction, the old one closed; the time
  // is the report's connect_ns (the host leaves it out of the latency).
  void reconnect(storh::TransactionReport& report) {
    const auto start = std::chrono::steady_clock::now();
    pg::Connection fresh = database_.connect();
    if (mix_) {
      mix_->client().reconnect(std::move(fresh));
    } else {
      conn_ = std::move(fresh);
    }
    report.connect_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                            std::chrono::steady_clock::now() - start)
                            .count();
  }

  const pg::PgRunParams& params_;
  storh::ClientInfo info_;
  Mixes mixes_;
  const pg::BenchDatabase& database_;
  std::optional<pg::Connection> conn_;
  std::optional<pg::ScriptClient> script_;
  std::optional<pg::MixClient> mix_;
  std::size_t type_ = 0;  // of mix_
};

class PgTransactions final : public storh::Transactions {
 public:
  std::vector<storh::TransactionSpec> describe() const noexcept override {
    std::vector<storh::TransactionSpec> specs;
    specs.reserve(pg::kScripts.size());
    for (const pg::Script script : pg::kScripts) {
      specs.push_back({std::string(pg::script_name(script)), description(script),
                       script == pg::Script::select_only});
    }
    specs.push_back({"custom",
                     "the `scripts` parameter's scripts (pgbench -f/-b), one chosen by weight per "
                     "transaction",
                     false});
    return specs;
  }

  std::vector<std::string> parts(std::size_t type,
                                 const std::vector<std::pair<std::string, storh::ParamValue>>&
                                     values) const noexcept override {
    if (type != kCustomType) return {};
    try {
      std::vector<std::string> names =
          pg::mix_part_names(storh::engines::bench::text(values, pg::kScriptsParam));
      if (names.size() < 2) names.clear();  // one script: the type's own metric says it all
      return names;
    } catch (...) {
      return {};
    }
  }

  // pgbench refuses --max-tries=0 without -T: a transaction could retry for ever.
  DurationNeed needs_duration(const std::vector<std::pair<std::string, storh::ParamValue>>& values)
      const noexcept override {
    // A value of another type reads as the default, as at run time: the parameter
    // checks report it.
    if (storh::engines::bench::integer_value(values, pg::kMaxTries) != 0) return {};
    return {std::string(pg::kMaxTries.name), std::string(pg::kUnlimitedTriesNeedDuration)};
  }

  Status prepare(storh::RunContext& ctx) noexcept override {
    Status status = storh::guarded("prepare", [&] {
      params_ = pg::read_params(ctx);
      // Checked by preflight already; read again here, as the cell runs it.
      pg::MixParse parsed = pg::load_script_mix(params_.scripts, pg::scripts_base());
      if (!parsed.errors.empty()) {
        throw pg::PgError(fmt::format("scripts: {}", fmt::join(parsed.errors, "; ")));
      }
      custom_ = std::move(parsed.mix);
      for (std::size_t i = 0; i < pg::kScripts.size(); ++i) {
        builtins_[i] = pg::builtin_mix(pg::kScripts[i]);
      }
      ctx.progress("starting the server");
      database_.emplace(params_.server, pg::server_dir(ctx));
      ctx.progress(fmt::format("pgbench -i at scale {}", params_.scale));
      pg::Connection admin = database_->connect();
      pg::init_tables(admin, params_.scale, params_.fillfactor);
      if (!params_.after_load.empty()) admin.exec(params_.after_load);
    });
    if (status.ok() || !database_) return status;
    return Status::error(database_->failure_message(status.message()));
  }

  Status open_client(const storh::RunContext&, const storh::ClientInfo& client,
                     std::unique_ptr<storh::Client>& out) noexcept override {
    Status status = storh::guarded("open_client", [&] {
      if (params_.statement_latencies && client.own_process) {
        // A forked client's figures would die with its process.
        throw pg::PgError("statement_latencies needs thread clients (clients = \"threads\")");
      }
      pg::check_client_slots(*database_, client.count);
      out = std::make_unique<PgClient>(database_->connect(), params_, client,
                                       PgClient::Mixes{&custom_, &builtins_, &statements_},
                                       *database_);
    });
    return status.ok() ? status : Status::error(database_->failure_message(status.message()));
  }

  // The statistics of the phase (pg::WorkStats), each reading on a connection of its
  // own. No connection stays open past here: a client process forked while one was
  // open would share (and on exit close) its socket.
  Status phase_counters_begin(storh::RunContext&, std::size_t) noexcept override {
    return guarded_stats([&] { stats_.begin(*database_); });  // begin() closes the kept ones
  }

  Status phase_counters_end(storh::RunContext&, std::size_t,
                            std::vector<storh::EngineCounter>& out) noexcept override {
    return guarded_stats([&] {
      for (pg::ServerStatDelta& d : stats_.end(*database_)) {
        out.push_back({std::move(d.name), std::move(d.unit), d.total, d.repeats});
      }
    });
  }

  // Every command of every script of the type's mix, in mix and script order, as
  // pgbench -r lists them (commands that never ran with count 0).
  Status phase_statements(storh::RunContext&, std::size_t type,
                          std::vector<storh::StatementStats>& out) noexcept override {
    if (!params_.statement_latencies) return {};
    return storh::guarded("statement latencies", [&] {
      const pg::ScriptMix& mix = type == kCustomType ? custom_ : builtins_.at(type);
      const std::lock_guard<std::mutex> lock(statements_.mutex);
      const auto totals = statements_.by_type.find(type);
      for (std::size_t s = 0; s < mix.entries.size(); ++s) {
        const std::vector<pg::ScriptCommand>& commands = mix.entries[s].script.commands;
        for (std::size_t c = 0; c < commands.size(); ++c) {
          pg::CommandStats sum;
          if (totals != statements_.by_type.end() && s < totals->second.size() &&
              c < totals->second[s].size()) {
            sum = totals->second[s][c];
          }
          out.push_back({s, static_cast<std::uint32_t>(commands[c].line), commands[c].first_line,
                         sum.count, sum.total_ns, sum.failures, sum.retries});
        }
      }
      if (totals != statements_.by_type.end()) statements_.by_type.erase(totals);
    });
  }

  Status finish(storh::RunContext& ctx, std::uint64_t, std::uint64_t) noexcept override {
    Status status = storh::guarded("finish", [&]() -> Status {
      if (const std::string gone = database_->server_gone(); !gone.empty()) {
        return Status::error("finish: the server crashed during the cell: " + gone);
      }
      pg::Connection admin = database_->connect();
      // pgbench's invariants hold only for its own scripts: a script file may write
      // anything, so a custom mix with one is not checked.
      bool simple_update = ctx.selected("simple_update");
      if (ctx.selected("custom")) {
        for (const pg::MixEntry& entry : custom_.entries) {
          if (!entry.builtin) return {};
          simple_update |= entry.name == pg::script_name(pg::Script::simple_update);
        }
      }
      const std::string inconsistent = pg::check_balances(pg::sum_balances(admin), simple_update);
      if (!inconsistent.empty()) return Status::error("finish: " + inconsistent);
      return {};
    });
    // The server stops here, so that a crash while stopping still fails the cell.
    Status closed = storh::guarded("finish: stop the server", [&] { database_->close(); });
    return status.ok() ? closed : status;
  }

 private:
  static std::string description(pg::Script script) {
    switch (script) {
      case pg::Script::tpcb_like:
        return "pgbench's TPC-B-like script: 3 updates, 1 select, 1 insert in a transaction";
      case pg::Script::simple_update:
        return "pgbench -N: 1 update, 1 select, 1 insert in a transaction";
      case pg::Script::select_only:
        break;
    }
    return "pgbench -S: one primary-key select";
  }

  template <typename F>
  Status guarded_stats(F&& read) noexcept {
    Status status = storh::guarded("server statistics", read);
    return status.ok() ? status : Status::error(database_->failure_message(status.message()));
  }

  pg::PgRunParams params_;
  pg::ScriptMix custom_;
  std::array<pg::ScriptMix, 3> builtins_;
  std::optional<pg::BenchDatabase> database_;
  pg::WorkStats stats_;
  StatementTotals statements_;
};

}  // namespace

STORH_TRANSACTIONS(PgTransactions)
