// Suites found from anywhere: relative paths in a suite are relative to its file, and
// plugin directories that do not exist are errors and plugins that hide others are warned about.
#include <cstdlib>

#include <catch2/catch.hpp>

#include "test_support.h"

using storh::test::cli;
using storh::test::contains;
using storh::test::ScratchDir;

namespace {

std::filesystem::path misbehave_plugin() {
  return std::filesystem::path(STORH_TEST_FIXTURE_DIR) / "storh_misbehave.so";
}

// <dir>/suites/kv.toml running misbehave from <dir>/plugins, with `extra` lines first.
std::filesystem::path write_suite(const ScratchDir& dir, const std::string& extra) {
  std::filesystem::create_directories(dir / "plugins");
  std::filesystem::copy_file(misbehave_plugin(), dir / "plugins/storh_misbehave.so",
                             std::filesystem::copy_options::overwrite_existing);
  auto suite = dir / "suites/kv.toml";
  storh::test::write_text(suite, "name = \"kv\"\ndatasets = [10]\n" + extra +
                                     "\n[engines.misbehave]\noperations = [\"first\"]\n");
  return suite;
}

}  // namespace

TEST_CASE("cli paths: a suite's plugin_path and output are relative to the suite file",
          "[cli][paths]") {
  // Regression: from another directory the suite's plugin_path was not found and the
  // error said only `unknown engine`.
  ScratchDir dir;
  const auto suite = write_suite(dir, "plugin_path = \"../plugins\"\nwork_dir = \"work\"");
  const auto validated = cli({"validate", suite.string()});
  INFO(validated.out << validated.err);
  REQUIRE(validated.code == 0);
  CHECK(contains(validated.out, "output: " + (dir / "suites/build/bench-kv.json").string()));

  const auto ran = cli({"run", suite.string()});
  INFO(ran.out << ran.err);
  CHECK(ran.code == 0);
  CHECK(std::filesystem::exists(dir / "suites/build/bench-kv.json"));
}

TEST_CASE("cli paths: a plugin directory the suite names that does not exist is an error",
          "[cli][paths]") {
  // Regression: a typo'd plugin_path was a warning, and the run measured the plugins
  // found elsewhere on the path (the built-in ones) with exit 0.
  ScratchDir dir;
  const auto suite = write_suite(dir, "plugin_path = [\"../plugins\", \"nowhere\"]");
  const std::string missing = (dir / "suites/nowhere").string();
  for (const char* command : {"validate", "run"}) {
    const auto result = cli({command, suite.string()});
    INFO(command << ": " << result.err);
    CHECK(result.code == 2);
    CHECK(contains(result.err,
                   suite.string() + ":3:30: plugin directory \"" + missing + "\" does not exist"));
    CHECK_FALSE(std::filesystem::exists(dir / "suites/build/bench-kv.json"));
  }
}

TEST_CASE("cli paths: --plugin-path=DIR that does not exist is an error", "[cli][paths]") {
  ScratchDir dir;
  const auto suite = write_suite(dir, "plugin_path = \"../plugins\"");
  const auto validated = cli({"validate", suite.string(), "--plugin-path=nonexist-dir"});
  INFO(validated.err);
  CHECK(validated.code == 2);
  CHECK(contains(validated.err, "--plugin-path: plugin directory \"nonexist-dir\" ("));
  const auto listed = cli({"list", "--plugin-path=nonexist-dir", "--format=json"});
  CHECK(listed.code == 2);
  CHECK(contains(listed.err, "--plugin-path: plugin directory \"nonexist-dir\""));
  CHECK(listed.out.empty());
}

TEST_CASE("cli paths: ab --base=DIR that does not exist names --base", "[cli][paths]") {
  ScratchDir dir;
  const auto suite = write_suite(dir, "plugin_path = \"../plugins\"");
  const auto ab = cli({"ab", suite.string(), "--base=/nonexistent-storh-dir", "--pairs=2"});
  INFO(ab.err);
  CHECK(ab.code == 2);
  CHECK(contains(ab.err, "--base: plugin directory \"/nonexistent-storh-dir\" does not exist"));
  CHECK_FALSE(contains(ab.err, "--plugin-path"));
}

