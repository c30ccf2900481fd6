// run --shard=K/N and merge: the shards of a suite, merged, hold what one unsharded
// run of the same cells holds; what cannot be merged is refused by name.
#include <map>
#include <set>

#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "plan/shard.h"
#include "test_support.h"

using storh::test::cli;
using storh::test::contains;
using storh::test::ScratchDir;

namespace {

const std::string containment_suite =
    std::string(STORH_TEST_SOURCE_DIR) + "/tests/fixtures/suites/containment.toml";
using storh::test::fixture_path_flag;

using storh::test::read_json;

// 2 behaviours x 2 datasets = 4 cells, 2 repeats; the `fail` cells fail.
std::vector<std::string> containment_args(const ScratchDir& dir, const std::string& output) {
  return {containment_suite,
          fixture_path_flag,
          "--set=misbehave.behaviour=ok,fail",
          "--dataset=100,200",
          "--repeat=2",
          "--work-dir=" + (dir / "work").string(),
          "--output=" + (dir / output).string()};
}

std::string run_shard(const ScratchDir& dir, const std::string& shard, const std::string& output,
                      std::vector<std::string> extra = {}) {
  std::vector<std::string> args = containment_args(dir, output);
  args.push_back("--shard=" + shard);
  args.insert(args.end(), extra.begin(), extra.end());
  const auto run = cli(args);
  INFO(run.out << run.err);
  CHECK((run.code == 0 || run.code == 3));  // 3: a `fail` cell is in the shard
  return (dir / output).string();
}

// What a metric is, without its timings: key and sample count.
std::map<std::string, std::size_t> metric_samples(const nlohmann::json& result) {
  std::map<std::string, std::size_t> samples;
  for (const auto& metric : result["metrics"]) samples[metric["key"]] = metric["samples"].size();
  return samples;
}

std::multiset<std::string> failure_cells(const nlohmann::json& result) {
  std::multiset<std::string> cells;
  for (const auto& f : result["failures"]) {
    cells.insert(fmt::format("{} {} {} {} {}", f["engine"].get<std::string>(),
                             f["dataset"].get<std::uint64_t>(), f["params"].dump(),
                             f["repeat"].get<int>(), f["kind"].get<std::string>()));
  }
  return cells;
}

}  // namespace

TEST_CASE("shard: K/N is parsed strictly and splits the cells round robin", "[shard]") {
  using storh::plan::parse_shard;
  const auto two_of_four = parse_shard("2/4");
  REQUIRE(two_of_four.ok());
  CHECK(two_of_four->index == 2);
  CHECK(two_of_four->count == 4);
  for (const char* bad : {"0/4", "5/4", "1/0", "x", "1/", "/4", "1/4/2", "-1/4", "1/10001"}) {
    INFO(bad);
    CHECK_FALSE(parse_shard(bad).ok());
  }
  CHECK(contains(parse_shard("5/4").error(), "K must be 1 to N"));
  CHECK(contains(parse_shard("two").error(), "expected K/N such as 2/4, got \"two\""));
  // Every cell is in exactly one shard.
  for (std::size_t cell = 0; cell < 10; ++cell) {
    int owners = 0;
    for (std::uint32_t k = 1; k <= 3; ++k) owners += storh::plan::in_shard(cell, {k, 3}) ? 1 : 0;
    CHECK(owners == 1);
  }
}

