// suite: the `counters` key, the --counters override and [gate] counters.
#include <catch2/catch.hpp>

#include "suite_test_util.h"

using namespace storh::suite;
using namespace storh::suite::testing;

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
