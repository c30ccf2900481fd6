// suite: the `counters` key, the --counters override and [gate] counters, and what
// the plan keeps of them and of the suite for the runners.
#include <catch2/catch.hpp>

#include "plan/plan.h"
#include "suite_test_util.h"

using namespace storh::suite;
using namespace storh::suite::testing;

namespace {

// An engine with one operation, as describe_plugin would say it.
storh::plugin::Description described(const std::string& name) {
  storh::plugin::Description d;
  d.file = "/plugins/storh_" + name + ".so";
  d.info.name = name;
  d.info.version = "1.0.0";
  d.info.operations = {{"put", "records", storh::Direction::lower_is_better, ""}};
  return d;
}

}  // namespace

TEST_CASE("suite counters: instruments are read in order", "[suite]") {
  const Suite suite = parse_ok(R"(
counters = ["syscalls", "instructions"]
[engines.doc]
)");
  REQUIRE(suite.counters.size() == 2);
  CHECK(suite.counters[0].value == "syscalls");
  CHECK(suite.counters[1].value == "instructions");
  CHECK(suite.counters[1].pos.str() == "suites/x.toml:1:25");
}

TEST_CASE("suite counters: an unknown instrument names the valid choices", "[suite]") {
  suite_should_fail(R"(
counters = ["syscalls", "cycles"]
[engines.doc]
)",
                    "1:25",
                    "counters: unknown instrument \"cycles\" (valid: instructions, syscalls)");
  suite_should_fail(R"(
counters = "syscalls"
[engines.doc]
)",
                    "1:12", "\"counters\" must be a list of instruments");
  suite_should_fail(R"(
counters = ["syscalls", "syscalls"]
[engines.doc]
)",
                    "1:25", "\"syscalls\" is given twice");
}

TEST_CASE("suite counters: --counters replaces the list, none clears it", "[suite]") {
  Suite suite = parse_ok(R"(
counters = ["syscalls"]
[engines.doc]
)");
  std::vector<SuiteError> errors;
  Overrides overrides;
  overrides.counters = "syscalls,instructions";
  REQUIRE(apply_overrides(suite, overrides, errors));
  REQUIRE(suite.counters.size() == 2);
  CHECK(suite.counters[1].pos.str() == "--counters");
  overrides.counters = "none";
  REQUIRE(apply_overrides(suite, overrides, errors));
  CHECK(suite.counters.empty());
  overrides.counters = "syscalls,ticks";
  CHECK_FALSE(apply_overrides(suite, overrides, errors));
  error_should_be_reported(errors, "--counters", "", "unknown instrument \"ticks\"");
}

TEST_CASE("suite counters: an engine table's counters replace the suite's for it", "[suite]") {
  Suite suite = parse_ok(R"(
counters = ["syscalls"]
[engines.doc]
[engines.uuid]
counters = ["syscalls", "instructions"]
[engines.log]
counters = []
)");
  CHECK(counters_for(suite, "doc").size() == 1);
  REQUIRE(counters_for(suite, "uuid").size() == 2);
  CHECK(counters_for(suite, "uuid")[1].pos.str() == "suites/x.toml:4:25");
  CHECK(counters_for(suite, "log").empty());
  suite_should_fail("[engines.doc]\ncounters = [\"cycles\"]\n", "2:13",
                    "counters: unknown instrument \"cycles\"");
  // --counters beats the suite entirely, engine tables included.
  std::vector<SuiteError> errors;
  Overrides overrides;
  overrides.counters = "none";
  REQUIRE(apply_overrides(suite, overrides, errors));
  CHECK(counters_for(suite, "uuid").empty());
  CHECK(counters_for(suite, "log").empty());
}

TEST_CASE("plan: each cell counts with its engine's instruments, and keeps the suite's record",
          "[suite][plan]") {
  // The runners read the plan alone: what they used to read of the suite is copied in.
  const Suite suite = parse_ok(R"(
name = "counted"
datasets = [10, 20]
work_dir = "/scratch/work"
counters = ["syscalls"]
[engines.doc]
[engines.uuid]
counters = ["instructions", "syscalls"]
[engines.log]
counters = []
)");
  const storh::plan::Plan plan = storh::plan::expand_plan(
      suite, {{"doc", described("doc")}, {"uuid", described("uuid")}, {"log", described("log")}});
  REQUIRE(plan.cells.size() == 6);  // 2 datasets x 3 engines
  using Names = std::vector<std::string>;
  for (const storh::plan::Cell& cell : plan.cells) {
    INFO(cell.engine << " n=" << cell.dataset);
    if (cell.engine == "doc") CHECK(cell.counters == Names{"syscalls"});
    if (cell.engine == "uuid") CHECK(cell.counters == Names{"instructions", "syscalls"});
    if (cell.engine == "log") CHECK(cell.counters.empty());
  }
  CHECK(plan.suite.name == "counted");
  CHECK(plan.suite.file == kOrigin);
  CHECK(plan.suite.datasets == std::vector<std::uint64_t>{10, 20});
  CHECK(plan.suite.load_benches.empty());
  CHECK(plan.work_dir == std::filesystem::path("/scratch/work"));
}

TEST_CASE("suite counters: [gate] counters are tolerances of known counters", "[suite]") {
  const Suite suite = parse_ok(R"(
[engines.doc]
[gate]
counters = { fsync = 0, instructions = 2.5 }
)");
  REQUIRE(suite.gate.counter_tolerances.size() == 2);
  CHECK(suite.gate.counter_tolerances[0].first.value == "fsync");
  CHECK(suite.gate.counter_tolerances[0].second == 0);
  CHECK(suite.gate.counter_tolerances[1].second == 2.5);
  suite_should_fail(R"(
[engines.doc]
[gate]
counters = { fsyncs = 0 }
)",
                    "3:14", "gate.counters: unknown counter \"fsyncs\" (valid: ");
  suite_should_fail(R"(
[engines.doc]
[gate]
counters = { fsync = -1 }
)",
                    "3:22", "a number >= 0 (percent)");
}
