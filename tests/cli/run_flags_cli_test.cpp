// A run without a suite file, and --operation, end to end.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "test_support.h"

using storh::test::cli;
using storh::test::contains;
using storh::test::ScratchDir;

namespace {

using storh::test::fixture_path_flag;

std::vector<std::string> metric_keys(const std::filesystem::path& output) {
  const auto result = nlohmann::json::parse(storh::test::read_text(output));
  std::vector<std::string> keys;
  for (const auto& m : result["metrics"]) keys.push_back(m["key"].get<std::string>());
  return keys;
}

}  // namespace

TEST_CASE("cli flags: run --engine=NAME needs no suite file", "[cli][flags]") {
  ScratchDir dir;
  const auto output = dir / "r.json";
  const auto run =
      cli({"run", "--engine=misbehave", "--dataset=1k", "--repeat=1", fixture_path_flag,
           "--output=" + output.string(), "--work-dir=" + (dir / "work").string()});
  INFO(run.out << run.err);
  REQUIRE(run.code == 0);
  CHECK(metric_keys(output) ==
        std::vector<std::string>{"misbehave.first", "misbehave.latency", "misbehave.second"});
  const auto result = nlohmann::json::parse(storh::test::read_text(output));
  CHECK(result["experiment"]["suite"] == "misbehave");

  const auto validated = cli({"validate", "--engine=misbehave", fixture_path_flag});
  INFO(validated.out << validated.err);
  CHECK(validated.code == 0);
  CHECK(contains(validated.out, "flags: valid: suite \"misbehave\", 1 cell(s) x 3 repeat(s)"));
  CHECK(contains(validated.out, "output: build/bench-misbehave.json"));
}

TEST_CASE("cli flags: without a suite file or --engine the error says what to give",
          "[cli][flags]") {
  const auto run = cli({"run", "--dataset=10"});
  CHECK(run.code == 2);
  CHECK(contains(run.err, "expected one suite file (or --engine=NAME to run without one)"));
}

TEST_CASE("cli flags: --operation runs only the named operations", "[cli][flags][operations]") {
  const auto validated =
      cli({"validate", "--engine=misbehave", fixture_path_flag, "--operation=latency,first"});
  INFO(validated.out << validated.err);
  REQUIRE(validated.code == 0);
  CHECK(contains(validated.out, "slow_runs=0: first, latency\n"));

  const auto unknown =
      cli({"validate", "--engine=misbehave", fixture_path_flag, "--operation=firs"});
  CHECK(unknown.code == 2);
  CHECK(contains(unknown.err,
                 "--operation: unknown operation \"firs\" (the suite's engines "
                 "have: misbehave.first, misbehave.second, misbehave.latency); did "
                 "you mean \"first\"?"));
}

TEST_CASE("cli flags: load flags make a load run, results sort numerically", "[cli][flags][load]") {
  // Regression: load results sorted as strings, transactions=200 before 50.
  ScratchDir dir;
  const auto output = dir / "r.json";
  const auto run = cli({"run", "--engine=slow_tx", "--clients=1", "--transactions=200,50",
                        "--repeat=1", "--operation=sleep", fixture_path_flag,
                        "--output=" + output.string(), "--work-dir=" + (dir / "work").string()});
  INFO(run.out << run.err);
  REQUIRE(run.code == 0);
  CHECK(metric_keys(output) ==
        std::vector<std::string>{"slow_tx.sleep[clients=1,transactions=50]",
                                 "slow_tx.sleep[clients=1,transactions=200]"});
}

