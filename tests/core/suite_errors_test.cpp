// Reading suite files: the errors a mistyped suite gets, each with its position and,
// where it helps, the valid choices. suite_test.cpp has what a good suite yields.
#include <catch2/catch.hpp>

#include "suite/parse.h"
#include "suite_test_util.h"

using namespace storh::suite;
using namespace storh::suite::testing;

TEST_CASE("suite: unknown top-level key lists the valid keys and the closest one", "[suite]") {
  std::vector<SuiteError> errors;
  const auto suite =
      parse_suite("name = \"x\"\ndatasets = [1000]\nrepeats = 3\n[engines.doc]\n", kOrigin, errors);
  CHECK_FALSE(suite.has_value());
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].str() ==
        "suites/x.toml:3:1: unknown key \"repeats\" (valid: counters, datasets, memory_limit, "
        "min_time, name, order, output, plugin_path, range_output, repeat, timeout, warmup, "
        "work_dir, "
        "engines, gate, load, ycsb); did you mean \"repeat\"?");
}

TEST_CASE("suite: unknown key without a close match gets no suggestion", "[suite]") {
  std::vector<SuiteError> errors;
  CHECK_FALSE(parse_suite("flavour = 1\n[engines.doc]\n", kOrigin, errors));
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].message.find("did you mean") == std::string::npos);
}

TEST_CASE("suite: wrong types and ranges of top-level values", "[suite]") {
  suite_should_fail(R"(
name = "x"
datasets = [1000]
warmup = 0
repeat = "3"
[engines.doc]
)",
                    "4:10",
                    "\"repeat\" must be an integer >= 1 or a table such as { min = 5, max = 30, "
                    "until = \"2%\" }, got string \"3\"");
  suite_should_fail("repeat = 0\n[engines.doc]", "1:10",
                    "\"repeat\" must be an integer >= 1, got integer 0");
  suite_should_fail("repeat = 5000000000\n[engines.doc]", "1:10",
                    "\"repeat\" must be an integer from 1 to 1000000, got integer 5000000000");
  suite_should_fail("warmup = -1\n[engines.doc]", "1:10",
                    "\"warmup\" must be an integer >= 0, got integer -1");
  suite_should_fail("name = \"\"\n[engines.doc]", "1:8",
                    "\"name\" must be a non-empty string, got string \"\"");
  suite_should_fail("work_dir = 3\n[engines.doc]", "1:12",
                    "\"work_dir\" must be a non-empty string, got integer 3");
  suite_should_fail("output = false\n[engines.doc]", "1:10",
                    "\"output\" must be a non-empty string, got boolean false");
  suite_should_fail("plugin_path = [\"build/plugins\", 1]\n[engines.doc]", "1:33",
                    "\"plugin_path\" must be a directory or a list of directories");
  // Regression: validate accepted both, and neither could run.
  suite_should_fail("datasets = [9000000000000000000]\n[engines.doc]", "1:13",
                    "dataset 9000000000000000000 is more than the 1000000000000 records a cell "
                    "may have");
  suite_should_fail("timeout = \"999999999999h\"\n[engines.doc]", "1:11",
                    "timeout 3599999999996400 s is longer than the 2592000 s (30 days) a cell "
                    "may run");
}

TEST_CASE("suite: min_time is a duration from 0 to 1h, 20 ms by default", "[suite][min_time]") {
  CHECK(parse_ok("[engines.doc]\n").min_time_seconds == 0.02);
  CHECK(parse_ok("min_time = \"500us\"\n[engines.doc]\n").min_time_seconds == Approx(0.0005));
  CHECK(parse_ok("min_time = 0\n[engines.doc]\n").min_time_seconds == 0);
  suite_should_fail("min_time = \"2h\"\n[engines.doc]", "1:12",
                    "\"min_time\" must be a duration from 0 to 1h such as \"20ms\"");
  suite_should_fail("min_time = true\n[engines.doc]", "1:12", "got boolean true");
}

