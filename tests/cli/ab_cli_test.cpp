// `storh-host ab`, `calibrate`, `ci --base` and `gate AB.json` end to end with the
// misbehave fixture, whose `cost` parameter sets its speed (busy-waiting; 10x apart
// is a regression no machine noise explains). Thresholds are wide (100%) so verdicts
// do not depend on how loaded the machine is: these tests check the plumbing, the
// statistics are tested with fixed samples in tests/core/ab_test.cpp.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "test_support.h"

using storh::test::cli;
using storh::test::contains;
using storh::test::ScratchDir;

namespace {

const std::string fixture_dir = STORH_TEST_FIXTURE_DIR;
using storh::test::fixture_path_flag;

std::string write_suite(const ScratchDir& dir) {
  const auto file = dir / "ab.toml";
  storh::test::write_text(file, "datasets = [20000]\nrepeat = 8\noutput = \"" +
                                    (dir / "ab.json").string() +
                                    "\"\n[engines.misbehave]\noperations = [\"first\"]\n"
                                    "[engines.misbehave.params]\ncost = 500\n"
                                    "[gate]\nbaseline = \"none.json\"\n[gate.ab]\nthreshold = 100\n"
                                    "pairs = 8\n");
  return file.string();
}

using storh::test::read_json;

}  // namespace

TEST_CASE("ab: a 10x slower head is a regression, the file pairs both sides ABBA", "[cli][ab]") {
  ScratchDir dir;
  const auto run =
      cli({"ab", write_suite(dir), fixture_path_flag, "--head-set", "misbehave.cost=5000"});
  INFO(run.out << run.err);
  CHECK(run.code == 1);
  CHECK(contains(run.out, "misbehave.first"));
  CHECK(contains(run.out, "REGRESSION confirmed FAIL"));
  CHECK(contains(run.err, "A/B gate failed: 1 of 1 metric(s) regressed."));
  // The change column is the paired estimate, and the table says why it can disagree
  // with the medians beside it.
  CHECK(contains(run.out, "base median"));
  CHECK(contains(run.out, "paired change"));
  CHECK(contains(run.out, "so it can differ from the ratio of the two medians, even in sign"));
  const auto file = read_json(dir / "ab-ab.json");
  CHECK(file["schema_version"] == 1);
  CHECK(file["ab"]["pairs"] == 8);
  CHECK(file["ab"]["order"] == "abba");
  CHECK(file["ab"]["head_setup"]["sets"][0] == "misbehave.cost=5000");
  const auto& pairs = file["ab"]["metrics"][0]["pairs"];
  REQUIRE(pairs.size() == 8);
  CHECK(pairs[0]["first"] == "base");
  CHECK(pairs[1]["first"] == "head");
  CHECK(file["ab"]["base"]["metrics"][0]["samples"].size() == 8);
  CHECK(file["metrics"][0]["samples"].size() == 8);

  // The written file is judged again by gate and shown by compare.
  auto again = cli({"gate", (dir / "ab-ab.json").string()});
  CHECK(again.code == 1);
  again = cli({"gate", (dir / "ab-ab.json").string(), "--threshold=2000"});
  INFO(again.out << again.err);
  CHECK(again.code == 0);
  CHECK(contains(again.out, "A/B gate passed"));
  again = cli({"compare", (dir / "ab-ab.json").string(), "--format=md"});
  CHECK(again.code == 0);
  CHECK(contains(again.out, "| `misbehave.first` |"));
  // The HTML page: ratio bars on their intervals, the table; the verdict on stderr.
  again = cli({"compare", (dir / "ab-ab.json").string(), "--format=html", "-o",
               (dir / "ab.html").string()});
  INFO(again.out << again.err);
  CHECK(again.code == 0);
  CHECK(contains(again.err, "A/B gate failed: 1 of 1 metric(s) regressed."));
  const std::string page = storh::test::read_text(dir / "ab.html");
  CHECK(page.starts_with("<!DOCTYPE html>"));
  CHECK(contains(page, "\"kind\":\"ratios\""));
  // The metric's bar and its confirmation set's, both slower.
  CHECK(contains(page, "\"verdict\":[\"slower\",\"slower\"]"));
  CHECK(contains(page, "<td>REGRESSION confirmed FAIL</td>"));
}

