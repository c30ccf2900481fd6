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

TEST_CASE("ab: a 10x slower head is a regression; the file pairs both sides ABBA", "[cli][ab]") {
  ScratchDir dir;
  const auto run =
      cli({"ab", write_suite(dir), fixture_path_flag, "--head-set", "misbehave.cost=5000"});
  INFO(run.out << run.err);
  CHECK(run.code == 1);
  CHECK(contains(run.out, "misbehave.first"));
  CHECK(contains(run.out, "REGRESSION FAIL"));
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
  CHECK(contains(page, "\"verdict\":[\"slower\"]"));
  CHECK(contains(page, "<td>REGRESSION FAIL</td>"));
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

TEST_CASE("ci --base runs the A/B mode with the suite's [gate.ab] settings", "[cli][ab][ci]") {
  ScratchDir dir;
  const auto run = cli({"ci", write_suite(dir), fixture_path_flag, "--base=" + fixture_dir});
  INFO(run.out << run.err);
  CHECK(run.code == 0);
  CHECK(contains(run.out, "8 pair(s) per cell"));
  CHECK(contains(run.out, "A/B gate passed"));
}

TEST_CASE("calibrate writes each metric's noise, and ab reads it", "[cli][ab][calibrate]") {
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
             "--calibration=" + calibration});
  INFO(run.out << run.err);
  CHECK(run.code == 0);
  run = cli({"ab", suite, fixture_path_flag, "--head-set", "misbehave.cost=500",
             "--calibration=" + (dir / "missing.json").string()});
  CHECK(run.code == 2);
  CHECK(contains(run.err, "storh-host calibrate SUITE"));
}
