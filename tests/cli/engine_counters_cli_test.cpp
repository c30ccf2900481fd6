// Engine counters (plugin ABI 1.7, docs/counters.md) end to end with the counted_tx
// fixture: a scenario step's and a load phase's counters per item in the result file
// and every report, and a plugin built against the SDK 1.6 headers still running.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "test_support.h"

using storh::test::cli;
using storh::test::contains;
using storh::test::fixture_path_flag;
using storh::test::metric;
using storh::test::ScratchDir;

namespace {

// NOLINTNEXTLINE(bugprone-exception-escape): a test's aggregate; a throw fails the test
struct EngineCountersRun {
  storh::test::CliResult cli;
  nlohmann::json result;
  std::string file;
};

// Runs a suite of `body` (after the name) and reads its result file.
EngineCountersRun run_counted_suite(const ScratchDir& dir, const std::string& body) {
  const auto suite = dir / "s.toml";
  storh::test::write_text(suite, "name = \"ec\"\ntimeout = \"60s\"\n" + body + "\n");
  EngineCountersRun run;
  run.file = (dir / "o.json").string();
  run.cli = cli({suite.string(), fixture_path_flag, "--output=" + run.file,
                 "--work-dir=" + (dir / "work").string()});
  if (std::filesystem::exists(run.file)) {
    run.result = nlohmann::json::parse(storh::test::read_text(run.file));
  }
  return run;
}

}  // namespace

TEST_CASE("engine counters: a step's counters are per item, in the file and every report",
          "[cli][engine-counters]") {
  ScratchDir dir;
  const EngineCountersRun run =
      run_counted_suite(dir, "datasets = [1000]\nrepeat = 2\n[engines.counted_tx]\n");
  INFO(run.cli.out << run.cli.err);
  REQUIRE(run.cli.code == 0);
  const auto& engine = metric(run.result, "counted_tx.add")["engine_counters"];
  CHECK(engine["counted_tx.adds"]["per_item"] == 1.0);
  CHECK(engine["counted_tx.adds"]["unit"] == "adds");
  CHECK(engine["counted_tx.adds"]["repeats"] == true);
  CHECK(engine["counted_tx.jitter"]["per_item"] == 0.5);
  CHECK(engine["counted_tx.jitter"]["repeats"] == false);
  CHECK(engine.size() == 2);  // the call for an unmeasured step was dropped

  for (const std::string& text :
       {run.cli.out, cli({"report", run.file}).out, cli({"report", run.file, "--format=md"}).out}) {
    CHECK(contains(text, "engine's counters per item"));
    CHECK(contains(text, "counted_tx.adds 1 adds, counted_tx.jitter ~0.5 ticks"));
  }
  const std::string html = cli({"report", run.file, "--format=html"}).out;
  CHECK(contains(html, "engine&#39;s counters per item"));
  CHECK(contains(html, "counted_tx.adds 1 adds"));
}

TEST_CASE("engine counters: a load phase's counters are per transaction, warm-up included",
          "[cli][engine-counters][load]") {
  ScratchDir dir;
  const EngineCountersRun run =
      run_counted_suite(dir,
                        "[load]\nprogress = 0\nclients = 2\ntransactions = 40\n"
                        "warmup = 10\n[engines.counted_tx]\n");
  INFO(run.cli.out << run.cli.err);
  REQUIRE(run.cli.code == 0);
  const auto& m = metric(run.result, "counted_tx.bump[clients=2,transactions=40]");
  CHECK(m["load"]["processed"] == 80);
  // 100 transactions ran (20 of them warm-up), and the engine counted 100.
  CHECK(m["engine_counters"]["counted_tx.transactions"]["per_item"] == 1.0);
  CHECK(m["engine_counters"]["counted_tx.transactions"]["repeats"] == true);
}

