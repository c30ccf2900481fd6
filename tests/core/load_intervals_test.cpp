// The interval series of a load phase (load/intervals.h): per-client buckets, their
// merging over clients and adjacent intervals, and the columns of the result.
#include <catch2/catch.hpp>

#include "load/intervals.h"
#include "result/json.h"
#include "suite_test_util.h"

using storh::load::IntervalSeries;
using storh::load::TransactionMark;

namespace {

constexpr std::int64_t kSecond = 1'000'000'000;

TransactionMark ok(std::int64_t latency_ns) {
  TransactionMark mark;
  mark.latency_ns = latency_ns;
  return mark;
}

TransactionMark failed() {
  TransactionMark mark;
  mark.ok = false;
  return mark;
}

}  // namespace

TEST_CASE("load intervals: transactions fall in the interval of their end", "[load][intervals]") {
  IntervalSeries series(kSecond);
  series.record(kSecond / 2, ok(1000));
  series.record(kSecond - 1, ok(3000));
  series.record(kSecond, failed());
  series.record(3 * kSecond + 5, ok(2000));
  series.finish();
  const auto c = series.columns(false);
  REQUIRE(c.size() == 4);
  CHECK(c.seconds == 1.0);
  CHECK(c.transactions == std::vector<std::uint64_t>{2, 0, 0, 1});
  CHECK(c.failed == std::vector<std::uint64_t>{0, 1, 0, 0});
  CHECK(c.latency_max[0] == Approx(3e-6));
  CHECK(c.latency_mean[0] == Approx(2e-6));
  CHECK(c.lag_mean.empty());
}

TEST_CASE("load intervals: merging clients adds their buckets interval by interval",
          "[load][intervals]") {
  IntervalSeries a(kSecond), b(kSecond);
  for (int i = 0; i < 10; ++i) a.record(i * kSecond / 10, ok(1000));
  for (int i = 0; i < 5; ++i) b.record(kSecond + i, ok(5000));
  b.record(2 * kSecond, failed());
  a.finish();
  b.finish();
  a.merge(b);
  const auto c = a.columns(false);
  REQUIRE(c.size() == 3);
  CHECK(c.transactions == std::vector<std::uint64_t>{10, 5, 0});
  CHECK(c.failed == std::vector<std::uint64_t>{0, 0, 1});
  CHECK(c.latency_p50[1] == Approx(5e-6));
}

TEST_CASE("load intervals: a long run merges adjacent intervals and keeps every transaction",
          "[load][intervals]") {
  IntervalSeries series(kSecond);
  const auto n = static_cast<std::int64_t>(IntervalSeries::kMaxIntervals) * 3;
  for (std::int64_t i = 0; i < n; ++i) series.record(i * kSecond, ok(1000 + i));
  series.finish();
  const auto c = series.columns(false);
  CHECK(c.size() <= IntervalSeries::kMaxIntervals);
  CHECK(c.seconds == 4.0);  // doubled twice: 900 one-second intervals do not fit in 300
  std::uint64_t total = 0;
  for (std::uint64_t t : c.transactions) total += t;
  CHECK(total == static_cast<std::uint64_t>(n));
  CHECK(c.transactions[0] == 4);
}

TEST_CASE("load intervals: series of different widths merge at the wider one",
          "[load][intervals]") {
  IntervalSeries narrow(kSecond), wide(kSecond);
  narrow.record(kSecond, ok(1000));
  const auto n = static_cast<std::int64_t>(IntervalSeries::kMaxIntervals) + 1;
  for (std::int64_t i = 0; i < n; ++i) wide.record(i * kSecond, ok(1000));
  narrow.finish();
  wide.finish();
  narrow.merge(wide);
  CHECK(narrow.width_ns() == 2 * kSecond);
  const auto c = narrow.columns(false);
  CHECK(c.transactions[0] == 3);  // wide's 0 s and 1 s, narrow's 1 s
}