TEST_CASE("ab --format=html: the page on stdout, the result path on stderr", "[cli][ab]") {
  ScratchDir dir;
  const auto run = cli({"ab", write_suite(dir), fixture_path_flag, "--head-set",
                        "misbehave.cost=500", "--format=html"});
  INFO(run.err);
  CHECK(run.code == 0);
  CHECK(run.out.starts_with("<!DOCTYPE html>"));
  CHECK(contains(run.err, "result: "));
  CHECK(contains(run.err, "A/B gate passed"));
  CHECK(cli({"calibrate", write_suite(dir), fixture_path_flag, "--format=html"}).code == 2);
}

TEST_CASE("ab: equal sides pass, and the random order is recorded", "[cli][ab]") {
  ScratchDir dir;
  const auto run = cli({"ab", write_suite(dir), fixture_path_flag, "--head-set",
                        "misbehave.cost=500", "--order=random", "--seed=7", "--format=json"});
  INFO(run.out << run.err);
  CHECK(run.code == 0);
  const auto verdict = nlohmann::json::parse(run.out.substr(0, run.out.rfind("A/B gate")));
  CHECK(verdict["passed"] == true);
  CHECK(verdict["checks"][0]["pairs"] == 8);
  CHECK(read_json(dir / "ab-ab.json")["ab"]["seed"] == 7);
}

TEST_CASE("ab: bad input is exit 2 with what is wrong", "[cli][ab]") {
  ScratchDir dir;
  const std::string suite = write_suite(dir);
  auto run = cli({"ab", suite, fixture_path_flag});
  CHECK(run.code == 2);
  CHECK(contains(run.err, "nothing tells the sides apart"));
  run = cli({"ab", suite, fixture_path_flag, "--base=" + dir.path().string()});
  CHECK(run.code == 2);
  CHECK(contains(run.err, "has no storh_misbehave.so"));
  run = cli({"ab", suite, fixture_path_flag, "--base=" + fixture_dir, "--order=zigzag"});
  CHECK(run.code == 2);
  CHECK(contains(run.err, "--order: unknown order \"zigzag\" (valid: abba, random)"));
  run = cli({"ab", suite, fixture_path_flag, "--base=" + fixture_dir, "--pairs=0"});
  CHECK(run.code == 2);
  CHECK(contains(run.err, "--pairs: expected a whole number from 1 to 1000"));
  storh::test::write_text(dir / "not-ab.json", "{\"ab\": {}}");
  run = cli({"gate", (dir / "not-ab.json").string()});
  CHECK(run.code == 2);
}

TEST_CASE("ab: a --counter without a name is refused as gate refuses it", "[cli][ab]") {
  // Regression: ab read --counter==5 as a tolerance for a counter named "", where gate
  // refused it.
  ScratchDir dir;
  const std::string refusal = "--counter: expected NAME=PCT such as fsync=0, got \"=5\"";
  const auto ab =
      cli({"ab", write_suite(dir), fixture_path_flag, "--base=" + fixture_dir, "--counter==5"});
  CHECK(ab.code == 2);
  CHECK(contains(ab.err, refusal));
  const auto gate = cli({"gate", "base.json", "head.json", "--counter==5"});
  CHECK(gate.code == 2);
  CHECK(contains(gate.err, refusal));
}

TEST_CASE("ci --base runs the A/B mode with the suite's [gate.ab] settings", "[cli][ab][ci]") {
  ScratchDir dir;
  const auto run = cli({"ci", write_suite(dir), fixture_path_flag, "--base=" + fixture_dir});
  INFO(run.out << run.err);
  CHECK(run.code == 0);
  CHECK(contains(run.out, "8 pair(s) per cell"));
  CHECK(contains(run.out, "A/B gate passed"));

  const auto bad = cli(
      {"ci", write_suite(dir), fixture_path_flag, "--base=" + fixture_dir, "--confirm-pairs=0"});
  CHECK(bad.code == 2);
  CHECK(contains(bad.err, "--confirm-pairs: expected a whole number from 1 to 1000, got \"0\""));
}

