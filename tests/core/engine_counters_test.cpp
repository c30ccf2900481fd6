// Engine counters in the host (docs/counters.md, "Engine counters"): the worker event
// round trip, the per-item median over repeats, the result file round trip, the
// suite's dotted gate key, compare's explanation line, and a confirmation re-run's
// repeats merged into the counters.
#include <catch2/catch.hpp>

#include "compare/explain.h"
#include "count/counters.h"
#include "run/aggregate.h"
#include "run/engine_counters.h"
#include "worker/event.h"

namespace {

storh::run::CellRun run_with(std::vector<storh::worker::EngineCounterEvent> samples) {
  storh::run::CellRun run;
  run.engine_counters = std::move(samples);
  return run;
}

}  // namespace

TEST_CASE("engine counters: the worker event survives encode and decode", "[engine-counters]") {
  const storh::worker::EngineCounterEvent event{"select_only", 201,    "pg.wal_bytes",
                                                "bytes",       1234.5, true};
  const auto decoded = storh::worker::decode(storh::worker::encode(event));
  REQUIRE(decoded);
  CHECK(std::get<storh::worker::EngineCounterEvent>(*decoded) == event);
  const auto missing = storh::worker::decode(R"({"event":"engine_counter","op":"x"})");
  REQUIRE_FALSE(missing);
  CHECK(missing.error() == "worker event \"engine_counter\": missing \"items\"");
}

TEST_CASE("engine counters: per item is the median over repeats of total / items",
          "[engine-counters]") {
  const storh::run::CellRuns runs = {
      run_with(
          {{"put", 100, "e.reads", "reads", 200, true}, {"get", 10, "e.reads", "reads", 7, true}}),
      run_with({{"put", 100, "e.reads", "reads", 400, true},
                {"put", 100, "e.noise", "ticks", 1, false}}),
      run_with(
          {{"put", 100, "e.reads", "reads", 300, false}, {"put", 0, "e.zero", "items", 5, true}}),
  };
  const auto values = storh::run::summarize_engine_counters(runs, "put");
  REQUIRE(values.size() == 2);  // a report of 0 items has no per-item figure
  CHECK(values[0] == storh::result::EngineCounterValue{"e.noise", "ticks", 0.01, false});
  // Median of 2, 4 and 3; one repeat did not promise it repeats.
  CHECK(values[1] == storh::result::EngineCounterValue{"e.reads", "reads", 3, false});
}

TEST_CASE("engine counters: engine counter names are <engine>.<counter>", "[engine-counters]") {
  CHECK(storh::count::is_engine_counter_name("pg.blks_read"));
  CHECK(storh::count::is_engine_counter_name("mirror.cache_hit"));
  CHECK_FALSE(storh::count::is_engine_counter_name("fsync"));
  CHECK_FALSE(storh::count::is_engine_counter_name(".blks_read"));
  CHECK_FALSE(storh::count::is_engine_counter_name("pg."));
  CHECK_FALSE(storh::count::is_engine_counter_name("pg.Blks Read"));
}

TEST_CASE("engine counters: the explanation names what moved and counts what held still",
          "[engine-counters][compare]") {
  using V = storh::result::EngineCounterValue;
  const std::vector<V> base = {{"pg.wal_bytes", "bytes", 812, false},
                               {"pg.wal_sync", "syncs", 1, false},
                               {"pg.xact_commit", "commits", 1, true}};
  const std::vector<V> next = {{"pg.wal_bytes", "bytes", 815, false},
                               {"pg.wal_sync", "syncs", 0, false},
                               {"pg.xact_commit", "commits", 1, true}};
  CHECK(storh::compare::explain_change("pg.tpcb_like[clients=1]", "tps", 31.04, base, next) ==
        "pg.tpcb_like[clients=1] tps +31.0%: pg.wal_sync per transaction 1 -> 0 syncs, "
        "2 other engine counters unchanged");
  const std::vector<V> two_base(base.begin(), base.begin() + 2);
  const std::vector<V> two_next(next.begin(), next.begin() + 2);
  CHECK(storh::compare::explain_change("k", "tps", -5, two_base, two_next) ==
        "k tps -5.0%: pg.wal_sync per transaction 1 -> 0 syncs, pg.wal_bytes per transaction "
        "unchanged");
  CHECK(storh::compare::explain_change("k", "ids", 12, base, base) ==
        "k ids +12.0%: no engine counter changed");
  CHECK(storh::compare::engine_counters_changed(base, next));
  CHECK_FALSE(storh::compare::engine_counters_changed(base, base));
}

TEST_CASE("engine counters: a confirmation re-run's repeats join the median of each counter",
          "[engine-counters][ci]") {
  // Regression: ci --confirm added the re-run's samples but kept the first run's
  // counters, so the merged metric's counters described only its first repeats.
  const storh::run::CellRuns first_runs = {
      run_with({{"put", 100, "e.reads", "reads", 100, true}}),
      run_with({{"put", 100, "e.reads", "reads", 200, true}}),
  };
  const storh::run::CellRuns more_runs = {
      run_with({{"put", 100, "e.reads", "reads", 500, true},
                {"put", 100, "e.noise", "ticks", 3, false}}),
      run_with({{"put", 100, "e.reads", "reads", 600, false}}),
      run_with({{"put", 100, "e.reads", "reads", 700, true}}),
  };
  storh::result::ResultFile file;
  file.metrics.emplace_back();
  file.metrics[0].key = "e.put";
  file.metrics[0].samples = {{1.0, 100, 1}, {1.1, 100, 1}};
  file.metrics[0].engine_counters = storh::run::summarize_engine_counters(
      first_runs, "put", &file.metrics[0].engine_counter_repeats);
  storh::result::ResultFile extra;
  extra.metrics.push_back(file.metrics[0]);
  extra.metrics[0].engine_counters = storh::run::summarize_engine_counters(
      more_runs, "put", &extra.metrics[0].engine_counter_repeats);
  storh::run::add_samples(file, extra);

  const auto& merged = file.metrics[0].engine_counters;
  REQUIRE(merged.size() == 2);
  CHECK(merged[0] == storh::result::EngineCounterValue{"e.noise", "ticks", 0.03, false});
  // The median of 1, 2, 5, 6 and 7 per item; one repeat did not promise it repeats.
  CHECK(merged[1] == storh::result::EngineCounterValue{"e.reads", "reads", 5, false});
  CHECK(file.metrics[0].engine_counter_repeats.at("e.reads").size() == 5);

  // A metric read from a file, without its repeats' figures, counts as one repeat.
  storh::result::Metric from_file;
  from_file.engine_counters = {{"e.reads", "reads", 4, true}};
  storh::result::Metric rerun;
  rerun.engine_counters = {{"e.reads", "reads", 7, true}};
  rerun.engine_counter_repeats["e.reads"] = {6, 8};
  storh::run::merge_engine_counters(from_file, rerun);
  REQUIRE(from_file.engine_counters.size() == 1);
  CHECK(from_file.engine_counters[0] ==
        storh::result::EngineCounterValue{"e.reads", "reads", 6, true});
}
