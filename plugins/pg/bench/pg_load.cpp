// Load-mode transactions of the pg plugin (docs/load.md, docs/pg.md): pgbench -c C -t T.
//
//   prepare      start the server (or create the database on a DSN server) and load
//                pgbench's tables at `scale`, untimed, as `pgbench -i` before a run
//   open_client  one libpq connection per client, untimed (pgbench's "initial
//                connection time"); in prepared mode its statements are prepared here
//   run          one transaction of tpcb_like, simple_update or select_only, with the
//                client's own pgbench random state (client k seeded as pgbench's client k)
//   finish       pgbench's consistency check: the balances of accounts, tellers and
//                branches and the history's deltas agree, or the cell fails
// The server stops when the repeat's Transactions object is destroyed; a server that
// died during the cell fails it.
#include <fmt/format.h>

#include <optional>

#include "pg/bench/pg_params.h"
#include "pg/bench_database.h"
#include "pg/pgbench_script.h"
#include "pg/pgbench_tables.h"
#include "storh/transactions.h"

namespace {

namespace pg = storh::engines::pg;
using storh::Status;

class PgClient final : public storh::Client {
 public:
  PgClient(pg::ScriptClient client, const pg::BenchDatabase& database)
      : client_(std::move(client)), database_(database) {}

  Status run_transaction(std::size_t type, std::uint64_t) noexcept override {
    const pg::Script script = pg::kScripts[type];
    Status status = storh::guarded(pg::script_name(script), [&] { client_.run(script); });
    return status.ok() ? status : Status::error(database_.failure_message(status.message()));
  }

 private:
  pg::ScriptClient client_;
  const pg::BenchDatabase& database_;
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
    return specs;
  }

  Status prepare(storh::RunContext& ctx) noexcept override {
    Status status = storh::guarded("prepare", [&] {
      params_ = pg::read_params(ctx);
      ctx.progress("starting the server");
      database_.emplace(params_.server, pg::server_dir(ctx));
      ctx.progress(fmt::format("pgbench -i at scale {}", params_.scale));
      pg::Connection admin = database_->connect();
      pg::init_tables(admin, params_.scale, params_.fillfactor);
    });
    if (status.ok() || !database_) return status;
    return Status::error(database_->failure_message(status.message()));
  }

  Status open_client(const storh::RunContext&, const storh::ClientInfo& client,
                     std::unique_ptr<storh::Client>& out) noexcept override {
    Status status = storh::guarded("open_client", [&] {
      pg::check_client_slots(*database_, client.count);
      out = std::make_unique<PgClient>(
          pg::ScriptClient(database_->connect(), params_.mode, params_.scale,
                           pg::client_seed(params_.random_seed, client.index)),
          *database_);
    });
    return status.ok() ? status : Status::error(database_->failure_message(status.message()));
  }

  Status finish(storh::RunContext& ctx, std::uint64_t, std::uint64_t) noexcept override {
    Status status = storh::guarded("finish", [&]() -> Status {
      if (const std::string gone = database_->server_gone(); !gone.empty()) {
        return Status::error("finish: the server crashed during the cell: " + gone);
      }
      pg::Connection admin = database_->connect();
      const std::string inconsistent =
          pg::check_balances(pg::sum_balances(admin), ctx.selected("simple_update"));
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

  pg::PgRunParams params_;
  std::optional<pg::BenchDatabase> database_;
};

}  // namespace

STORH_TRANSACTIONS(PgTransactions)
