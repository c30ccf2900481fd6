// Engine::preflight through the command line: one child per engine describes the plugin
// and answers each parameter combination of the plan (plugin/session.h), so what the
// plugin says, or how it fails, reaches the user before any cell runs.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "process/child_process.h"
#include "test_support.h"

using storh::test::cli;
using storh::test::contains;
using storh::test::fixture_path_flag;
using storh::test::ScratchDir;

namespace {

// `run` of the misbehave fixture with its `preflight` parameter set to each of `values`
// (one cell per value), into `dir`.
storh::test::CliResult run_with_preflight(const ScratchDir& dir, const std::string& values) {
  return cli({"run", "--engine=misbehave", "--operation=first", "--dataset=10", "--repeat=1",
              fixture_path_flag, "--set", "misbehave.preflight=" + values,
              "--output=" + (dir / "out.json").string(), "--work-dir=" + dir.path().string()});
}

}  // namespace

TEST_CASE("preflight: every combination is asked of one child, and accepted cells run",
          "[cli][preflight]") {
  ScratchDir dir;
  // Two combinations, "ok" and "stdout": a plugin printing on stdout must not break the
  // child's answers, which have stdout to themselves.
  const auto run = run_with_preflight(dir, "ok,stdout");
  INFO(run.out << run.err);
  CHECK(run.code == 0);
  const auto result = storh::test::read_json(dir / "out.json");
  CHECK(result["metrics"].size() == 2);
  CHECK_FALSE(contains(run.err, "unreadable answer"));
}

TEST_CASE("preflight: a note is said once, and other lines the plugin writes are not",
          "[cli][preflight]") {
  ScratchDir dir;
  const auto run = run_with_preflight(dir, "note");
  INFO(run.out << run.err);
  CHECK(run.code == 0);
  CHECK(contains(run.err, "storh-host: misbehave: misbehave found a leftover of an earlier run"));
  CHECK_FALSE(contains(run.err, "checking the machine"));
}

TEST_CASE("preflight: a refusal is bad input before any cell runs, with the plugin's words",
          "[cli][preflight]") {
  ScratchDir dir;
  const auto run = run_with_preflight(dir, "ok,refuse");
  INFO(run.out << run.err);
  CHECK(run.code == 2);
  CHECK(contains(run.err, "misbehave: this machine cannot run it"));
  CHECK_FALSE(std::filesystem::exists(dir / "out.json"));
}

TEST_CASE("preflight: a plugin that crashes in preflight is bad input, naming the signal",
          "[cli][preflight]") {
  ScratchDir dir;
  const auto run = run_with_preflight(dir, "crash");
  INFO(run.out << run.err);
  CHECK(run.code == 2);
  CHECK(contains(run.err, "crashed with signal 11 (Segmentation fault) in preflight"));
  CHECK_FALSE(std::filesystem::exists(dir / "out.json"));
}

TEST_CASE("preflight: after a crash, the later combinations say they were not checked",
          "[cli][preflight]") {
  ScratchDir dir;
  const auto run = run_with_preflight(dir, "crash,ok");
  INFO(run.out << run.err);
  CHECK(run.code == 2);
  CHECK(contains(run.err, "crashed with signal 11 (Segmentation fault) in preflight"));
  CHECK(contains(run.err,
                 "not checked: the preflight child ended on an earlier parameter combination"));
}

TEST_CASE("preflight: a plugin that exits in preflight is reported with its last words",
          "[cli][preflight]") {
  ScratchDir dir;
  const auto run = run_with_preflight(dir, "exit");
  INFO(run.out << run.err);
  CHECK(run.code == 2);
  // Its stderr was being captured for notes; the last words still reach the report.
  CHECK(contains(run.err, "misbehave: giving up in preflight"));
}

TEST_CASE("preflight: a plugin reading stdin finds it at its end, not the host's requests",
          "[cli][preflight]") {
  ScratchDir dir;
  const auto run = run_with_preflight(dir, "stdin,ok");
  INFO(run.out << run.err);
  CHECK(run.code == 0);
  CHECK_FALSE(contains(run.err, "from stdin"));
}

namespace {

// The failure message of a run of the misbehave fixture whose `second` operation fails
// naming the command its process was started with (behaviour "origin"), by the
// storh-host program in a process of its own (as a user runs it): it forks its session
// children only when they would run its own code.
std::string origin_of_worker(const std::string& preflight) {
  ScratchDir dir;
  storh::process::ProcessOptions host;
  host.argv = {STORH_TEST_HOST,
               "run",
               "--engine=misbehave",
               "--operation=second",
               "--dataset=10",
               "--repeat=2",
               fixture_path_flag,
               "--set",
               "misbehave.behaviour=origin",
               "--set",
               "misbehave.preflight=" + preflight,
               "--no-fail-fast",
               "--output=" + (dir / "out.json").string(),
               "--work-dir=" + dir.path().string()};
  host.capture_stdout = true;
  host.timeout_seconds = 120;
  const storh::process::ProcessOutcome run = storh::process::run_process(host);
  INFO(run.stdout_text << run.stderr_tail);
  CHECK(run.exit_code == 3);  // every run failed, as the behaviour makes it
  const auto result = storh::test::read_json(dir / "out.json");
  REQUIRE(result["failures"].size() == 2);
  // Each repeat is a process of its own, both started the same way.
  CHECK(result["failures"][0]["message"] == result["failures"][1]["message"]);
  return result["failures"][0]["message"].get<std::string>();
}

}  // namespace

TEST_CASE("fork: each repeat's worker is forked from the plugin's session child",
          "[cli][preflight][fork]") {
  // Not started with exec: its command line is that of the session child, itself a
  // copy of the host (`storh-host run ...`).
  CHECK(origin_of_worker("ok") == "second: this process was started as run");
}

TEST_CASE("fork: a session child running threads is not forked, and workers start with exec",
          "[cli][preflight][fork]") {
  CHECK(origin_of_worker("thread") == "second: this process was started as __worker");
}

TEST_CASE("fork: a session child that is a child subreaper is not forked from",
          "[cli][preflight][fork]") {
  // Its forked workers would be adopted by it, not by the host: it refuses, and the
  // host starts each worker with exec.
  CHECK(origin_of_worker("subreaper") == "second: this process was started as __worker");
}

TEST_CASE("fork: a session child of another program is started with exec, and forks workers",
          "[cli][preflight][fork]") {
  // In this test program the host is not storh-host itself: the session child is
  // `storh-host __describe`, and the workers are forked from it.
  ScratchDir dir;
  const auto run =
      cli({"run", "--engine=misbehave", "--operation=second", "--dataset=10", "--repeat=1",
           fixture_path_flag, "--set", "misbehave.behaviour=origin",
           "--output=" + (dir / "out.json").string(), "--work-dir=" + dir.path().string()});
  INFO(run.out << run.err);
  const auto result = storh::test::read_json(dir / "out.json");
  REQUIRE(result["failures"].size() == 1);
  CHECK(result["failures"][0]["message"] == "second: this process was started as __describe");
}