TEST_CASE("calibrate writes each metric's noise and its machine, and ab applies it only there",
          "[cli][ab][calibrate]") {
  ScratchDir dir;
  const std::string suite = write_suite(dir);
  const std::string calibration = (dir / "noise.json").string();
  auto run =
      cli({"calibrate", suite, fixture_path_flag, "--pairs=8", "--calibration=" + calibration});
  INFO(run.out << run.err);
  REQUIRE(run.code == 0);
  CHECK(contains(run.out, "calibration of suite \"ab\" (8 A/A pairs per cell"));
  const auto file = read_json(calibration);
  CHECK(file["format"] == "storh-calibration");
  CHECK(file["metrics"][0]["key"] == "misbehave.first");
  CHECK(file["metrics"][0]["pairs"] == 8);
  // Its product is the calibration: no A/A result file unless --output asks for one.
  CHECK_FALSE(std::filesystem::exists(dir / "ab-aa.json"));
  CHECK_FALSE(std::filesystem::exists(dir / "ab-ab.json"));
  CHECK_FALSE(contains(run.out, "result: "));

  run = cli({"ab", suite, fixture_path_flag, "--head-set", "misbehave.cost=500",
             "--calibration=" + (dir / "missing.json").string()});
  CHECK(run.code == 2);
  CHECK(contains(run.err, "storh-host calibrate SUITE"));

  nlohmann::json machine = read_json(calibration);
  REQUIRE(machine.contains("environment"));
  const std::string here = machine["environment"]["cpu_model"];
  CHECK(machine["environment"]["cpu_count"].get<unsigned>() > 0);
  // A noise this large makes the calibration decide the threshold wherever it applies.
  machine["metrics"][0]["noise"] = 5.0;
  auto verdict_of = [&](const nlohmann::json& calibration_json, const std::string& name) {
    const std::string path = (dir / name).string();
    storh::test::write_text(path, calibration_json.dump());
    auto ab = cli({"ab", suite, fixture_path_flag, "--head-set", "misbehave.cost=500",
                   "--format=json", "--calibration=" + path});
    INFO(ab.out << ab.err);
    CHECK(ab.code == 0);
    return std::pair{nlohmann::json::parse(ab.out.substr(0, ab.out.rfind("A/B gate"))), ab.err};
  };

  auto [same, same_err] = verdict_of(machine, "same.json");
  CHECK(same["checks"][0]["threshold_from"] == "calibration");
  CHECK_FALSE(contains(same_err, "not applied"));

  machine["environment"]["cpu_model"] = "Another CPU";
  const std::string other = (dir / "other.json").string();
  auto [moved, moved_err] = verdict_of(machine, "other.json");
  CHECK(moved["checks"][0]["threshold_from"] != "calibration");
  const std::string warning =
      "calibration " + other + " was measured on another machine (cpu_model \"Another CPU\" " +
      "there, \"" + here + "\" here): not applied, each metric's threshold comes from this " +
      "run's own paired noise; calibrate this machine with `storh-host calibrate " + suite + " " +
      fixture_path_flag + " --pairs=8 --calibration=" + other + "` (about ";
  CHECK(contains(moved_err, "warning: " + warning));
  REQUIRE(moved["warnings"].size() >= 1);
  CHECK(contains(moved["warnings"].back().get<std::string>(), warning));

  // The stored-baseline gate checks the machine of the current file the same way.
  REQUIRE(cli({"run", suite, fixture_path_flag}).code == 0);
  const std::string stored = (dir / "ab.json").string();
  auto gated = cli({"gate", stored, stored, "--calibration=" + other});
  CHECK(gated.code == 0);
  CHECK(contains(gated.err, "warning: calibration " + other +
                                " was measured on another machine (cpu_model \"Another CPU\" "
                                "there, \"" +
                                here + "\" here): not applied, the configured thresholds apply; " +
                                "calibrate this machine with `storh-host calibrate " + suite +
                                " --pairs=8 --calibration=" + other + "` (about "));
  gated = cli({"gate", stored, stored, "--calibration=" + (dir / "same.json").string()});
  CHECK(gated.code == 0);
  CHECK_FALSE(contains(gated.err, "not applied"));

  machine.erase("environment");  // a calibration written before environments were recorded
  auto [old, old_err] = verdict_of(machine, "old.json");
  CHECK(old["checks"][0]["threshold_from"] != "calibration");
  CHECK(contains(old_err,
                 "records no environment (written before calibrations recorded one), so "
                 "it is from an unknown machine: not applied"));
}