TEST_CASE("suite: bad datasets", "[suite]") {
  suite_should_fail("datasets = []\n[engines.doc]", "1:12", "\"datasets\" must not be empty");
  suite_should_fail("datasets = [1000, 0]\n[engines.doc]", "1:19",
                    "\"datasets\" must be a record count >= 1 (1000, or a string such as "
                    "\"10k\" or \"1M\") or a list of them, got integer 0");
  suite_should_fail("datasets = [1000, 1000]\n[engines.doc]", "1:19",
                    "duplicate dataset 1000 (first at 1:13)");
  suite_should_fail("datasets = \"lots\"\n[engines.doc]", "1:12", "got string \"lots\"");
  suite_should_fail("datasets = [1.5]\n[engines.doc]", "1:13", "got float 1.5");
}

TEST_CASE("suite: bad memory_limit and timeout say what a good one looks like", "[suite]") {
  suite_should_fail("memory_limit = \"lots\"\n[engines.doc]", "1:16",
                    "\"memory_limit\" must be a size > 0 such as \"512M\" or \"2G\", or a number "
                    "of bytes, got string \"lots\"");
  suite_should_fail("memory_limit = 0\n[engines.doc]", "1:16", "got integer 0");
  suite_should_fail("timeout = \"10 minutes\"\n[engines.doc]", "1:11",
                    "\"timeout\" must be a duration > 0 such as \"10m\"");
  suite_should_fail("timeout = -5\n[engines.doc]", "1:11", "got integer -5");
  suite_should_fail("timeout = \"0s\"\n[engines.doc]", "1:11", "got string \"0s\"");
}

TEST_CASE("suite: TOML syntax errors keep toml++'s position and description", "[suite]") {
  suite_should_fail("repeat = \n[engines.doc]", "1:10", "expected value");
  suite_should_fail("repeat = 1\nrepeat = 2\n[engines.doc]", "2:10", "cannot redefine existing");
}

TEST_CASE("suite: a suite needs at least one engine", "[suite]") {
  // At the file's last line: the README promises a position for every error.
  suite_should_fail("name = \"x\"\n", "1:1", "no engines: add at least one [engines.<name>] table");
  suite_should_fail("name = \"x\"\nrepeat = 2\n", "2:1", "no engines");
  suite_should_fail("[engines]\n", "1:1", "no engines");
  suite_should_fail("engines = [\"doc\"]\n", "1:11",
                    "\"engines\" must be a table of [engines.<name>] tables, got array");
}

TEST_CASE("suite: bad engine names and engine tables", "[suite]") {
  suite_should_fail("[engines.Doc]\n", "1:10", "engine name \"Doc\" must use only a-z, 0-9 and _");
  suite_should_fail("[engines]\ndoc = 1\n", "2:7",
                    "\"engines.doc\" must be a table such as [engines.doc], got integer 1");
  suite_should_fail(R"(
[engines.doc]
operation = ["put"]
)",
                    "2:1",
                    "unknown key \"operation\" in [engines.doc] (valid: counters, operations, "
                    "params, load); did you mean \"operations\"?");
}

TEST_CASE("suite: bad operation lists", "[suite]") {
  suite_should_fail("[engines.doc]\noperations = []\n", "2:14",
                    "\"engines.doc.operations\" must not be empty (leave it out to run every "
                    "operation)");
  suite_should_fail("[engines.doc]\noperations = \"put\"\n", "2:14",
                    "\"engines.doc.operations\" must be a list of operation names (strings), got "
                    "string \"put\"");
  suite_should_fail("[engines.doc]\noperations = [\"put\", \"get\", \"put\"]\n", "2:29",
                    "duplicate operation \"put\" in \"engines.doc.operations\" (first at 2:15)");
  suite_should_fail("[engines.doc]\noperations = [1]\n", "2:15", "got integer 1");
}

TEST_CASE("suite: bad parameter values", "[suite]") {
  suite_should_fail("[engines.doc.params]\nsize = 2024-01-01T00:00:00Z\n", "2:8",
                    "\"engines.doc.params.size\" must be a string, integer, float or boolean, a "
                    "table of settings, or a list of them, got date-time");
  suite_should_fail("[engines.doc.params]\nvalidation = []\n", "2:14",
                    "\"engines.doc.params.validation\" must not be an empty list");
  suite_should_fail("[engines.doc.params]\nvalidation = [\"hash\", \"stat\", \"hash\"]\n", "2:31",
                    "string \"hash\" appears twice in \"engines.doc.params.validation\" (first at "
                    "2:15)");
  suite_should_fail("[engines.doc.params]\nsince = 2024-01-01\n", "2:9", "got date");
  suite_should_fail("[engines.doc.params]\nsizes = [1, [2]]\n", "2:13", "got array");
  suite_should_fail("[engines.doc]\nparams = 1\n", "2:10",
                    "\"engines.doc.params\" must be a table of parameter values, got integer 1");
}

