// The progress line of a run on a terminal: run k of N, the cell, the operation being
// timed and an ETA; nothing when stderr is not a terminal or under CI.
#include <sstream>

#include <catch2/catch.hpp>

#include "cli/cli.h"
#include "run/progress_line.h"
#include "test_support.h"

using storh::test::contains;
using storh::test::ScratchDir;

TEST_CASE("progress: eta text", "[progress]") {
  using storh::run::eta_text;
  CHECK(eta_text(std::nullopt).empty());
  CHECK(eta_text(30.0) == "eta 30s");
  CHECK(eta_text(90.0) == "eta 1m30s");
  CHECK(eta_text(7200.0) == "eta 2h00m");
  CHECK(eta_text(61.4) == "eta 1m01s");
}

TEST_CASE("progress: the eta weighs cells by what the plan knows until they are timed",
          "[progress]") {
  using storh::run::cell_units;
  using storh::run::EtaEstimate;
  CHECK(cell_units(9, 1000, 1000) == 10.0);
  CHECK(cell_units(2, 10000, 1000) == 21.0);
  CHECK(cell_units(3, 0, 0) == 4.0);

  // Regression: the first cell, with 9 operations, took 4 s; the pace of one run
  // per run put the other four cells (1 operation each) at 4 s each too.
  EtaEstimate eta({10, 2, 2, 2, 2}, {2, 2, 2, 2, 2});
  CHECK_FALSE(eta.seconds_left());  // no pace before the first run finished
  eta.finished(0, 4.0);
  // Cell 0's second run at its own 4 s; the 8 runs of the others at 2 units x 0.4 s.
  REQUIRE(eta.seconds_left());
  CHECK(*eta.seconds_left() == Approx(4.0 + 8 * 0.8));
  // A timed cell takes its own mean: cell 1 turned out to take 2 s a run.
  eta.finished(1, 2.0);
  CHECK(*eta.seconds_left() == Approx(4.0 + 2.0 + 6 * 2 * (6.0 / 12.0)));
  eta.dropped(0);  // skipped after a failure: no time for it
  CHECK(*eta.seconds_left() == Approx(2.0 + 6 * 2 * (6.0 / 12.0)));
  for (std::size_t c = 1; c < 5; ++c) {
    for (int r = 0; r < 2; ++r) eta.finished(c, 1.0);
  }
  CHECK_FALSE(eta.seconds_left());  // nothing left
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

TEST_CASE("progress: the cells of a matrix show their parameter values", "[progress][cli]") {
  // Regression: "[1/2] misbehave n=100 repeat 1" and "[2/2] misbehave n=100 repeat 1"
  // looked the same.
  ScratchDir dir;
  std::ostringstream out, err;
  const storh::cli::CliEnvironment environment{STORH_TEST_HOST, true};
  const int code = storh::cli::run_cli(
      {std::string(STORH_TEST_SOURCE_DIR) + "/tests/fixtures/suites/containment.toml",
       std::string("--plugin-path=") + STORH_TEST_FIXTURE_DIR, "--set=misbehave.behaviour=ok",
       "--set=misbehave.cost=1,2", "--repeat=1", "--output=" + (dir / "r.json").string()},
      out, err, environment);
  INFO(err.str());
  REQUIRE(code == 0);
  CHECK(contains(err.str(), "[1/2] misbehave n=100 cost=1 repeat 1"));
  CHECK(contains(err.str(), "[2/2] misbehave n=100 cost=2 repeat 1"));
}
