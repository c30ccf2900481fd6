// Reading suite files: the errors a mistyped suite gets, and what a good one yields.
#include <cstdlib>
#include <filesystem>
#include <fstream>

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
                    "4:10", "\"repeat\" must be an integer >= 1, got string \"3\"");
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

TEST_CASE("suite: a minimal suite gets the documented defaults", "[suite]") {
  const Suite suite = parse_ok("[engines.doc]\n");
  CHECK(suite.file == "suites/x.toml");
  CHECK(suite.name == "x");
  REQUIRE(suite.datasets.size() == 1);
  CHECK(suite.datasets[0].value == 1000);
  CHECK(suite.repeat == 1);
  CHECK(suite.warmup == 0);
  CHECK_FALSE(suite.memory_limit_bytes.has_value());
  CHECK_FALSE(suite.timeout_seconds.has_value());
  CHECK(suite.output == "build/bench-x.json");
  CHECK(suite.plugin_path.empty());
  CHECK_FALSE(suite.work_dir.has_value());
  REQUIRE(suite.engines.size() == 1);
  CHECK(suite.engines[0].name == "doc");
  CHECK(suite.engines[0].pos.str() == "suites/x.toml:1:10");
  CHECK(suite.engines[0].operations.empty());
  CHECK(suite.engines[0].params.empty());
  CHECK_FALSE(suite.gate.baseline.has_value());
  CHECK(suite.gate.metrics.empty());
}

TEST_CASE("suite: the design document's example reads completely", "[suite]") {
  const Suite suite = parse_ok(R"(
name        = "default"
datasets    = [1000]
repeat      = 3
warmup      = 1
memory_limit = "512M"
timeout     = "10m"
output      = "build/bench-current.json"
plugin_path = ["build/plugins"]
work_dir    = "/tmp/storh"

[engines.doc]
operations = ["put", "get", "stream"]

[engines.cache.params]
validation = ["hash", "stat", "trust"]

[engines.log.params]
segment_size = 16384

[gate]
baseline  = "suites/baselines/ci-1k.json"
threshold = 10
metrics   = ["doc.put", "log.append"]
)");
  CHECK(suite.name == "default");
  CHECK(suite.output == "build/bench-current.json");
  CHECK(suite.repeat == 3);
  CHECK(suite.warmup == 1);
  CHECK(suite.memory_limit_bytes == 512ULL << 20);
  CHECK(suite.timeout_seconds == Approx(600));
  REQUIRE(suite.plugin_path.size() == 1);
  CHECK(suite.plugin_path[0].value == "build/plugins");
  CHECK(suite.work_dir == "/tmp/storh");

  REQUIRE(suite.engines.size() == 3);  // in file order, not alphabetical
  CHECK(suite.engines[0].name == "doc");
  CHECK(suite.engines[1].name == "cache");
  CHECK(suite.engines[2].name == "log");
  REQUIRE(suite.engines[0].operations.size() == 3);
  CHECK(suite.engines[0].operations[1].value == "get");
  CHECK(suite.engines[0].operations[1].pos.str() == "suites/x.toml:12:22");

  REQUIRE(suite.engines[1].params.size() == 1);
  const ParamSetting& validation = suite.engines[1].params[0];
  CHECK(validation.name == "validation");
  CHECK(validation.is_list);
  CHECK(validation.pos.str() == "suites/x.toml:15:1");
  REQUIRE(validation.values.size() == 3);
  CHECK(validation.values[2].value == storh::ParamValue(std::string("trust")));

  const ParamSetting& segment_size = suite.engines[2].params.at(0);
  CHECK_FALSE(segment_size.is_list);
  REQUIRE(segment_size.values.size() == 1);
  CHECK(segment_size.values[0].value == storh::ParamValue(std::int64_t{16384}));

  REQUIRE(suite.gate.baseline.has_value());
  CHECK(suite.gate.baseline->value == "suites/baselines/ci-1k.json");
  REQUIRE(suite.gate.threshold.has_value());
  CHECK(suite.gate.threshold->value == Approx(10));
  REQUIRE(suite.gate.metrics.size() == 2);
  CHECK(suite.gate.metrics[1].value == "log.append");
  CHECK(suite.gate.metrics[1].pos.str() == "suites/x.toml:23:25");
}

TEST_CASE("suite: datasets as a scalar or a list", "[suite]") {
  const Suite scalar = parse_ok("datasets = 5000\n[engines.doc]\n");
  REQUIRE(scalar.datasets.size() == 1);
  CHECK(scalar.datasets[0].value == 5000);
  CHECK(scalar.datasets[0].pos.str() == "suites/x.toml:1:12");

  const Suite list = parse_ok("datasets = [10000, 1000]\n[engines.doc]\n");
  REQUIRE(list.datasets.size() == 2);
  CHECK(list.datasets[0].value == 10000);  // as written: each size is its own cell
  CHECK(list.datasets[1].value == 1000);
}

