// Reading suite files: what a good suite yields, its defaults and the forms its values
// may take, and reading it from a file. suite_errors_test.cpp has the mistyped ones.
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>

#include "suite/parse.h"
#include "suite_test_util.h"

using namespace storh::suite;
using namespace storh::suite::testing;

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