TEST_CASE("suite: bad gate tables", "[suite]") {
  suite_should_fail(
      "[engines.doc]\n[gate]\nmetric = [\"doc.put\"]\n", "3:1",
      "unknown key \"metric\" in [gate] (valid: ab, alpha, baseline, confirm, counters, "
      "lenient_missing, metrics, min_effect, significant, threshold, thresholds); "
      "did you mean \"metrics\"?");
  suite_should_fail("[engines.doc]\n[gate]\nconfirm = 500\n", "3:11",
                    "\"gate.confirm\" must be an integer from 0 to 100");
  suite_should_fail("[engines.doc]\n[gate]\nalpha = 1.5\n", "3:9",
                    "\"gate.alpha\" must be a number between 0 and 1");
  suite_should_fail("[engines.doc]\n[gate]\nmin_effect = \"soon\"\n", "3:14",
                    "\"gate.min_effect\" must be a duration");
  suite_should_fail("[engines.doc]\n[gate]\nthresholds = { put = 5 }\n", "3:22",
                    "the key must be \"engine.operation\"");
  suite_should_fail("order = \"random\"\n[engines.doc]\n", "1:9",
                    "\"order\" must be \"sequential\" or \"interleave\"");
  suite_should_fail("[engines.doc]\n[gate]\nthreshold = \"10%\"\n", "3:13",
                    "\"gate.threshold\" must be a number >= 0 (percent), got string \"10%\"");
  suite_should_fail("[engines.doc]\n[gate]\nthreshold = -1.5\n", "3:13", "got float -1.5");
  suite_should_fail("[engines.doc]\n[gate]\nmetrics = [\"docput\"]\n", "3:12",
                    "gate metric \"docput\" must be \"engine.operation\", e.g. \"doc.put\"");
  suite_should_fail("[engines.doc]\n[gate]\nmetrics = [\"doc.put\", \"doc.put\"]\n", "3:23",
                    "duplicate gate metric \"doc.put\" (first at 3:12)");
  suite_should_fail("[engines.doc]\n[gate]\nbaseline = 1\n", "3:12",
                    "\"gate.baseline\" must be the path of a result file");
  suite_should_fail("gate = 1\n[engines.doc]\n", "1:8",
                    "\"gate\" must be a table ([gate]), got integer 1");
}

TEST_CASE("suite: several mistakes are reported at once", "[suite]") {
  std::vector<SuiteError> errors;
  const auto suite = parse_suite(without_leading_newline(R"(
repeat = 0
warmup = "x"
[engines.Doc]
[engines.doc]
operations = []
)"),
                                 kOrigin, errors);
  CHECK_FALSE(suite.has_value());
  REQUIRE(errors.size() == 4);
  CHECK(errors[3].pos.line == 5);  // in file order
  error_should_be_reported(errors, kOrigin, "1:10", "\"repeat\"");
  error_should_be_reported(errors, kOrigin, "2:10", "\"warmup\"");
  error_should_be_reported(errors, kOrigin, "3:10", "\"Doc\"");
  error_should_be_reported(errors, kOrigin, "5:14", "\"engines.doc.operations\"");
}

TEST_CASE("suite: unknown keys are reported in file order with the other errors", "[suite]") {
  std::vector<SuiteError> errors;
  CHECK_FALSE(parse_suite("repeat = 0\nrepaet = 1\n[engines.doc]\n", kOrigin, errors));
  REQUIRE(errors.size() == 2);
  CHECK(errors[0].pos.str() == "suites/x.toml:1:10");
  CHECK(errors[1].pos.str() == "suites/x.toml:2:1");
  CHECK(errors[1].message.find("did you mean \"repeat\"?") != std::string::npos);
}
