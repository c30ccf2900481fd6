// The shipped default suite end to end: every bundled engine runs in a worker process
// through the real host and passes its answer checks; durability=none is recorded.
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <set>

#include "test_support.h"

using storh::test::cli;
using storh::test::ScratchDir;

namespace {

const std::string default_suite = std::string(STORH_TEST_SOURCE_DIR) + "/suites/default.toml";

using storh::test::read_json;

}  // namespace

TEST_CASE("bundled engines: the default suite passes every answer check at 25 records",
          "[cli][engines]") {
  ScratchDir dir;
  const auto output = dir / "default.json";
  const auto run = cli({default_suite, "--dataset=25", "--repeat=1", "--output=" + output.string(),
                        "--work-dir=" + (dir / "work").string()});
  INFO(run.out << run.err);
  CHECK(run.code == 0);
  const nlohmann::json result = read_json(output);
  CHECK(result["failures"].empty());
  CHECK(result["experiment"]["durability"] == "durable");
  std::set<std::string> engines;
  for (const auto& metric : result["metrics"]) engines.insert(metric["engine"].get<std::string>());
  CHECK(engines == std::set<std::string>{"cache", "doc", "filter", "log", "mirror", "queue",
                                         "recovery", "uuid"});
}

TEST_CASE("bundled engines: four shards of the default suite, merged, equal one run",
          "[cli][engines][shard]") {
  ScratchDir dir;
  auto args = [&](const std::string& output) {
    return std::vector<std::string>{default_suite, "--dataset=25", "--repeat=2",
                                    "--output=" + (dir / output).string(),
                                    "--work-dir=" + (dir / "work").string()};
  };
  REQUIRE(cli(args("whole.json")).code == 0);
  std::vector<std::string> merge = {"merge", "-o", (dir / "merged.json").string()};
  for (int k = 1; k <= 4; ++k) {
    auto shard = args(fmt::format("shard{}.json", k));
    shard.push_back(fmt::format("--shard={}/4", k));
    const auto run = cli(shard);
    INFO(run.out << run.err);
    REQUIRE(run.code == 0);
    merge.push_back((dir / fmt::format("shard{}.json", k)).string());
  }
  const auto merged = cli(merge);
  INFO(merged.err);
  REQUIRE(merged.code == 0);
  // The same metrics, each with the same number of samples, and no failures.
  auto shape = [](const nlohmann::json& result) {
    std::vector<std::pair<std::string, std::size_t>> metrics;
    for (const auto& m : result["metrics"]) metrics.emplace_back(m["key"], m["samples"].size());
    return metrics;
  };
  const nlohmann::json whole = read_json(dir / "whole.json");
  const nlohmann::json joined = read_json(dir / "merged.json");
  CHECK(shape(joined) == shape(whole));
  CHECK(shape(joined).size() > 50);
  CHECK(joined["failures"].empty());
  CHECK(joined["experiment"]["fingerprint"] == whole["experiment"]["fingerprint"]);

  // A `!` means "look at this": two samples are no cause for one (significance tests
  // are compare's and gate's), and a spread is flagged only against its yardstick (its
  // in-run floor's or the run's typical spread) or past 25%, always saying what
  // narrows it.
  for (const auto& metric : whole["metrics"]) {
    for (const auto& warning : metric["warnings"]) {
      const std::string text = warning.get<std::string>();
      INFO(metric["key"] << ": " << text);
      CHECK(text.find("sample(s)") == std::string::npos);
      CHECK(text.starts_with("spread too wide to trust"));
      // Against its yardstick, or past the spread no yardstick excuses.
      CHECK((text.find(" times ") != std::string::npos ||
             text.find("which no yardstick excuses (") != std::string::npos));
      CHECK(text.find("narrow it with more repeats (--repeat=10)") != std::string::npos);
    }
  }
}

TEST_CASE("bundled engines: durability=none is written into the result file", "[cli][engines]") {
  ScratchDir dir;
  const auto output = dir / "none.json";
  const auto run = cli({default_suite, "--dataset=5", "--repeat=1", "--engine=queue,log", "--set",
                        "queue.durability=none", "--output=" + output.string(),
                        "--work-dir=" + (dir / "work").string()});
  INFO(run.out << run.err);
  CHECK(run.code == 0);
  const nlohmann::json result = read_json(output);
  CHECK(result["experiment"]["durability"] == "none: queue");
  CHECK(storh::test::contains(run.out, "durability"));
}

TEST_CASE("bundled engines: the cache suite's validation matrix gives three metric sets",
          "[cli][engines][cache]") {
  ScratchDir dir;
  const auto output = dir / "cache.json";
  const auto run = cli({std::string(STORH_TEST_SOURCE_DIR) + "/suites/cache.toml", "--dataset=20",
                        "--repeat=1", "--set", "cache.durability=none",
                        "--output=" + output.string(), "--work-dir=" + (dir / "work").string()});
  INFO(run.out << run.err);
  CHECK(run.code == 0);
  const nlohmann::json result = read_json(output);
  CHECK(result["failures"].empty());
  std::set<std::string> keys;
  for (const auto& metric : result["metrics"]) keys.insert(metric["key"].get<std::string>());
  for (const char* mode : {"hash", "stat", "trust"}) {
    for (const char* op : {"cold", "warm"}) {
      CHECK(keys.count(fmt::format("cache.{}[validation={}]", op, mode)) == 1);
    }
  }
  CHECK(storh::test::contains(run.out, "validation=trust"));
}

// The shipped CI suite is what `ci` runs by default: every engine it names must run
// its selected operations, and its calibration and baseline files must load.
TEST_CASE("bundled engines: the CI suite runs in A/B mode and its files load",
          "[cli][engines][ci]") {
  ScratchDir dir;
  const std::string suite = std::string(STORH_TEST_SOURCE_DIR) + "/suites/ci.toml";
  const auto run =
      cli({"ci", suite, std::string("--base=") + STORH_TEST_PLUGIN_DIR, "--dataset=10", "--pairs=2",
           "--lenient", "--min-time=1ms", "--counters=none",
           "--output=" + (dir / "ab.json").string(), "--work-dir=" + (dir / "work").string()});
  INFO(run.out << run.err);
  CHECK(run.code == 0);
  const nlohmann::json result = read_json(dir / "ab.json");
  CHECK(result["failures"].empty());
  CHECK(result["ab"]["base"]["failures"].empty());
  std::set<std::string> engines;
  for (const auto& metric : result["metrics"]) engines.insert(metric["engine"].get<std::string>());
  CHECK(engines ==
        std::set<std::string>{"cache", "doc", "filter", "log", "mirror", "queue", "uuid"});

  const std::string baseline = std::string(STORH_TEST_SOURCE_DIR) + "/suites/baselines/ci.json";
  const auto gated =
      cli({"gate", baseline, baseline,
           "--calibration=" + std::string(STORH_TEST_SOURCE_DIR) + "/suites/calibration/ci.json"});
  INFO(gated.out << gated.err);
  CHECK(gated.code == 0);
}
