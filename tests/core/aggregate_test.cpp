// From the workers' samples to metrics: which warnings a run's metrics carry.
#include <catch2/catch.hpp>

#include "run/aggregate.h"
#include "stats/spread.h"
#include "test_support.h"

using storh::test::contains;

namespace {

// One cell of engine "doc" at n=100 with these operations, and its repeats with the
// given seconds per operation (one value per repeat).
struct Scenario {
  storh::plan::Plan plan;
  std::vector<storh::run::CellRuns> runs{1};

  void add(const std::string& operation, const std::vector<double>& seconds) {
    if (plan.cells.empty()) {
      storh::plan::Cell cell;
      cell.engine = "doc";
      cell.dataset = 100;
      plan.cells.push_back(std::move(cell));
    }
    storh::OperationSpec spec;
    spec.name = operation;
    spec.unit = "records";
    plan.cells[0].operations.push_back(spec);
    runs[0].resize(std::max(runs[0].size(), seconds.size()));
    for (std::size_t r = 0; r < seconds.size(); ++r) {
      storh::run::OperationSample sample;
      sample.operation = operation;
      sample.seconds = seconds[r];
      sample.items = 100;
      runs[0][r].samples.push_back(std::move(sample));
    }
  }

  // The run's result file with its metrics aggregated and their spread judged, as the
  // runner writes it.
  storh::result::ResultFile judged_file() const {
    storh::result::ResultFile file;
    file.metrics = storh::run::aggregate_metrics(plan, runs);
    storh::stats::judge_run_spread(file);
    return file;
  }

  std::string warning_of(const std::string& operation) const {
    for (const auto& metric : judged_file().metrics) {
      if (metric.operation == operation) {
        return metric.warnings.empty() ? std::string() : metric.warnings.front();
      }
    }
    FAIL("no metric " << operation);
    return {};
  }
};

}  // namespace

TEST_CASE("aggregate: three steady samples carry no warning", "[run][aggregate]") {
  Scenario s;
  s.add("put", {1.00, 1.01, 0.99});
  CHECK(s.warning_of("put").empty());  // too few for a test: compare's concern, not a run's
}

TEST_CASE("aggregate: a spread is flagged only against its in-run floor's", "[run][aggregate]") {
  Scenario s;
  s.add("put", {1.0, 1.4, 1.0});        // cv 20.4%
  s.add("put_floor", {0.5, 0.7, 0.5});  // as noisy: the machine's I/O, not the engine
  s.add("delete", {1.0, 2.0, 1.0});
  s.add("delete_floor", {0.5, 0.5, 0.51});  // steady: the engine's own work varies
  CHECK(s.warning_of("put").empty());
  const std::string del = s.warning_of("delete");
  CHECK(contains(del,
                 "spread too wide to trust: coefficient of variation 43.3% > 10% and over "
                 "2 times its in-run floor doc.delete_floor's 1.1%, so the engine's own "
                 "work varies"));
  CHECK(contains(del, "narrow it with more repeats (--repeat=10), min_time"));
}

TEST_CASE("aggregate: a spread past 25% is flagged even when its yardstick varies as much",
          "[run][aggregate]") {
  // doc.unindexed_first once varied 50% beside a floor as wide, and had no !: its
  // median could move by half between runs whoever was to blame.
  Scenario s;
  s.add("unindexed_first", {1.0, 2.2, 1.0});  // cv 49.5%
  s.add("scan_floor", {1.0, 2.0, 1.0});       // cv 43.3%: would excuse up to 86.6%
  s.add("put", {1.0, 1.4, 1.0});              // cv 20.4%: within 25%, still excused
  s.add("put_floor", {0.5, 0.7, 0.5});
  CHECK(s.warning_of("put").empty());
  const std::string wide = s.warning_of("unindexed_first");
  CHECK(contains(wide,
                 "spread too wide to trust: coefficient of variation 49.5% > 10% and over 25%, "
                 "which no yardstick excuses (its in-run floor doc.scan_floor varies 43.3% too, "
                 "so part of it may be the machine's; either way its median may move that much "
                 "between runs)"));
  CHECK(contains(wide, "narrow it with more repeats (--repeat=10)"));
}

TEST_CASE("aggregate: without a floor a spread is flagged against the run's typical spread",
          "[run][aggregate]") {
  Scenario s;
  for (const char* op : {"a", "b", "c", "d"}) s.add(op, {1.0, 1.3, 1.0});  // cv 15.7%
  s.add("e", {1.0, 1.25, 1.0});
  s.add("wild", {1.0, 3.0, 1.0});  // cv 69.3%
  // The machine's noise is every metric's: said once, for the run.
  for (const char* op : {"a", "b", "c", "d", "e"}) CHECK(s.warning_of(op).empty());
  CHECK(contains(s.warning_of("wild"), "69.3% > 10% and over 2 times this run's typical 15.7%"));
  storh::result::ResultFile file = s.judged_file();
  REQUIRE(file.environment.warnings.size() == 1);
  CHECK(contains(file.environment.warnings[0],
                 "this run's metrics vary by 15.7% (the median coefficient of variation of 6 "
                 "metrics) > 10%: that is this machine's noise"));
  storh::stats::judge_run_spread(file);  // again: replaced, not added twice
  CHECK(file.environment.warnings.size() == 1);
}