TEST_CASE("ab: a wall-time regression is confirmed by twice as many fresh pairs before it fails",
          "[cli][ab][confirm]") {
  ScratchDir dir;
  const auto run = cli({"ab", write_suite(dir), fixture_path_flag, "--inject-slowdown=9"});
  INFO(run.out << run.err);
  CHECK(run.code == 1);
  CHECK(contains(run.err,
                 "1 metric(s) regressed on wall time alone (misbehave.first); "
                 "confirming with 16 fresh pair(s) of their cell(s)"));
  CHECK(contains(run.out, "REGRESSION confirmed FAIL"));
  CHECK(contains(run.out,
                 "misbehave.first: confirmed: the confirmation set regressed too (16 "
                 "fresh pair(s)"));
  const auto file = read_json(dir / "ab-ab.json");
  CHECK(file["ab"]["metrics"][0]["pairs"].size() == 8);
  REQUIRE(file["ab"]["confirmation"].size() == 1);
  CHECK(file["ab"]["confirmation"][0]["key"] == "misbehave.first");
  CHECK(file["ab"]["confirmation"][0]["pairs"].size() == 16);
  // Every worker run is recorded: 8 pairs, then 16 more.
  CHECK(file["runs"].size() == 24);
  CHECK(file["ab"]["base"]["runs"].size() == 24);
  // Judged again from the file, the confirmation still decides.
  const auto again = cli({"gate", (dir / "ab-ab.json").string(), "--format=md"});
  CHECK(again.code == 1);
  CHECK(contains(again.out, "Confirmation:\n\n- `misbehave.first`: confirmed"));
}

TEST_CASE("ab: a wall-time regression the confirmation set does not reproduce passes",
          "[cli][ab][confirm]") {
  ScratchDir dir;
  // The head's first 8 runs (the first set) are 10x slower, the next 9 are not.
  const auto run = cli({"ab", write_suite(dir), fixture_path_flag, "--head-set",
                        "misbehave.slow_log=" + (dir / "runs.log").string(), "--head-set",
                        "misbehave.slow_runs=8", "--format=md", "--confirm-pairs=9"});
  INFO(run.out << run.err);
  CHECK(run.code == 0);
  CHECK(contains(run.err, "confirming with 9 fresh pair(s)"));
  CHECK(contains(run.out, "| not confirmed |"));
  CHECK(contains(run.out,
                 "- `misbehave.first`: not confirmed: the confirmation set did not "
                 "regress (9 fresh pair(s)"));
  CHECK(contains(run.out, "A/B gate passed: 0 of 1 metric(s) regressed."));
  const auto file = read_json(dir / "ab-ab.json");
  REQUIRE(file["ab"]["confirmation"].size() == 1);
  CHECK(file["ab"]["confirmation"][0]["pairs"].size() == 9);
  CHECK(file["ab"]["metrics"][0]["analysis"]["ratio"].get<double>() > 2);
  CHECK(file["ab"]["confirmation"][0]["analysis"]["ratio"].get<double>() < 2);
}