TEST_CASE("cli flags: validate --shard previews a shard's cells, and an empty shard says why",
          "[cli][flags][shard]") {
  const std::vector<std::string> base = {"validate", "--engine=misbehave", "--dataset=10,20,30",
                                         fixture_path_flag};
  auto args = base;
  args.push_back("--shard=2/2");
  const auto second = cli(args);
  INFO(second.out << second.err);
  REQUIRE(second.code == 0);
  CHECK(contains(second.out, "3 cell(s) x 3 repeat(s)"));
  CHECK(contains(second.out, "shard 2/2: 1 of the 3 cell(s)"));
  CHECK(contains(second.out, "misbehave n=20 "));
  CHECK_FALSE(contains(second.out, "misbehave n=10 "));

  args = base;
  args.push_back("--shard=5/8");
  const auto empty = cli(args);
  CHECK(empty.code == 0);
  CHECK(contains(empty.out, "shard 5/8 is empty: the suite has 3 cell(s)"));
  CHECK(contains(empty.out, "at most 3 shard(s) have work"));

  args = base;
  args.push_back("--shard=9/8");
  CHECK(cli(args).code == 2);

  ScratchDir dir;
  const auto output = dir / "r.json";
  const auto run = cli({"run", "--engine=misbehave", "--dataset=10", "--repeat=1", "--shard=2/2",
                        fixture_path_flag, "--output=" + output.string(),
                        "--work-dir=" + (dir / "work").string()});
  INFO(run.out << run.err);
  CHECK(run.code == 0);
  CHECK(contains(run.err, "shard 2/2 is empty: the suite has 1 cell(s)"));
  CHECK(metric_keys(output).empty());
}

TEST_CASE("cli flags: validate and run say how long a suite takes where it can know",
          "[cli][flags][expected]") {
  ScratchDir dir;
  const auto output = dir / "r.json";
  const std::vector<std::string> flags = {"--engine=misbehave",
                                          "--dataset=10",
                                          "--repeat=1",
                                          fixture_path_flag,
                                          "--output=" + output.string(),
                                          "--work-dir=" + (dir / "work").string()};
  // The command, the flags, then `extra` (a later flag wins).
  auto with = [&](std::vector<std::string> args, const std::string& extra = "--repeat=1") {
    args.insert(args.end(), flags.begin(), flags.end());
    args.push_back(extra);
    return args;
  };
  // Fixed work that never ran here: no estimate.
  CHECK_FALSE(contains(cli(with({"validate"})).out, "expected time"));
  const auto first = cli(with({"run"}));
  REQUIRE(first.code == 0);
  CHECK_FALSE(contains(first.err, "expected to take"));
  // The same plan ran: its worker runs' time (whatever it was: a sanitizer build is slower).
  const std::string estimate = cli(with({"validate"})).out;
  CHECK(contains(estimate, "expected time: about "));
  CHECK(contains(estimate, "s (the last run of this plan, " + output.string() + ")"));
  CHECK(contains(cli(with({"run"})).err, "storh-host: expected to take about "));
  // Another plan (another dataset) has no estimate from that file.
  CHECK_FALSE(contains(cli(with({"validate"}, "--dataset=20")).out, "expected time"));

  // Duration-bound load cells: their timed phases are a lower bound.
  const auto load = cli({"validate", "--engine=slow_tx", "--clients=1,2", "--duration=30s",
                         "--repeat=2", fixture_path_flag});
  INFO(load.out << load.err);
  CHECK(contains(load.out,
                 "expected time: at least 2m00s (the timed phases of 4 duration-bound run(s))"));
}

TEST_CASE("run flags: -o names the output, as report, merge and compare take it",
          "[cli][run_flags]") {
  // Regression: run refused -o.
  ScratchDir dir;
  const auto output = dir / "short.json";
  const auto run =
      cli({"run", std::string(STORH_TEST_SOURCE_DIR) + "/tests/fixtures/suites/containment.toml",
           std::string("--plugin-path=") + STORH_TEST_FIXTURE_DIR, "--set=misbehave.behaviour=ok",
           "--repeat=1", "-o", output.string()});
  INFO(run.out << run.err);
  CHECK(run.code == 0);
  CHECK(std::filesystem::exists(output));
}