TEST_CASE("load intervals: lag, late, skipped and retries are counted per interval",
          "[load][intervals]") {
  IntervalSeries series(kSecond);
  TransactionMark late = ok(2000);
  late.late = true;
  late.lag_ns = 400;
  late.retries = 2;
  TransactionMark on_time = ok(1000);
  on_time.lag_ns = 200;
  TransactionMark skipped;
  skipped.skipped = true;
  series.record(0, late);
  series.record(1, on_time);
  series.record(2, skipped);
  series.finish();
  const auto c = series.columns(true);
  CHECK(c.late == std::vector<std::uint64_t>{1});
  CHECK(c.skipped == std::vector<std::uint64_t>{1});
  CHECK(c.retries == std::vector<std::uint64_t>{2});
  CHECK(c.transactions == std::vector<std::uint64_t>{2});
  CHECK(c.lag_mean[0] == Approx(300e-9));
  CHECK(c.lag_max[0] == Approx(400e-9));
}

TEST_CASE("load intervals: a series travels as JSON unchanged", "[load][intervals]") {
  IntervalSeries series(kSecond / 2);
  series.record(0, ok(1500));
  series.record(kSecond, failed());
  series.finish();
  const nlohmann::json sent = series.to_json();
  CHECK(IntervalSeries::read(storh::JsonNode(sent, "")).columns(true) == series.columns(true));
  const nlohmann::json written = storh::result::load_intervals_json(series.columns(true));
  CHECK(storh::result::read_load_intervals(storh::JsonNode(written, "")) == series.columns(true));
}

TEST_CASE("load intervals: a column of another length is refused at its JSON path",
          "[load][intervals]") {
  IntervalSeries series(kSecond);
  series.record(0, ok(1500));
  series.record(kSecond, ok(1500));
  series.finish();
  nlohmann::json written = storh::result::load_intervals_json(series.columns(false));
  const std::size_t n = written["transactions"].size();
  REQUIRE(n == 2);
  written["failed"].push_back(0);
  try {
    storh::result::read_load_intervals(storh::JsonNode(written, "/intervals"));
    FAIL("a column of 3 values against 2 transactions was read");
  } catch (const storh::BadJsonValue& bad) {
    CHECK(bad.message == "/intervals/failed: has 3 values, not 2 (as transactions)");
  }
  written["failed"] = {0, "1"};
  try {
    storh::result::read_load_intervals(storh::JsonNode(written, "/intervals"));
    FAIL("a string in a count column was read");
  } catch (const storh::BadJsonValue& bad) {
    CHECK(bad.message == "/intervals/failed/1: expected a whole number >= 0, got string");
  }
}

TEST_CASE("load intervals: interval and latency_limit are read from [load] and the flags",
          "[load][intervals][suite]") {
  using storh::suite::testing::parse_ok;
  auto suite = parse_ok(R"(
[load]
transactions = 10
interval = "5s"
latency_limit = "10ms"

[engines.doc]
)");
  REQUIRE(suite.load.has_value());
  CHECK(suite.load->interval_seconds == 5.0);
  CHECK(suite.load->latency_limit == Approx(0.01));

  storh::suite::Overrides flags;
  flags.interval = "250ms";
  flags.latency_limit = "none";
  std::vector<storh::suite::SuiteError> errors;
  REQUIRE(storh::suite::apply_overrides(suite, flags, errors));
  CHECK(suite.load->interval_seconds == 0.25);
  CHECK_FALSE(suite.load->latency_limit.has_value());
  CHECK(suite.load->transactions.size() == 1);  // the pacing flags keep the matrix

  storh::suite::testing::suite_should_fail(R"(
[load]
transactions = 10
interval = "0s"
[engines.doc]
)",
                                           "3:12", "a duration > 0");
}

TEST_CASE("load intervals: a client that ran nothing does not change the merged width",
          "[load][intervals]") {
  // Regression: an empty series of the default 1 s width merged into a 5 s one made
  // the two coarsen past each other without end.
  IntervalSeries ran(5 * kSecond), idle;
  ran.record(kSecond, ok(1000));
  ran.finish();
  ran.merge(idle);
  CHECK(ran.width_ns() == 5 * kSecond);
  idle.merge(ran);
  CHECK(idle.width_ns() == 5 * kSecond);
  CHECK(idle.columns(false).transactions == std::vector<std::uint64_t>{1});
}
