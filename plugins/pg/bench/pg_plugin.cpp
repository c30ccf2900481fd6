// The pg plugin: pgbench's workloads on a real PostgreSQL server (docs/pg.md). This file
// is the scenario; pg_load.cpp holds the load-mode transactions (pgbench -c -t).
//
// One run, in its own worker process: the server (a throwaway cluster in the run's work
// directory, or a database of its own on a DSN server), then
//   init            pgbench -i at `scale` (drop, create, COPY, vacuum, primary keys),
//                   rows/s; the row counts are checked (100000 / 10 / 1 / 0 per unit)
//   tpcb_like       n transactions of each script, one connection, each timed
//   simple_update   (measure_each: latency percentiles), n = the dataset size; the
//   select_only     server's and the statements' statistics as engine counters
//   vacuum_analyze  VACUUM ANALYZE of the four tables
// After the writing scripts the balances must agree (pgbench_tables.h), or the run fails.
#include <fmt/format.h>

#include <iostream>
#include <optional>

#include "pg/bench/pg_params.h"
#include "pg/bench_database.h"
#include "pg/pg_stats.h"
#include "pg/pgbench_mix.h"
#include "pg/pgbench_script.h"
#include "pg/pgbench_tables.h"
#include "storh/plugin.h"

namespace {

namespace pg = storh::engines::pg;
using storh::Status;

class PgEngine final : public storh::Engine {
 public:
  storh::EngineInfo describe() const noexcept override {
    storh::EngineInfo info;
    info.description = "PostgreSQL driven with pgbench's schema and built-in scripts (libpq)";
    info.params = pg::pg_param_specs();
    info.operations = {
        {"init", "rows", storh::Direction::lower_is_better,
         "pgbench -i: drop, create, COPY the rows, vacuum, primary keys"},
        {"tpcb_like", "transactions", storh::Direction::lower_is_better,
         "one TPC-B-like transaction (pgbench's default script), one connection"},
        {"simple_update", "transactions", storh::Direction::lower_is_better,
         "one simple-update transaction (pgbench -N), one connection"},
        {"select_only", "transactions", storh::Direction::lower_is_better,
         "one select-only transaction (pgbench -S), one connection"},
        {"vacuum_analyze", "tables", storh::Direction::lower_is_better,
         "VACUUM ANALYZE of pgbench's four tables"},
    };
    return info;
  }

  std::vector<storh::ParamRange> param_ranges() const noexcept override {
    return pg::pg_param_ranges();
  }

  Status preflight(const std::vector<std::pair<std::string, storh::ParamValue>>& values)
      const noexcept override {
    return storh::guarded("pg", [&] {
      pg::check_scripts(values);
      // Notes reach the user through the host (storh/engine.h, preflight).
      for (const std::string& note : pg::check_machine(values))
        std::cerr << "note: " << note << '\n';
      for (const std::string& note : pg::script_notes(values))
        std::cerr << "note: " << note << '\n';
    });
  }

  Status run(storh::RunContext& ctx) noexcept override {
    std::optional<pg::BenchDatabase> database;
    Status status = storh::guarded("pg", [&]() -> Status {
      const pg::PgRunParams params = pg::read_params(ctx);
      ctx.progress("starting the server");
      database.emplace(params.server, pg::server_dir(ctx));
      return run_operations(ctx, params, *database);
    });
    if (!status.ok() && database) {
      status = Status::error(database->failure_message(status.message()));
    }
    // Stopping the server is part of the run: a server that crashed fails it.
    Status closed = storh::guarded("pg: stop the server", [&] {
      if (database) database->close();
    });
    return status.ok() ? closed : status;
  }

 private:
  static Status run_operations(storh::RunContext& ctx, const pg::PgRunParams& params,
                               pg::BenchDatabase& database) {
    // Closed around the scripts: their statistics readings wait for every other
    // connection to the cell's database to close.
    std::optional<pg::Connection> admin(database.connect());
    ctx.progress(fmt::format("pgbench -i at scale {}", params.scale));
    const std::int64_t rows = pg::init_rows(params.scale);
    const auto init = [&] { pg::init_tables(*admin, params.scale, params.fillfactor); };
    if (Status s =
            ctx.selected("init") ? ctx.measure("init", rows, init) : storh::guarded("init", init);
        !s.ok()) {
      return s;
    }
    const pg::TableCounts counts = pg::count_rows(*admin);
    if (counts != pg::expected_counts(params.scale)) {
      const pg::TableCounts want = pg::expected_counts(params.scale);
      return Status::error(fmt::format(
          "init: counted branches {} tellers {} accounts {} history {}, expected {} {} {} {}",
          counts.branches, counts.tellers, counts.accounts, counts.history, want.branches,
          want.tellers, want.accounts, want.history));
    }

    admin.reset();
    for (const pg::Script script : pg::kScripts) {
      if (!ctx.selected(pg::script_name(script))) continue;
      if (Status s = run_script(ctx, params, database, script); !s.ok()) return s;
    }
    admin.emplace(database.connect());
    const std::string inconsistent =
        pg::check_balances(pg::sum_balances(*admin), ctx.selected("simple_update"));
    if (!inconsistent.empty()) return Status::error("after the scripts: " + inconsistent);

    if (ctx.selected("vacuum_analyze")) {
      return ctx.measure("vacuum_analyze", 4, [&] { pg::vacuum_analyze(*admin); });
    }
    return {};
  }

  // One script's step, n transactions on a connection of its own, and its statistics
  // (pg::WorkStats) as the step's engine counters, read with no connection open.
  static Status run_script(storh::RunContext& ctx, const pg::PgRunParams& params,
                           const pg::BenchDatabase& database, pg::Script script) {
    const std::string name(pg::script_name(script));
    const std::uint64_t n = ctx.dataset_size();
    ctx.progress(fmt::format("{} x {}", name, n));
    pg::WorkStats stats;
    if (Status s = storh::guarded("server statistics", [&] { stats.begin(database); }); !s.ok()) {
      return s;
    }
    const std::uint64_t seed = pg::client_seed(params.random_seed, 0);
    Status s;
    if (params.mode == pg::QueryMode::extended) {
      // ScriptClient speaks simple and prepared; extended runs the same script text.
      const pg::ScriptMix mix = pg::builtin_mix(script);
      pg::ClientSetup setup;
      setup.scale = params.scale;
      setup.random_seed = params.random_seed;
      setup.function_seed = seed;
      pg::MixClient client(database.connect(), params.mode, mix, setup, 0);
      s = ctx.measure_each(name, n, [&](std::uint64_t) { client.run(); });
    } else {
      pg::ScriptClient client(database.connect(), params.mode, params.scale, seed);
      s = ctx.measure_each(name, n, [&](std::uint64_t) { client.run(script); });
    }
    if (!s.ok()) return s;
    return storh::guarded("server statistics", [&] {
      for (const pg::ServerStatDelta& d : stats.end(database)) {
        ctx.engine_counter(name, d.name, d.unit, d.total, d.repeats);
      }
    });
  }
};

}  // namespace

STORH_PLUGIN(pg, "1.0.0", PgEngine)