TEST_CASE("engine counters: a plugin built against the SDK 1.6 headers loads and runs",
          "[cli][engine-counters][load]") {
  ScratchDir dir;
  const EngineCountersRun scenario =
      run_counted_suite(dir, "datasets = [100]\n[engines.sdk_1_6]\n");
  INFO(scenario.cli.out << scenario.cli.err);
  REQUIRE(scenario.cli.code == 0);
  CHECK_FALSE(metric(scenario.result, "sdk_1_6.add").contains("engine_counters"));

  ScratchDir load_dir;
  const EngineCountersRun load =
      run_counted_suite(load_dir, "[load]\nprogress = 0\ntransactions = 20\n[engines.sdk_1_6]\n");
  INFO(load.cli.out << load.cli.err);
  REQUIRE(load.cli.code == 0);
  const auto& m = metric(load.result, "sdk_1_6.bump[clients=1,transactions=20]");
  CHECK(m["load"]["processed"] == 20);
  CHECK_FALSE(m.contains("engine_counters"));
  CHECK_FALSE(contains(load.cli.out, "engine's counters"));
}

TEST_CASE("engine counters: the gate takes an engine counter's name as a tolerance",
          "[cli][engine-counters][gate]") {
  ScratchDir dir;
  const EngineCountersRun run = run_counted_suite(dir, "datasets = [1000]\n[engines.counted_tx]\n");
  REQUIRE(run.cli.code == 0);
  // The same file on both sides: the engine counter is compared and passes.
  const auto same = cli({"gate", run.file, run.file, "--counter=counted_tx.adds=0"});
  INFO(same.out << same.err);
  CHECK(same.code == 0);
  CHECK(contains(same.out, "counted_tx.adds"));
  // A name that is neither a host counter nor an engine's is refused as before.
  const auto bad = cli({"gate", run.file, run.file, "--counter=fsyncs=0"});
  CHECK(bad.code == 2);
}

TEST_CASE("engine counters: a suite's [gate] counters take engine counters, dotted or quoted",
          "[cli][engine-counters][gate]") {
  ScratchDir dir;
  const auto suite = dir / "s.toml";
  storh::test::write_text(
      suite,
      "name = \"ec\"\n[engines.counted_tx]\n[gate]\n"
      "counters = { fsync = 0, counted_tx.adds = 0, \"counted_tx.jitter\" = 5 }\n");
  const auto ok = cli({"validate", suite.string(), fixture_path_flag});
  INFO(ok.out << ok.err);
  CHECK(ok.code == 0);
  storh::test::write_text(suite,
                          "name = \"ec\"\n[engines.counted_tx]\n[gate]\n"
                          "counters = { counted_tx.Adds = 0 }\n");
  const auto bad = cli({"validate", suite.string(), fixture_path_flag});
  CHECK(bad.code == 2);
  CHECK(contains(bad.err, "\"counted_tx.Adds\" is not an engine counter name"));
}

TEST_CASE("engine counters: compare explains a changed metric with its engine counters",
          "[cli][engine-counters][compare]") {
  // Ten times the numbers to add: ten times slower, and the same counts per item.
  ScratchDir base_dir, next_dir;
  const EngineCountersRun base =
      run_counted_suite(base_dir, "datasets = [100000]\nrepeat = 3\n[engines.counted_tx]\n");
  const EngineCountersRun next =
      run_counted_suite(next_dir, "datasets = [1000000]\nrepeat = 3\n[engines.counted_tx]\n");
  REQUIRE(base.cli.code == 0);
  REQUIRE(next.cli.code == 0);
  const auto text = cli({"compare", base.file, next.file});
  INFO(text.out << text.err);
  CHECK(contains(text.out, "engine counters that changed with it:\n  counted_tx.add items +"));
  CHECK(contains(text.out, ": no engine counter changed\n"));
  const std::string md = cli({"compare", base.file, next.file, "--format=md"}).out;
  const std::string html = cli({"compare", base.file, next.file, "--format=html"}).out;
  CHECK(contains(md, "Engine counters that changed with it:"));
  CHECK(contains(html, "<h2>Engine counters that changed with it</h2>"));
  // Regression: the table of the engine's counters was titled for a counting pass
  // these runs never had.
  CHECK(contains(text.out, "\nengine counters per item:\n"));
  CHECK(contains(md, "\nEngine counters per item:\n"));
  CHECK(contains(html, "<h2>Engine counters per item</h2>"));
  for (const std::string& out : {text.out, md, html}) CHECK_FALSE(contains(out, "counting pass"));
}
