// min_time end to end (storh/engine.h measure_repeated): a repeatable step is timed as
// a batch of calls that lasts at least min_time and reported per call; a plain step
// is not; a wrong answer in any call fails the cell; bad values are refused.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "test_support.h"

using storh::test::cli;
using storh::test::contains;
using storh::test::metric;
using storh::test::ScratchDir;

namespace {

using storh::test::fixture_path_flag;

storh::test::CliResult run_repeatable(const ScratchDir& dir, std::vector<std::string> extra) {
  std::vector<std::string> args = {"run",
                                   "--engine=repeatable",
                                   "--dataset=1k",
                                   "--repeat=2",
                                   fixture_path_flag,
                                   "--output=" + (dir / "r.json").string(),
                                   "--work-dir=" + dir.path().string()};
  args.insert(args.end(), extra.begin(), extra.end());
  return cli(args);
}

}  // namespace

TEST_CASE("min_time: a repeatable step is one batch of many calls, reported per call",
          "[cli][min_time]") {
#if defined(__SANITIZE_ADDRESS__)
  WARN("sanitizer build: batch sizes of an instrumented Debug build are not what this test pins");
  return;
#endif
  ScratchDir dir;
  const auto run = run_repeatable(dir, {"--min-time=5ms"});
  INFO(run.out << run.err);
  REQUIRE(run.code == 0);
  const auto result = nlohmann::json::parse(storh::test::read_text(dir / "r.json"));
  CHECK(result["experiment"]["min_time_seconds"] == 0.005);
  const auto count = metric(result, "repeatable.count");
  REQUIRE(count["samples"].size() == 2);
  for (const auto& sample : count["samples"]) {
    // A sum of 1000 numbers takes about a microsecond: 5 ms needs thousands of calls.
    CHECK(sample["calls"].get<std::uint64_t>() > 10);
    CHECK(sample["items"] == 1000);
    // Per call: the batch lasted >= 5 ms, so one call is that over the calls.
    CHECK(sample["seconds"].get<double>() * sample["calls"].get<double>() >= 0.005);
  }
  for (const auto& sample : metric(result, "repeatable.once")["samples"]) {
    CHECK_FALSE(sample.contains("calls"));  // a measure() step runs once
  }
  CHECK(contains(run.out, "min_time 5.000 ms: 1 metric timed in batches of calls"));
  CHECK(contains(run.out, "per item"));
}

TEST_CASE("min_time: 0 runs every step once, the suite's value is used and overridden",
          "[cli][min_time]") {
  ScratchDir dir;
  auto run = run_repeatable(dir, {"--min-time=0"});
  INFO(run.out << run.err);
  REQUIRE(run.code == 0);
  auto result = nlohmann::json::parse(storh::test::read_text(dir / "r.json"));
  CHECK(result["experiment"]["min_time_seconds"] == 0.0);
  for (const auto& sample : metric(result, "repeatable.count")["samples"]) {
    CHECK_FALSE(sample.contains("calls"));
  }

  storh::test::write_text(dir / "s.toml", "min_time = \"2ms\"\n[engines.repeatable]\n");
  run = cli({"run", (dir / "s.toml").string(), "--repeat=1", fixture_path_flag,
             "--output=" + (dir / "s.json").string(), "--work-dir=" + dir.path().string()});
  REQUIRE(run.code == 0);
  result = nlohmann::json::parse(storh::test::read_text(dir / "s.json"));
  CHECK(result["experiment"]["min_time_seconds"] == 0.002);
  CHECK(metric(result, "repeatable.count")["samples"][0]["calls"].get<std::uint64_t>() > 1);
}

TEST_CASE("min_time: a wrong answer in a later call fails the cell, not a fast number",
          "[cli][min_time]") {
  ScratchDir dir;
  const auto run = run_repeatable(dir, {"--min-time=5ms", "--set", "repeatable.fail_on_call=3"});
  INFO(run.out << run.err);
  CHECK(run.code == 3);
  const auto result = nlohmann::json::parse(storh::test::read_text(dir / "r.json"));
  REQUIRE_FALSE(result["failures"].empty());
  CHECK(result["failures"][0]["operation"] == "count");
  CHECK(contains(result["failures"][0]["message"].get<std::string>(), "count: call 3 summed"));
  for (const auto& m : result["metrics"]) CHECK(m["key"] != "repeatable.count");
}

TEST_CASE("min_time: bad values name the flag or the suite position", "[cli][min_time]") {
  ScratchDir dir;
  auto run = run_repeatable(dir, {"--min-time=soon"});
  CHECK(run.code == 2);
  CHECK(contains(run.err, "storh-host: --min-time: expected a duration from 0 to 1h"));
  storh::test::write_text(dir / "s.toml", "min_time = -1\n[engines.repeatable]\n");
  run = cli({"validate", (dir / "s.toml").string(), fixture_path_flag});
  CHECK(run.code == 2);
  CHECK(contains(run.err, "s.toml:1:12: \"min_time\" must be a duration from 0 to 1h"));
}
