// `storh-host ci` end to end with the misbehave fixture, whose `cost` parameter sets
// its speed (busy-waiting cost ns per item: 10 ms a run here, long against a
// scheduler time slice): a 10x slower `first` is a regression no noise explains, and
// a `blip` file makes exactly one run 10x slow. Thresholds are wide (100%) so the
// verdicts do not depend on how loaded the machine is.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "test_support.h"

using storh::test::cli;
using storh::test::contains;
using storh::test::ScratchDir;

namespace {

using storh::test::fixture_path_flag;

// A CI suite over misbehave.first, gated at 100% against dir/baseline.json.
// `params` are extra lines of [engines.misbehave.params]; `gate` of [gate].
std::string write_suite(const ScratchDir& dir, const std::string& name, const std::string& params,
                        const std::string& gate = {}) {
  const auto file = dir / (name + ".toml");
  storh::test::write_text(
      file, "datasets = [20000]\nrepeat = 3\norder = \"interleave\"\noutput = \"" +
                (dir / (name + ".json")).string() +
                "\"\n[engines.misbehave]\noperations = [\"first\"]\n[engines.misbehave.params]\n" +
                params + "[gate]\nbaseline = \"" + (dir / "baseline.json").string() +
                "\"\nthreshold = 100\n" + gate);
  return file.string();
}

}  // namespace

TEST_CASE("ci: without a baseline it says how to make one", "[cli][ci]") {
  ScratchDir dir;
  const auto run = cli({"ci", write_suite(dir, "a", "cost = 500\n"), fixture_path_flag});
  CHECK(run.code == 2);
  CHECK(contains(run.err, "baseline.json: cannot open"));
  // Regression: the advice left out the suite, so it would update suites/ci.toml's.
  const std::string suite = (dir / "a.toml").string();
  CHECK(contains(run.err, "storh-host ci " + suite + " --update-baseline"));
}

TEST_CASE("ci: the same build against its own baseline passes", "[cli][ci]") {
  ScratchDir dir;
  const std::string suite = write_suite(dir, "a", "cost = 500\n");
  auto run = cli({"ci", suite, fixture_path_flag, "--update-baseline"});
  INFO(run.out << run.err);
  REQUIRE(run.code == 0);
  CHECK(contains(run.out, "baseline updated: "));
  REQUIRE(std::filesystem::exists(dir / "baseline.json"));

  run = cli({"ci", suite, fixture_path_flag});
  INFO(run.out << run.err);
  CHECK(run.code == 0);
  CHECK(contains(run.out, "misbehave.first"));
  CHECK(contains(run.out, "Benchmark regression gate passed at threshold +100.00%."));
}

TEST_CASE("ci: a real regression fails, and confirming does not excuse it", "[cli][ci]") {
  ScratchDir dir;
  REQUIRE(
      cli({"ci", write_suite(dir, "base", "cost = 500\n"), fixture_path_flag, "--update-baseline"})
          .code == 0);
  const auto run =
      cli({"ci", write_suite(dir, "slow", "cost = 5000\n"), fixture_path_flag, "--confirm=2"});
  INFO(run.out << run.err);
  CHECK(run.code == 1);
  CHECK(contains(run.out, "confirm: 1 metric(s) over the threshold; re-running 1 cell(s) 2"));
  CHECK(contains(run.out, "FAIL"));
  CHECK(contains(run.err, "Benchmark regression gate failed at threshold +100.00%."));
  // The confirmation samples are kept: 3 repeats + 2 re-runs.
  const auto result = nlohmann::json::parse(storh::test::read_text(dir / "slow.json"));
  CHECK(result["metrics"][0]["samples"].size() == 5);
}

TEST_CASE("ci: a one-run noise blip is confirmed away", "[cli][ci]") {
  ScratchDir dir;
  REQUIRE(
      cli({"ci", write_suite(dir, "base", "cost = 500\n"), fixture_path_flag, "--update-baseline"})
          .code == 0);
  // One repeat, so the blip is the whole first sample; confirm adds three fast ones.
  const std::string suite =
      write_suite(dir, "blip", "cost = 500\nblip = \"" + (dir / "blip-marker").string() + "\"\n",
                  "confirm = 3\n");
  const auto run = cli({"ci", suite, fixture_path_flag, "--repeat=1"});
  INFO(run.out << run.err);
  CHECK(run.code == 0);
  CHECK(contains(run.out, "confirm: 1 metric(s) over the threshold"));
  CHECK(contains(run.out, "Benchmark regression gate passed"));
}

TEST_CASE("ci: a failed run is exit 3 and is not gated", "[cli][ci]") {
  ScratchDir dir;
  REQUIRE(
      cli({"ci", write_suite(dir, "base", "cost = 500\n"), fixture_path_flag, "--update-baseline"})
          .code == 0);
  storh::test::write_text(
      dir / "broken.toml",
      "datasets = [100]\n[engines.misbehave.params]\nbehaviour = \"fail\"\n[gate]\nbaseline = \"" +
          (dir / "baseline.json").string() + "\"\n");
  const auto run = cli({"ci", (dir / "broken.toml").string(), fixture_path_flag,
                        "--output=" + (dir / "broken.json").string()});
  CHECK(run.code == 3);
  CHECK(contains(run.err, "not gating"));
}

TEST_CASE("ci: bad gate settings are bad input", "[cli][ci]") {
  ScratchDir dir;
  storh::test::write_text(dir / "s.toml", "[engines.misbehave]\n");
  auto run = cli({"ci", (dir / "s.toml").string(), fixture_path_flag});
  CHECK(run.code == 2);
  CHECK(contains(run.err, "has no [gate] baseline"));
  run = cli({"ci", write_suite(dir, "a", "cost = 500\n"), fixture_path_flag, "--confirm=many"});
  CHECK(run.code == 2);
  CHECK(contains(run.err, "--confirm: expected a whole number from 0 to 100"));
}

TEST_CASE("ci: a run narrowed to some operations is gated on what it ran", "[cli][ci]") {
  // Regression: `ci --operation=...` reported every other baseline metric "missing in
  // current" and failed.
  ScratchDir dir;
  const auto file = dir / "two.toml";
  storh::test::write_text(
      file, "datasets = [20000]\nrepeat = 3\noutput = \"" + (dir / "two.json").string() +
                "\"\n[engines.misbehave]\noperations = [\"first\", \"second\"]\n"
                "[engines.misbehave.params]\ncost = 500\n[gate]\nbaseline = \"" +
                (dir / "baseline.json").string() + "\"\nthreshold = 100\n");
  REQUIRE(cli({"ci", file.string(), fixture_path_flag, "--update-baseline"}).code == 0);
  const auto run = cli({"ci", file.string(), fixture_path_flag, "--operation=first"});
  INFO(run.out << run.err);
  CHECK(run.code == 0);
  CHECK_FALSE(contains(run.out + run.err, "missing"));
  CHECK(contains(run.out + run.err,
                 "1 baseline metric(s) of engines or operations this run did not select are not "
                 "gated"));
}