TEST_CASE("cli paths: ci finds the suite's baseline next to the suite", "[cli][paths][ci]") {
  // Regression: ci from another directory said to create a baseline that existed.
  ScratchDir dir;
  const auto suite =
      write_suite(dir, "plugin_path = \"../plugins\"\n[gate]\nbaseline = \"base/kv.json\"");
  const auto update = cli({"ci", suite.string(), "--update-baseline"});
  INFO(update.out << update.err);
  REQUIRE(update.code == 0);
  CHECK(std::filesystem::exists(dir / "suites/base/kv.json"));
  const auto gated = cli({"ci", suite.string()});
  INFO(gated.out << gated.err);
  CHECK(gated.code != 2);
  CHECK_FALSE(contains(gated.err, "create the baseline"));
}

TEST_CASE("cli paths: two plugins of one name warn with both files and the one used",
          "[cli][paths][loader]") {
  ScratchDir dir;
  const auto suite = write_suite(dir, "");
  std::filesystem::create_directories(dir / "second");
  std::filesystem::copy_file(misbehave_plugin(), dir / "second/storh_misbehave.so");
  const std::string first = (dir / "plugins").string(), second = (dir / "second").string();
  const auto validated =
      cli({"validate", suite.string(), "--plugin-path=" + first, "--plugin-path=" + second});
  INFO(validated.err);
  CHECK(validated.code == 0);
  CHECK(contains(validated.err, "warning: two plugins named \"misbehave\": using " + first +
                                    "/storh_misbehave.so (first on the plugin path), ignoring " +
                                    second + "/storh_misbehave.so"));
}

TEST_CASE("cli paths: an output in a directory that does not exist says it creates it, once",
          "[cli][paths]") {
  ScratchDir dir;
  const auto suite = write_suite(dir, "plugin_path = \"../plugins\"\nrepeat = 1");
  const auto output = dir / "new/deeper/r.json";
  const auto ran = cli({"run", suite.string(), "--output=" + output.string()});
  INFO(ran.out << ran.err);
  CHECK(ran.code == 0);
  CHECK(std::filesystem::exists(output));
  const std::string note = "creating directory " + (dir / "new").string() + " for ";
  REQUIRE(contains(ran.err, note));
  CHECK(ran.err.find(note) == ran.err.rfind(note));
  const auto again = cli({"run", suite.string(), "--output=" + output.string()});
  CHECK_FALSE(contains(again.err, "creating directory"));
}

TEST_CASE("cli paths: an output under /proc or /sys is refused before the run", "[cli][paths]") {
  // Regression: access(2) let root "write" there, validate passed, and the finished
  // run's result was lost at the end (exit 3, no report).
  ScratchDir dir;
  const auto suite = write_suite(dir, "plugin_path = \"../plugins\"");
  for (const std::string output : {"/proc/nope/x.json", "/sys/x.json"}) {
    for (const std::string command : {"validate", "run"}) {
      const auto run = cli(
          {command, suite.string(), "--output=" + output, "--work-dir=" + (dir / "work").string()});
      INFO(command << " " << output << ": " << run.out << run.err);
      CHECK(run.code == 2);
      CHECK(contains(run.err, output + ": cannot write into"));
    }
  }
  CHECK_FALSE(std::filesystem::exists(dir / "work"));
}

TEST_CASE("cli paths: a STORH_PLUGIN_PATH directory that does not exist is an error",
          "[cli][paths]") {
  // Regression: it was silently ignored, while --plugin-path=/nope exited 2.
  ScratchDir dir;
  const auto suite = write_suite(dir, "plugin_path = \"../plugins\"");
  ::setenv("STORH_PLUGIN_PATH", "/nonexistent-storh-env-dir", 1);
  const auto validated = cli({"validate", suite.string()});
  const auto listed = cli({"list"});
  ::unsetenv("STORH_PLUGIN_PATH");
  for (const auto& run : {validated, listed}) {
    INFO(run.out << run.err);
    CHECK(run.code == 2);
    CHECK(contains(run.err,
                   "$STORH_PLUGIN_PATH: plugin directory \"/nonexistent-storh-env-dir\" "
                   "does not exist"));
  }
}
