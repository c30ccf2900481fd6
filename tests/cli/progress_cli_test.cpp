// The progress line of a run on a terminal: run k of N, the cell, the operation being
// timed and an ETA; nothing when stderr is not a terminal or under CI.
#include <sstream>

#include <catch2/catch.hpp>

#include "cli/cli.h"
#include "run/progress_line.h"
#include "test_support.h"

using storh::test::contains;
using storh::test::ScratchDir;

TEST_CASE("progress: the eta is the remaining runs at the pace of those done", "[progress]") {
  using storh::run::eta_text;
  CHECK(eta_text(10, 0, 4).empty());  // no pace before the first run finished
  CHECK(eta_text(10, 4, 4).empty());  // nothing left
  CHECK(eta_text(10, 1, 4) == "eta 30s");
  CHECK(eta_text(30, 1, 4) == "eta 1m30s");
  CHECK(eta_text(3600, 1, 3) == "eta 2h00m");
  CHECK(eta_text(61.4, 1, 2) == "eta 1m01s");
}

TEST_CASE("progress: drawn on a terminal, never under CI", "[progress]") {
  using storh::cli::draws_progress;
  CHECK(draws_progress(true, nullptr));
  CHECK(draws_progress(true, ""));
  CHECK(draws_progress(true, "false"));
  CHECK(draws_progress(true, "0"));
  CHECK_FALSE(draws_progress(true, "true"));
  CHECK_FALSE(draws_progress(true, "1"));
  CHECK_FALSE(draws_progress(false, nullptr));
}

TEST_CASE("progress: a run on a terminal shows each run, its operation and an eta",
          "[progress][cli]") {
  ScratchDir dir;
  const std::vector<std::string> args = {
      std::string(STORH_TEST_SOURCE_DIR) + "/tests/fixtures/suites/containment.toml",
      std::string("--plugin-path=") + STORH_TEST_FIXTURE_DIR, "--set=misbehave.behaviour=ok",
      "--repeat=3", "--output=" + (dir / "r.json").string()};
  auto run = [&](bool terminal) {
    std::ostringstream out, err;
    const storh::cli::CliEnvironment environment{STORH_TEST_HOST, terminal};
    const int code = storh::cli::run_cli(args, out, err, environment);
    REQUIRE(code == 0);
    return err.str();
  };
  const std::string drawn = run(true);
  CHECK(contains(drawn, "\r\033[K[1/3] misbehave n=100 repeat 1"));
  CHECK(contains(drawn, "[3/3] misbehave n=100 repeat 3"));
  CHECK(contains(drawn, "repeat 1: first"));  // the operation the worker is timing
  CHECK(contains(drawn, "repeat 1: second"));
  CHECK(contains(drawn, "  eta "));  // from the second run on
  const std::string quiet = run(false);
  CHECK_FALSE(contains(quiet, "\r"));
  CHECK_FALSE(contains(quiet, "[1/3]"));
}
