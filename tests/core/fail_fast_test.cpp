// Fail-fast: after a failure that repeats would only repeat, a cell's later runs are
// skipped and recorded as "skipped"; other failures and --no-fail-fast run them all.
#include <catch2/catch.hpp>

#include "run/fail_fast.h"
#include "test_support.h"

using storh::run::FailFast;
using storh::test::contains;
using Kind = storh::result::Failure::Kind;

namespace {

storh::plan::Plan two_cells(std::uint32_t repeat, std::uint32_t warmup) {
  storh::plan::Plan plan;
  plan.repeat = repeat;
  plan.warmup = warmup;
  for (const char* engine : {"doc", "log"}) {
    storh::plan::Cell cell;
    cell.engine = engine;
    cell.dataset = 100;
    cell.chosen = {{"mode", storh::ParamValue(std::string("hang"))}};
    cell.params = cell.chosen;
    plan.cells.push_back(cell);
  }
  return plan;
}

storh::result::Failure failure(Kind kind, int repeat) {
  storh::result::Failure f;
  f.engine = "doc";
  f.dataset = 100;
  f.repeat = repeat;
  f.operation = "get";
  f.kind = kind;
  f.message = "worker timed out after 5 s";
  return f;
}

}  // namespace

TEST_CASE("fail-fast: a timeout skips the cell's remaining repeats, not other cells'",
          "[run][fail-fast]") {
  const storh::plan::Plan plan = two_cells(3, 0);
  FailFast fail_fast(plan, true);
  CHECK_FALSE(fail_fast.skip(0, 0).has_value());
  const std::string note = fail_fast.record(0, failure(Kind::timeout, 0));
  CHECK(contains(note, "doc n=100 mode=hang: repeat 1 failed (timeout: worker timed out"));
  CHECK(contains(note, "skipping its 2 remaining run(s) (--no-fail-fast runs them)"));

  const auto skipped = fail_fast.skip(0, 1);
  REQUIRE(skipped.has_value());
  CHECK(skipped->kind == Kind::skipped);
  CHECK(skipped->repeat == 1);
  CHECK(skipped->engine == "doc");
  CHECK(skipped->operation == "get");
  CHECK(contains(skipped->message, "not run: repeat 1 failed (timeout: "));
  CHECK(fail_fast.skip(0, 2).has_value());
  CHECK_FALSE(fail_fast.skip(1, 1).has_value());  // the other cell still runs
}

TEST_CASE("fail-fast: crashes, wrong answers and memory stop a cell, other kinds do not",
          "[run][fail-fast]") {
  const storh::plan::Plan plan = two_cells(3, 0);
  for (const Kind kind : {Kind::crashed, Kind::failed, Kind::memory}) {
    FailFast fail_fast(plan, true);
    CHECK_FALSE(fail_fast.record(0, failure(kind, 0)).empty());
    CHECK(fail_fast.skip(0, 1).has_value());
  }
  for (const Kind kind : {Kind::exit, Kind::load, Kind::interrupted}) {
    FailFast fail_fast(plan, true);
    CHECK(fail_fast.record(0, failure(kind, 0)).empty());
    CHECK_FALSE(fail_fast.skip(0, 1).has_value());
  }
}

TEST_CASE("fail-fast: a failed warm-up skips the rest, the last repeat has nothing to skip",
          "[run][fail-fast]") {
  const storh::plan::Plan plan = two_cells(2, 1);
  FailFast warm(plan, true);
  CHECK(contains(warm.record(0, failure(Kind::crashed, -1)), "warm-up 1 failed"));
  CHECK(warm.record(0, failure(Kind::crashed, -1)).empty());  // one note per cell
  CHECK(warm.skip(0, 0).has_value());
  CHECK(warm.skip(0, 1).has_value());

  FailFast last(plan, true);
  CHECK(last.record(0, failure(Kind::timeout, 1)).empty());
}

TEST_CASE("fail-fast: disabled (--no-fail-fast) it never skips", "[run][fail-fast]") {
  const storh::plan::Plan plan = two_cells(3, 0);
  FailFast fail_fast(plan, false);
  CHECK(fail_fast.record(0, failure(Kind::timeout, 0)).empty());
  CHECK_FALSE(fail_fast.skip(0, 1).has_value());
}
