// Fail-fast end to end: a cell that fails the same way every time runs once, its
// other repeats are recorded as skipped; --no-fail-fast runs them all.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "test_support.h"

using storh::test::cli;
using storh::test::contains;
using storh::test::ScratchDir;

namespace {

using storh::test::fixture_path_flag;

std::vector<std::string> kinds(const std::filesystem::path& output) {
  const auto result = nlohmann::json::parse(storh::test::read_text(output));
  std::vector<std::string> found;
  for (const auto& f : result["failures"]) found.push_back(f["kind"].get<std::string>());
  return found;
}

storh::test::CliResult run_misbehave(const ScratchDir& dir, const std::string& behaviour,
                                     std::vector<std::string> extra) {
  std::vector<std::string> args = {"run",
                                   "--engine=misbehave",
                                   "--dataset=10",
                                   "--repeat=3",
                                   "--timeout=1s",
                                   fixture_path_flag,
                                   "--set",
                                   "misbehave.behaviour=" + behaviour,
                                   "--output=" + (dir / "r.json").string(),
                                   "--work-dir=" + (dir / "work").string()};
  args.insert(args.end(), extra.begin(), extra.end());
  return cli(args);
}

}  // namespace

TEST_CASE("cli fail-fast: a wrong answer is not repeated, the skipped repeats are recorded",
          "[cli][fail-fast]") {
  // Regression: a cell that failed every time ran (and for a hang, timed out) on every
  // repeat.
  ScratchDir dir;
  const auto run = run_misbehave(dir, "fail", {});
  INFO(run.out << run.err);
  CHECK(run.code == 3);
  CHECK(kinds(dir / "r.json") == std::vector<std::string>{"failed", "skipped", "skipped"});
  CHECK(contains(run.err, "storh-host: misbehave n=10 behaviour=fail: repeat 1 failed (failed: "));
  CHECK(contains(run.err, "skipping its 2 remaining run(s) (--no-fail-fast runs them)"));
}

TEST_CASE("cli fail-fast: a timeout stops the cell after its first repeat", "[cli][fail-fast]") {
  ScratchDir dir;
  const auto run = run_misbehave(dir, "hang", {});
  INFO(run.out << run.err);
  CHECK(run.code == 3);
  CHECK(kinds(dir / "r.json") == std::vector<std::string>{"timeout", "skipped", "skipped"});
}

TEST_CASE("cli fail-fast: --no-fail-fast runs every repeat", "[cli][fail-fast]") {
  ScratchDir dir;
  const auto run = run_misbehave(dir, "fail", {"--no-fail-fast"});
  INFO(run.out << run.err);
  CHECK(run.code == 3);
  CHECK(kinds(dir / "r.json") == std::vector<std::string>{"failed", "failed", "failed"});
  CHECK_FALSE(contains(run.err, "skipping"));
}
