// Relative paths in a suite file are relative to the file's directory, whatever the
// current directory; paths given as flags stay relative to the current directory.
#include <catch2/catch.hpp>

#include "suite/parse.h"
#include "suite_test_util.h"
#include "test_support.h"

using namespace storh::suite;
using namespace storh::suite::testing;
using storh::test::ScratchDir;

namespace {

// Writes `text` as <dir>/suites/s.toml and parses it with parse_suite_file.
Suite parse_file_ok(const ScratchDir& dir, const std::string& text) {
  const auto file = dir / "suites/s.toml";
  storh::test::write_text(file, text);
  std::vector<SuiteError> errors;
  std::optional<Suite> suite = parse_suite_file(file, errors);
  INFO(all_errors(errors));
  REQUIRE(suite.has_value());
  return *suite;
}

}  // namespace

TEST_CASE("suite paths: relative paths resolve against the suite file's directory",
          "[suite][paths]") {
  // Regression: they resolved against the current directory, so `cd / && storh-host
  // validate /path/kv.toml` found no plugins and ci no baseline.
  ScratchDir dir;
  const Suite suite = parse_file_ok(dir, R"(
output       = "out/r.json"
plugin_path  = ["../plugins", "/opt/storh/plugins"]
work_dir     = "work"
range_output = "../ranges"
[engines.doc]
[gate]
baseline = "baselines/base.json"
)");
  const std::filesystem::path base = dir / "suites";
  CHECK(suite.output == base / "out/r.json");
  REQUIRE(suite.plugin_path.size() == 2);
  CHECK(suite.plugin_path[0].value == dir / "plugins");
  CHECK(suite.plugin_path[0].pos.line == 3);
  CHECK(suite.plugin_path[1].value == "/opt/storh/plugins");
  CHECK(suite.work_dir == base / "work");
  CHECK(suite.range_output == dir / "ranges");
  REQUIRE(suite.gate.baseline.has_value());
  CHECK(suite.gate.baseline->value == (base / "baselines/base.json").string());
}

TEST_CASE("suite paths: the default output goes next to the suite file", "[suite][paths]") {
  ScratchDir dir;
  const Suite suite = parse_file_ok(dir, "name = \"kv\"\n[engines.doc]\n");
  CHECK(suite.output == dir / "suites/build/bench-kv.json");
}

TEST_CASE("suite paths: a suite in the current directory keeps its paths as written",
          "[suite][paths]") {
  Suite suite = parse_ok("output = \"out/r.json\"\nplugin_path = \"p\"\n[engines.doc]\n");
  resolve_paths(suite, "");
  CHECK(suite.output == "out/r.json");
  CHECK(suite.plugin_path[0].value == "p");
  resolve_paths(suite, "suites");
  CHECK(suite.output == "suites/out/r.json");
  Suite up = parse_ok("output = \"../build/r.json\"\n[engines.doc]\n");
  resolve_paths(up, "suites");
  CHECK(up.output == "build/r.json");
}

TEST_CASE("suite paths: paths from flags stay relative to the current directory",
          "[suite][paths][overrides]") {
  ScratchDir dir;
  Suite suite = parse_file_ok(dir, "plugin_path = \"p\"\n[engines.doc]\n");
  Overrides overrides;
  overrides.output = "mine.json";
  overrides.plugin_path = {"flagged"};
  overrides.work_dir = "w";
  overrides.range_output = "r";
  std::vector<SuiteError> errors;
  REQUIRE(apply_overrides(suite, overrides, errors));
  CHECK(suite.output == "mine.json");
  REQUIRE(suite.plugin_path.size() == 2);
  CHECK(suite.plugin_path[0].value == "flagged");
  CHECK(suite.plugin_path[0].pos.str() == "--plugin-path");
  CHECK(suite.plugin_path[1].value == dir / "suites/p");
  CHECK(suite.work_dir == "w");
  CHECK(suite.range_output == "r");
}