TEST_CASE("suite: parameters keep their TOML types and file order", "[suite]") {
  const Suite suite = parse_ok(R"(
[engines.doc.params]
zeta = 1.5
alpha = true
middle = [1]
)");
  const auto& params = suite.engines.at(0).params;
  REQUIRE(params.size() == 3);
  CHECK(params[0].name == "zeta");
  CHECK(params[0].values[0].value == storh::ParamValue(1.5));
  CHECK(params[1].name == "alpha");
  CHECK(params[1].values[0].value == storh::ParamValue(true));
  CHECK(params[2].name == "middle");
  CHECK(params[2].is_list);  // a one-element list is still a matrix dimension
}

TEST_CASE("suite: a table of settings is one string value, name=value joined by semicolons",
          "[suite][settings]") {
  const Suite suite = parse_ok(R"(
[engines.pg.params]
settings = { work_mem = "4MB", jit = false, workers = 4, ratio = 1.5, "x.y" = "a=b" }
matrix = [{ synchronous_commit = "on" }, { synchronous_commit = "off", wal_level = "minimal" }]
none = {}
[engines.pg.params.written]
b = 2
a = "1"
)");
  const auto& params = suite.engines.at(0).params;
  REQUIRE(params.size() == 4);
  CHECK(params[0].name == "settings");
  REQUIRE(params[0].values.size() == 1);
  CHECK_FALSE(params[0].is_list);
  CHECK(params[0].values[0].value ==
        storh::ParamValue(std::string("work_mem=4MB;jit=false;workers=4;ratio=1.5;x.y=a=b")));
  CHECK(params[0].values[0].pos.str() == "suites/x.toml:2:12");
  CHECK(params[1].is_list);  // a list of tables is a matrix dimension
  REQUIRE(params[1].values.size() == 2);
  CHECK(params[1].values[0].value == storh::ParamValue(std::string("synchronous_commit=on")));
  CHECK(params[1].values[1].value ==
        storh::ParamValue(std::string("synchronous_commit=off;wal_level=minimal")));
  CHECK(params[2].values[0].value == storh::ParamValue(std::string()));
  // A [table] header reads the same way, entries in file order.
  CHECK(params[3].name == "written");
  CHECK(params[3].values[0].value == storh::ParamValue(std::string("b=2;a=1")));
}

TEST_CASE("suite: a setting that cannot be name=value is refused at its position",
          "[suite][settings]") {
  suite_should_fail("[engines.pg.params]\nsettings = { a = { b = 1 } }\n", "2:18",
                    "\"engines.pg.params.settings.a\" must be a string, integer, float or boolean "
                    "(one setting's value; tables and lists cannot be settings), got table");
  suite_should_fail("[engines.pg.params]\nsettings = { a = [1, 2] }\n", "2:18", "got array");
  suite_should_fail("[engines.pg.params]\nsettings = { a = \"x;y\" }\n", "2:18",
                    "\"engines.pg.params.settings.a\" must not contain ';' (it separates the "
                    "settings of \"engines.pg.params.settings\")");
  suite_should_fail("[engines.pg.params]\nsettings = { \"a=b\" = 1 }\n", "2:14",
                    "setting name \"a=b\" in \"engines.pg.params.settings\" must be non-empty, "
                    "without ';' or '='");
  suite_should_fail("[engines.pg.params]\nsettings = [{ a = 1 }, { a = 1 }]\n", "2:24",
                    "string \"a=1\" appears twice in \"engines.pg.params.settings\" (first at "
                    "2:13)");
}

TEST_CASE("suite: engines may be written inline or with dotted keys", "[suite]") {
  const Suite suite = parse_ok("engines = { uuid = {}, doc = { params = { n = 1 } } }\n");
  REQUIRE(suite.engines.size() == 2);
  CHECK(suite.engines[0].name == "uuid");
  CHECK(suite.engines[1].name == "doc");
  CHECK(suite.engines[1].params.at(0).name == "n");

  const Suite dotted = parse_ok("[engines]\nlog.params.segment_size = [1024, 4096]\n");
  REQUIRE(dotted.engines.size() == 1);
  CHECK(dotted.engines[0].params.at(0).values.size() == 2);
}

TEST_CASE("suite: plugin_path may be one string or a list", "[suite]") {
  const Suite one = parse_ok("plugin_path = \"build/plugins\"\n[engines.doc]\n");
  REQUIRE(one.plugin_path.size() == 1);
  CHECK(one.plugin_path[0].value == "build/plugins");
  CHECK(one.plugin_path[0].pos.str() == "suites/x.toml:1:15");
  const Suite two = parse_ok("plugin_path = [\"a\", \"b\"]\n[engines.doc]\n");
  REQUIRE(two.plugin_path.size() == 2);
  CHECK(two.plugin_path[1].value == "b");
}