TEST_CASE("shard: three shards merged hold what one run holds, cell for cell", "[shard][cli]") {
  ScratchDir dir;
  const auto whole = cli(containment_args(dir, "whole.json"));
  REQUIRE(whole.code == 3);  // the `fail` cells
  const std::string one = run_shard(dir, "1/3", "s1.json");
  const std::string two = run_shard(dir, "2/3", "s2.json");
  const std::string three = run_shard(dir, "3/3", "s3.json");
  const nlohmann::json first = read_json(one);
  CHECK(first["experiment"]["shard"] ==
        nlohmann::json({{"index", 1}, {"count", 3}, {"cells", 2}, {"plan_cells", 4}}));
  CHECK(read_json(three)["experiment"]["shard"]["cells"] == 1);

  const auto merged_path = (dir / "merged.json").string();
  const auto merge = cli({"merge", three, one, two, "-o", merged_path});  // any order
  INFO(merge.out << merge.err);
  REQUIRE(merge.code == 0);
  CHECK(merge.out == "merge: " + merged_path + "\n");
  const nlohmann::json merged = read_json(merged_path);
  const nlohmann::json reference = read_json(dir / "whole.json");
  CHECK_FALSE(merged["experiment"].contains("shard"));
  CHECK(metric_samples(merged) == metric_samples(reference));
  CHECK(metric_samples(merged).size() >= 4);  // both operations of the two ok cells, at least
  CHECK(failure_cells(merged) == failure_cells(reference));
  CHECK(merged["runs"].size() == reference["runs"].size());
  nlohmann::json experiment = merged["experiment"], expected = reference["experiment"];
  for (const char* differs : {"work_dir", "command_line"}) {
    experiment.erase(differs);
    expected.erase(differs);
  }
  CHECK(experiment == expected);
  // The merged file is a result like any other: compare sees the same suite.
  const auto compared = cli({"compare", (dir / "whole.json").string(), merged_path});
  CHECK(compared.code == 0);
  CHECK_FALSE(contains(compared.err, "fingerprint"));
}

TEST_CASE("merge: missing, doubled, foreign and unsharded files are refused by name",
          "[shard][cli]") {
  ScratchDir dir;
  const std::string one = run_shard(dir, "1/3", "s1.json");
  const std::string two = run_shard(dir, "2/3", "s2.json");
  auto refused = [](const std::vector<std::string>& args, const std::string& message) {
    std::vector<std::string> all = {"merge"};
    all.insert(all.end(), args.begin(), args.end());
    const auto run = cli(all);
    INFO(run.err);
    CHECK(run.code == 2);
    CHECK(contains(run.err, message));
  };
  refused({one, two}, "storh-host merge: shard 3 of 3 missing");
  refused({one, one, two}, "shard 1 of 3 given twice: " + one + " and " + one);
  // Another suite (here: other datasets) has another fingerprint.
  std::vector<std::string> args = containment_args(dir, "other.json");
  args[3] = "--dataset=100";
  args.push_back("--shard=3/3");
  cli(args);
  refused({one, two, (dir / "other.json").string()}, "shards of different suites");
  // Another shard count.
  const std::string of_two = run_shard(dir, "2/2", "t2.json");
  refused({one, of_two}, of_two + ": shard 2 of 2");
  // An unsharded result.
  REQUIRE(cli(containment_args(dir, "whole.json")).code == 3);
  refused({one, (dir / "whole.json").string()}, "whole.json: not a shard");
  // A shard record out of range is refused when the file is read: a count of 2^32 - 1
  // must not make merge look for four billion shards.
  nlohmann::json forged = read_json(one);
  forged["experiment"]["shard"]["count"] = 4294967295u;
  storh::test::write_text(dir / "forged.json", forged.dump());
  refused({(dir / "forged.json").string()}, "not a shard: index 1 of count 4294967295");
  refused({}, "expected the shard result files");
  refused({one, (dir / "missing.json").string()}, "missing.json");
  refused({one, two, "-o", "/dev/null"}, "storh-host merge: --output: /dev/null");
  // A bad --shard is bad input before any work.
  std::vector<std::string> bad = containment_args(dir, "bad.json");
  bad.push_back("--shard=4/3");
  const auto run = cli(bad);
  CHECK(run.code == 2);
  CHECK(contains(run.err, "storh-host: --shard: \"4/3\": K must be 1 to N"));
  CHECK_FALSE(std::filesystem::exists(dir / "bad.json"));
}