TEST_CASE("ab: a metric whose counter rose fails at once, without a confirmation set",
          "[cli][ab][confirm][counters]") {
  ScratchDir dir;
  const auto suite = dir / "counted.toml";
  storh::test::write_text(suite,
                          "datasets = [5]\nrepeat = 8\ncounters = [\"syscalls\"]\n"
                          "output = \"" +
                              (dir / "counted.json").string() +
                              "\"\n[engines.syscalls_fixture]\n"
                              "[gate.ab]\nthreshold = 100\npairs = 12\nconfirm_pairs = 8\n");
  // One more fsync per put (a counter rise), and every step 10x slower. 12 pairs, not 8:
  // a put's time is mostly fsync, whose stalls on a busy disk can turn one pair around,
  // and at 8 pairs one turned pair already lifts p above alpha 0.01.
  const auto run = cli({"ab", suite.string(), fixture_path_flag, "--head-set",
                        "syscalls_fixture.fsyncs=3", "--inject-slowdown=9", "--counter=fsync=0"});
  INFO(run.out << run.err);
  CHECK(run.code == 1);
  CHECK(
      contains(run.out, "syscalls_fixture.put fsync/item: base 2 head 3 (tolerance +0.00%) FAIL"));
  CHECK(
      contains(run.out, "syscalls_fixture.put: a counter rose: failed without a confirmation set"));
  const auto file = read_json(dir / "counted-ab.json");
  // Only get, whose counters are equal, needed a confirmation set.
  if (file["ab"].contains("confirmation")) {
    for (const auto& metric : file["ab"]["confirmation"]) {
      CHECK(metric["key"] != "syscalls_fixture.put");
      CHECK(metric["pairs"].size() == 8);  // the suite's confirm_pairs
    }
  }
}

TEST_CASE("ab: a load suite's metrics are paired, and an A/A run passes", "[cli][ab][load]") {
  // Regression: every load metric was reported "missing" (no pairs), so even A/A
  // failed. The queue's transactions, threads, 20 per client, 8 pairs.
  ScratchDir dir;
  const auto output = dir / "aa.json";
  const auto run =
      cli({"ab", std::string(STORH_TEST_SOURCE_DIR) + "/suites/load-rw.toml",
           std::string("--base=") + STORH_TEST_PLUGIN_DIR,
           std::string("--head=") + STORH_TEST_PLUGIN_DIR, "--engine=queue", "--clients=1",
           "--transactions=20", "--pairs=8", "--dataset=100", "--threshold=100",
           "--output=" + output.string(), "--work-dir=" + (dir / "work").string()});
  INFO(run.out << run.err);
  CHECK(run.code == 0);
  CHECK(contains(run.out + run.err, "A/B gate passed: 0 of 1 metric(s) regressed."));
  const auto file = read_json(output);
  REQUIRE(file["ab"]["metrics"].size() == 1);
  CHECK(file["ab"]["metrics"][0]["key"] ==
        "queue.enqueue_claim_complete[clients=1,transactions=20]");
  CHECK(file["ab"]["metrics"][0]["pairs"].size() == 8);
}

TEST_CASE("ab: too few pairs to decide is said before anything runs", "[cli][ab]") {
  // Regression: --pairs=4 ran every pair, then read "4 of 4 metric(s) regressed".
  ScratchDir dir;
  const auto run = cli({"ab", write_suite(dir), fixture_path_flag, "--head-set",
                        "misbehave.cost=5000", "--pairs=4"});
  INFO(run.out << run.err);
  CHECK(run.code == 2);
  CHECK(contains(run.err, "4 pair(s) cannot decide anything at alpha 0.01"));
  CHECK(contains(run.err, "--pairs=8"));
  CHECK_FALSE(std::filesystem::exists(dir / "ab-ab.json"));
}

TEST_CASE("calibrate leaves the suite's committed calibration as it is", "[cli][ab][calibrate]") {
  // Regression: a plain `calibrate SUITE` overwrote the file [gate.ab] calibration names.
  ScratchDir dir;
  const auto suite = dir / "cal.toml";
  storh::test::write_text(suite,
                          "datasets = [20000]\nrepeat = 8\n[engines.misbehave]\n"
                          "operations = [\"first\"]\n[engines.misbehave.params]\ncost = 500\n"
                          "[gate.ab]\ncalibration = \"noise.json\"\n");
  auto run = cli({"calibrate", suite.string(), fixture_path_flag, "--pairs=8"});
  INFO(run.out << run.err);
  REQUIRE(run.code == 0);
  REQUIRE(std::filesystem::exists(dir / "noise.json"));  // the first is written in place
  const std::string committed = storh::test::read_text(dir / "noise.json");
  run = cli({"calibrate", suite.string(), fixture_path_flag, "--pairs=8"});
  REQUIRE(run.code == 0);
  CHECK(storh::test::read_text(dir / "noise.json") == committed);
  CHECK(std::filesystem::exists(dir / "noise.new.json"));
  CHECK(contains(run.err, "exists and was left as it is; to use the new calibration, move"));
}