TEST_CASE("suite: limits accept bytes, seconds and unit strings", "[suite]") {
  const Suite numbers = parse_ok("memory_limit = 1048576\ntimeout = 2.5\n[engines.doc]\n");
  CHECK(numbers.memory_limit_bytes == 1048576U);
  CHECK(numbers.timeout_seconds == Approx(2.5));
  const Suite strings = parse_ok("memory_limit = \"1G\"\ntimeout = \"1500ms\"\n[engines.doc]\n");
  CHECK(strings.memory_limit_bytes == 1ULL << 30);
  CHECK(strings.timeout_seconds == Approx(1.5));
  const Suite whole = parse_ok("timeout = 90\n[engines.doc]\n");
  CHECK(whole.timeout_seconds == Approx(90));
}

TEST_CASE("suite: the default name is the file's stem", "[suite]") {
  std::vector<SuiteError> errors;
  const auto suite = parse_suite("[engines.doc]\n", "suites/nightly.v2.toml", errors);
  REQUIRE(suite.has_value());
  CHECK(suite->name == "nightly.v2");
  CHECK(suite->output == "build/bench-nightly.v2.json");
}

TEST_CASE("suite: positions and errors print as file:line:col", "[suite]") {
  CHECK(SourcePos{"a.toml", 12, 5}.str() == "a.toml:12:5");
  CHECK(SourcePos{"a.toml", 12, 0}.str() == "a.toml:12");
  CHECK(SourcePos{"--set", 0, 0}.str() == "--set");
  CHECK(SuiteError{SourcePos{"--repeat"}, "bad"}.str() == "--repeat: bad");
  CHECK(SuiteError{SourcePos{"a.toml", 1, 2}, "bad"}.str() == "a.toml:1:2: bad");
  CHECK(SuiteError{SourcePos{}, "bad"}.str() == "bad");
}

namespace {

std::filesystem::path scratch_dir(const std::string& name) {
  const char* root = std::getenv("STORH_TEST_TMP");
  std::filesystem::path dir =
      (root != nullptr ? std::filesystem::path(root) : std::filesystem::temp_directory_path()) /
      ("suite_test-" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace

TEST_CASE("suite: a file is read with its path as origin and its stem as name", "[suite]") {
  const std::filesystem::path dir = scratch_dir("read");
  const std::filesystem::path file = dir / "ci-1k.toml";
  std::ofstream(file) << "repeat = 2\n[engines.doc]\n";
  std::vector<SuiteError> errors;
  const auto suite = parse_suite_file(file, errors);
  INFO(all_errors(errors));
  REQUIRE(suite.has_value());
  CHECK(suite->name == "ci-1k");
  CHECK(suite->file == file);
  CHECK(suite->repeat == 2);

  std::ofstream(file) << "repeat = 0\n[engines.doc]\n";
  errors.clear();
  CHECK_FALSE(parse_suite_file(file, errors).has_value());
  error_should_be_reported(errors, file.string(), "1:10", "\"repeat\"");
  std::filesystem::remove_all(dir);
}

TEST_CASE("suite: an unreadable file is one error naming the file", "[suite]") {
  const std::filesystem::path dir = scratch_dir("unreadable");
  std::vector<SuiteError> errors;
  CHECK_FALSE(parse_suite_file(dir / "missing.toml", errors).has_value());
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].str() ==
        (dir / "missing.toml").string() + ": cannot open: No such file or directory");

  errors.clear();
  CHECK_FALSE(parse_suite_file(dir, errors).has_value());
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].str() == dir.string() + ": cannot read: a directory, not a regular file");
  std::filesystem::remove_all(dir);
}

TEST_CASE("suite: [gate.ab] reads pairs and the confirmation set's pairs, each 1 to 1000",
          "[suite][ab]") {
  const Suite suite = parse_ok(R"(
[engines.doc]
[gate.ab]
pairs = 12
confirm_pairs = 30
)");
  CHECK(suite.gate.ab.pairs == 12u);
  CHECK(suite.gate.ab.confirm_pairs == 30u);
  CHECK_FALSE(parse_ok("[engines.doc]\n[gate.ab]\npairs = 12\n").gate.ab.confirm_pairs);
  suite_should_fail("[engines.doc]\n[gate.ab]\nconfirm_pairs = 0\n", "3:17",
                    "\"gate.ab.confirm_pairs\"");
  suite_should_fail("[engines.doc]\n[gate.ab]\nconfirm_pair = 3\n", "3:1", "confirm_pairs");
}