TEST_CASE("aggregate: a floor is a yardstick, never flagged, its spread is said for the run",
          "[run][aggregate]") {
  Scenario s;
  for (const char* op : {"a", "b", "c", "d", "e"}) s.add(op, {1.0, 1.01, 0.99});
  s.add("put_floor", {1.0, 2.0, 1.0});  // cv 43.3%: the machine's fsyncs
  CHECK(s.warning_of("put_floor").empty());
  storh::result::ResultFile file = s.judged_file();
  REQUIRE(file.environment.warnings.size() == 1);
  CHECK(contains(file.environment.warnings[0],
                 "the in-run floors vary by up to 43.3% (doc.put_floor; 1 of 1 floors over "
                 "10%)"));
  CHECK(contains(file.environment.warnings[0], "more repeats (--repeat=10)"));
}

TEST_CASE(
    "aggregate: an operation without a floor of its name is held to the floor nearest in time",
    "[run][aggregate]") {
  Scenario s;
  for (const char* op : {"a", "b", "c", "d", "e"}) s.add(op, {1.0, 1.01, 0.99});
  s.add("bulk_floor", {0.5, 0.7, 0.5});  // cv 20.4%, median 0.5 s
  s.add("import", {1.0, 1.4, 1.0});      // as noisy, median 1 s: held to bulk_floor
  s.add("scan_floor", {0.001, 0.001, 0.001});
  s.add("query", {0.001, 0.002, 0.001});  // nearest floor: scan_floor, steady
  CHECK(s.warning_of("import").empty());
  CHECK(contains(s.warning_of("query"), "over 2 times its in-run floor doc.scan_floor's 0.0%"));
}

TEST_CASE("aggregate: one repeat far from the rest is an outlier said once, not a metric's spread",
          "[run][aggregate]") {
  Scenario s;
  for (const char* op : {"a", "b", "c", "d", "e"}) s.add(op, {1.0, 1.01, 0.99, 1.0, 1.02});
  s.add("paused", {1.0, 1.01, 0.99, 3.0, 1.0});  // one repeat 3x: the machine paused
  s.add("wide", {1.0, 1.5, 0.7, 1.3, 0.9});      // every repeat differs: the metric's own
  s.add("short", {1.0, 3.0, 1.0});               // three samples: no outlier can be told
  CHECK(s.warning_of("paused").empty());
  CHECK(contains(s.warning_of("wide"), "spread too wide to trust"));
  CHECK(contains(s.warning_of("short"), "spread too wide to trust"));
  storh::result::ResultFile file = s.judged_file();
  REQUIRE(file.environment.warnings.size() == 1);
  CHECK(contains(file.environment.warnings[0],
                 "one repeat far from the rest in 1 metric(s) (the farthest: doc.paused, 3.00x "
                 "its median)"));
  storh::stats::judge_run_spread(file);  // again: replaced, not added twice
  CHECK(file.environment.warnings.size() == 1);
}

TEST_CASE("aggregate: samples added by ci --confirm count in an adaptive repeat record",
          "[run][aggregate][repeat]") {
  // Regression: a confirmed cell's samples grew, its record still said the repeats of
  // the first run, and its max warning stayed.
  Scenario s;
  s.add("put", {1.0, 1.3, 0.9, 1.2, 1.0, 0.8});  // 6 repeats: max, too wide for 2%
  storh::result::ResultFile file;
  file.metrics = storh::run::aggregate_metrics(s.plan, s.runs);
  file.experiment.repeat_until = storh::result::RepeatBounds{3, 6, 0.5};
  storh::result::RepeatsTaken first;
  first.taken = 6;
  file.metrics[0].repeats = first;
  file.metrics[0].warnings.push_back(
      "6 repeats (max) and the 95% interval of the median is \u00b199.0%, wider than the "
      "\u00b150% asked");

  Scenario more;
  more.add("put", {1.0, 1.0, 1.0});
  storh::result::ResultFile extra;
  extra.metrics = storh::run::aggregate_metrics(more.plan, more.runs);
  storh::run::add_samples(file, extra);

  const storh::result::Metric& put = file.metrics[0];
  REQUIRE(put.repeats.has_value());
  CHECK(put.repeats->taken == 9);
  REQUIRE(put.repeats->interval.has_value());  // over all 9 samples
  CHECK(put.repeats->interval->first <= 1.0);
  CHECK(put.repeats->interval->second >= 1.0);
  CHECK(put.repeats->converged);  // within +-50% now
  for (const std::string& warning : put.warnings) CHECK(!contains(warning, "repeats (max)"));
}
