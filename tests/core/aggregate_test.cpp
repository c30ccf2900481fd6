// From the workers' samples to metrics: which warnings a run's metrics carry.
#include <catch2/catch.hpp>

#include "run/aggregate.h"
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

  std::string warning_of(const std::string& operation) const {
    for (const auto& metric : storh::run::aggregate_metrics(plan, runs)) {
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

TEST_CASE("aggregate: a wide spread says what narrows it and reads the in-run floor",
          "[run][aggregate]") {
  Scenario s;
  s.add("put", {1.0, 2.0, 1.0});
  s.add("put_floor", {0.5, 1.0, 0.5});
  s.add("get", {1.0, 2.0, 1.0});
  s.add("delete", {1.0, 2.0, 1.0});
  s.add("delete_floor", {0.5, 0.5, 0.51});
  const std::string put = s.warning_of("put");
  CHECK(contains(put, "spread too wide to trust: coefficient of variation 43.3% > 10%"));
  CHECK(contains(put, "more repeats (--repeat=10)"));
  CHECK(contains(put, "in-run floor doc.put_floor has cv 43.3%: the machine's I/O time varies"));
  // No floor of its own: only the general advice.
  const std::string get = s.warning_of("get");
  CHECK(contains(get, "quieter machine"));
  CHECK_FALSE(contains(get, "floor doc."));
  CHECK(
      contains(s.warning_of("delete"),
               "in-run floor doc.delete_floor has cv 1.1%, steady: the engine's own work varies"));
}
