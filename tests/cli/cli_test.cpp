// End to end through run_cli: suites in, result files and reports out, with workers
// as real processes of the built storh-host.
#include <sstream>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "result/json.h"
#include "test_support.h"

using storh::test::cli;
using storh::test::contains;
using storh::test::metric;
using storh::test::ScratchDir;

namespace {

const std::string fixture_suites = std::string(STORH_TEST_SOURCE_DIR) + "/tests/fixtures/suites/";
using storh::test::fixture_path_flag;

using storh::test::read_json;

const nlohmann::json* failure_for(const nlohmann::json& result, const std::string& behaviour) {
  for (const nlohmann::json& f : result["failures"]) {
    if (f["params"]["behaviour"] == behaviour) return &f;
  }
  return nullptr;
}

// The containment suite with one passing and one failing cell; returns its result file.
std::filesystem::path ok_and_failed_result(const ScratchDir& dir) {
  auto output = dir / "r.json";
  const auto run = cli({fixture_suites + "containment.toml", fixture_path_flag,
                        "--output=" + output.string(), "--set=misbehave.behaviour=ok,fail"});
  INFO(run.out << run.err);
  REQUIRE(run.code == 3);
  return output;
}

}  // namespace

TEST_CASE("cli: each misbehaving worker becomes a failure record and the others still run",
          "[cli][containment]") {
  ScratchDir dir;
  const auto output = dir / "containment.json";
  const auto run = cli({fixture_suites + "containment.toml", fixture_path_flag,
                        "--output=" + output.string(), "--work-dir=" + (dir / "work").string()});
  INFO(run.out << run.err);
  CHECK(run.code == 3);
  REQUIRE(std::filesystem::exists(output));
  const nlohmann::json result = read_json(output);
  CHECK(result["interrupted"] == false);
  REQUIRE(result["failures"].size() == 6);

  const nlohmann::json* crash = failure_for(result, "crash");
  REQUIRE(crash != nullptr);
  CHECK((*crash)["kind"] == "crashed");
  CHECK((*crash)["signal"] == 11);
  CHECK((*crash)["operation"] == "second");
  CHECK(contains((*crash)["stderr_tail"].get<std::string>(), "misbehave: first done, now crash"));

  const nlohmann::json* hang = failure_for(result, "hang");
  REQUIRE(hang != nullptr);
  CHECK((*hang)["kind"] == "timeout");
  CHECK((*hang)["operation"] == "second");

  const nlohmann::json* oom = failure_for(result, "oom");
  REQUIRE(oom != nullptr);
  CHECK((*oom)["kind"] == "memory");
  CHECK(contains((*oom)["message"].get<std::string>(), "memory limit"));

  const nlohmann::json* fail = failure_for(result, "fail");
  REQUIRE(fail != nullptr);
  CHECK((*fail)["kind"] == "failed");
  CHECK((*fail)["message"] == "second: counted 3 rows, expected 4");
  CHECK((*fail)["exit_code"] == 1);

  const nlohmann::json* thrown = failure_for(result, "throw");
  REQUIRE(thrown != nullptr);
  CHECK((*thrown)["kind"] == "failed");
  CHECK((*thrown)["message"] == "second: engine threw");

  const nlohmann::json* exited = failure_for(result, "exit");
  REQUIRE(exited != nullptr);
  CHECK((*exited)["kind"] == "exit");
  CHECK((*exited)["exit_code"] == 7);

  // The healthy cell has every operation; failed cells keep what finished before.
  const nlohmann::json& flat = result["results"]["misbehave"];
  CHECK(flat.contains("second[behaviour=ok]"));
  CHECK(flat.contains("latency[behaviour=ok]"));
  CHECK(flat.contains("first[behaviour=crash]"));
  CHECK_FALSE(flat.contains("second[behaviour=crash]"));
  // A failed step never reports a time.
  CHECK_FALSE(flat.contains("second[behaviour=fail]"));

  // Work directories are removed after the suite.
  CHECK(std::filesystem::is_empty(dir / "work"));
  CHECK(contains(run.out, "[misbehave]"));
  CHECK(contains(run.out, "crashed"));
}

TEST_CASE("cli: a worker that grows past its memory limit as its timeout expires ran out of memory",
          "[cli][containment]") {
  // Once seen on a busy machine: the timer fired first and the cell was called a
  // timeout. This worker catches the timeout's SIGTERM and grows past its limit in the
  // grace period before the SIGKILL.
  ScratchDir dir;
  storh::test::write_text(dir / "late.toml",
                          "name = \"late_oom\"\ndatasets = [100]\nrepeat = 1\ntimeout = \"1s\"\n"
                          "memory_limit = \"64M\"\n[engines.misbehave.params]\n"
                          "behaviour = [\"oom_after_timeout\"]\n");
  const auto output = dir / "late.json";
  const auto run = cli({(dir / "late.toml").string(), fixture_path_flag,
                        "--output=" + output.string(), "--work-dir=" + (dir / "work").string()});
  INFO(run.out << run.err);
  CHECK(run.code == 3);
  const nlohmann::json result = read_json(output);
  const nlohmann::json* late = failure_for(result, "oom_after_timeout");
  REQUIRE(late != nullptr);
  CHECK((*late)["kind"] == "memory");
  CHECK(contains((*late)["message"].get<std::string>(), "exceeded the memory limit"));
  // Whether the timer had fired too depends on the build: under ASan the worker's own
  // footprint passes 64 MiB before the timeout. The order is fixed in process_test.cpp's
  // "a child that grows past its limit after its timeout ran out of memory".
}

TEST_CASE("cli: per-item latencies are summarised with only the percentiles the count supports",
          "[cli]") {
  ScratchDir dir;
  const auto output = dir / "latency.json";
  const auto run =
      cli({fixture_suites + "containment.toml", fixture_path_flag, "--output=" + output.string(),
           "--set", "misbehave.behaviour=ok", "--set", "misbehave.items=150", "--repeat=2"});
  INFO(run.out << run.err);
  REQUIRE(run.code == 0);
  const nlohmann::json result = read_json(output);
  const nlohmann::json& latency = metric(result, "misbehave.latency");
  CHECK(latency["samples"].size() == 2);
  CHECK(latency["latency"]["count"] == 300);
  CHECK(latency["latency"]["p99"].is_number());
  CHECK(latency["latency"]["p99_9"].is_null());
  CHECK(result["runs"].size() == 2);
  CHECK(result["runs"][0]["peak_rss_bytes"].get<std::uint64_t>() > 0);
}

TEST_CASE("cli: the result file reads back and the report is a function of it", "[cli][report]") {
  ScratchDir dir;
  const auto output = ok_and_failed_result(dir);
  auto parsed = storh::result::read_result_file(output);
  REQUIRE(parsed.ok());
  // Writing what was read gives the same bytes.
  CHECK(storh::result::to_json_text(*parsed) == storh::test::read_text(output));

  const auto text = cli({"report", output.string()});
  CHECK(text.code == 0);
  CHECK(contains(text.out, "[misbehave]"));
  const auto md = cli({"report", output.string(), "--format=md"});
  CHECK(md.code == 0);
  CHECK(contains(md.out, "|"));
  CHECK(cli({"report", output.string()}).out == text.out);

  // Regression: report knew only text and md.
  const auto csv = cli({"report", output.string(), "--format=csv"});
  CHECK(csv.code == 0);
  CHECK(csv.out.starts_with("key,engine,operation,dataset,params,unit,direction,runs,"));
  CHECK(contains(csv.out, "\nmisbehave.first"));
  const auto json = cli({"report", output.string(), "--format=json"});
  CHECK(json.code == 0);
  CHECK(json.out == storh::test::read_text(output));  // already normalised
  CHECK(cli({"report", output.string(), "--format=xml"}).code == 2);
}

TEST_CASE("cli: report --format=html writes one page with -o, or says why it cannot",
          "[cli][report][html]") {
  ScratchDir dir;
  const auto output = ok_and_failed_result(dir);

  // A stand-in for Debian's libjs-chart.js, so that this test does not need it.
  const auto chart_js = dir / "chart.min.js";
  storh::test::write_text(chart_js, "/*!\n * Chart.js v3.9.1\n */\nwindow.Chart = null;\n");
  ::setenv("STORH_CHARTJS", chart_js.c_str(), 1);
  const auto page = dir / "pages" / "report.html";  // missing directories are created
  const auto html = cli({"report", output.string(), "--format=html", "-o", page.string()});
  CHECK(html.code == 0);
  CHECK(html.out == "report: " + page.string() + "\n");
  const std::string text = storh::test::read_text(page);
  CHECK(text.starts_with("<!DOCTYPE html>"));
  CHECK(contains(text, "<h2>misbehave</h2>"));
  CHECK(contains(text, "<h2>Failures (1)</h2>"));
  CHECK(contains(text, "window.Chart = null;"));
  // --output= is the same as -o, and text formats can be written to a file too.
  const auto md = dir / "report.md";
  CHECK(cli({"report", output.string(), "--format=md", "--output=" + md.string()}).code == 0);
  CHECK(storh::test::read_text(md) == cli({"report", output.string(), "--format=md"}).out);

  // A device is not overwritten, and the run's result is never touched.
  const auto device = cli({"report", output.string(), "--format=html", "-o", "/dev/null"});
  CHECK(device.code == 2);
  CHECK(contains(device.err, "storh-host report: --output: /dev/null"));

  // No Chart.js: exit 2, the path, and how to install it.
  ::setenv("STORH_CHARTJS", (dir / "nowhere.js").c_str(), 1);
  const auto missing = cli({"report", output.string(), "--format=html"});
  ::unsetenv("STORH_CHARTJS");
  CHECK(missing.code == 2);
  CHECK(contains(missing.err, "nowhere.js: Chart.js not found"));
  CHECK(contains(missing.err, "libjs-chart.js"));
  const auto unknown = cli({"report", output.string(), "--format=pdf"});
  CHECK(unknown.code == 2);
  CHECK(contains(unknown.err,
                 "(valid: text, md, csv, csv-intervals, json, html, bmf, github-action-benchmark, "
                 "github-action-benchmark-bigger)"));
}

TEST_CASE("cli: the result records the command line, the host name and the suite's commit",
          "[cli][report]") {
  // Regression: a result file did not say how it was run, where, or from which commit.
  ScratchDir dir;
  const auto output = dir / "r.json";
  const std::vector<std::string> args = {fixture_suites + "containment.toml", fixture_path_flag,
                                         "--output=" + output.string(),
                                         "--set=misbehave.behaviour=ok"};
  const auto run = cli(args);
  INFO(run.out << run.err);
  REQUIRE(run.code == 0);
  const nlohmann::json experiment = read_json(output)["experiment"];
  std::vector<std::string> expected = {"storh-host", "run"};
  expected.insert(expected.end(), args.begin(), args.end());
  CHECK(experiment["command_line"] == expected);
  CHECK_FALSE(experiment["hostname"].get<std::string>().empty());
  // The suite lives in this source tree: a git checkout, unless built from an archive.
  if (std::filesystem::exists(std::string(STORH_TEST_SOURCE_DIR) + "/.git")) {
    REQUIRE(experiment["git_commit"].is_string());
    CHECK(experiment["git_commit"].get<std::string>().size() == 40);
  }
}

TEST_CASE("cli: a corrupt or foreign result file is an error, not a crash", "[cli][report]") {
  ScratchDir dir;
  storh::test::write_text(dir / "bad.json", "{\"schema_version\": 1, \"metrics\": [");
  auto run = cli({"report", (dir / "bad.json").string()});
  CHECK(run.code == 2);
  CHECK(contains(run.err, "bad.json: not valid JSON"));

  storh::test::write_text(dir / "old.json",
                          R"({"dataset": 1000, "results": {"doc": {"put": 0.4}}})");
  run = cli({"report", (dir / "old.json").string()});
  CHECK(run.code == 2);
  CHECK(contains(run.err,
                 "not a result file: no schema_version (storh-host), and no context and "
                 "benchmarks (Google Benchmark)"));

  storh::test::write_text(dir / "typed.json", R"({"schema_version": 1, "interrupted": "no"})");
  run = cli({"report", (dir / "typed.json").string()});
  CHECK(run.code == 2);
  CHECK(contains(run.err, "/interrupted: expected true or false, got string"));

  run = cli({"report", (dir / "missing.json").string()});
  CHECK(run.code == 2);
  CHECK(contains(run.err, "missing.json: cannot open"));
}

TEST_CASE("cli: validate names file, line and column of a bad suite", "[cli][suite]") {
  ScratchDir dir;
  storh::test::write_text(dir / "typo.toml", "name = \"x\"\n[engines.misbehav]\n");
  auto run = cli({"validate", (dir / "typo.toml").string(), fixture_path_flag});
  CHECK(run.code == 2);
  CHECK(contains(run.err, "typo.toml:2:"));
  CHECK(contains(run.err, "unknown engine \"misbehav\""));
  CHECK(contains(run.err, "misbehave"));

  storh::test::write_text(dir / "value.toml",
                          "[engines.misbehave.params]\nbehaviour = \"explode\"\n");
  run = cli({"validate", (dir / "value.toml").string(), fixture_path_flag});
  CHECK(run.code == 2);
  CHECK(contains(run.err, "value.toml:2:"));
  CHECK(contains(run.err, "crash"));  // the allowed values are listed

  run = cli({"validate", fixture_suites + "containment.toml", fixture_path_flag});
  CHECK(run.code == 0);
  CHECK(contains(run.out, "7 cell(s)"));
}

TEST_CASE("cli: list shows plugins and names every refused one", "[cli][loader]") {
  auto run = cli({"list", fixture_path_flag});
  CHECK(run.code == 3);  // crash_on_load cannot be described
  CHECK(contains(run.out, "misbehave 1.0.0"));
  CHECK(contains(run.out, "behaviour"));
  CHECK(contains(run.err, "storh_crash_on_load.so"));
  CHECK(contains(run.err, "signal 11"));

  run = cli({"list", std::string("--plugin-path=") + STORH_TEST_FIXTURE_DIR + "/refused"});
  CHECK(run.code == 3);
  CHECK(contains(run.err, "check \"ABI major\" failed"));
  CHECK(contains(run.err, "check \"toolchain\" failed"));
  CHECK(contains(run.err, "no storh_plugin_manifest symbol"));
  CHECK(contains(run.err, "undefined symbol"));
}

TEST_CASE("cli: list shows each plugin's build", "[cli][loader][build]") {
  const auto run = cli({"list", fixture_path_flag});
  CHECK(contains(run.out, "build: "));
  CHECK(contains(run.out, "unoptimized 1.0.0"));
  CHECK(contains(run.out, ", NOT optimized, "));
  // An ABI 1.1 plugin has no build record; the host still hashes its file.
  CHECK(contains(run.out,
                 "build: unknown, optimization unknown, unknown, flags \"unknown\", "
                 "file hash "));

  const auto json = cli({"list", fixture_path_flag, "--format=json"});
  bool found = false;
  for (const nlohmann::json& plugin : nlohmann::json::parse(json.out)) {
    if (plugin["name"] != "unoptimized") continue;
    found = true;
    CHECK(plugin["manifest"]["optimized"] == false);
    CHECK(plugin["file_hash"].get<std::string>().size() == 16);
  }
  CHECK(found);
}

TEST_CASE("cli: an unoptimised plugin is recorded and warned about in the run, report and compare",
          "[cli][build]") {
#if defined(__SANITIZE_ADDRESS__)
  WARN("sanitizer build: every plugin is a Debug build, so an unoptimised one is not singled out");
  return;
#endif
  ScratchDir dir;
  storh::test::write_text(dir / "s.toml", "datasets = [5]\n[engines.unoptimized]\n");
  const auto output = dir / "o.json";
  const auto run =
      cli({(dir / "s.toml").string(), fixture_path_flag, "--output=" + output.string()});
  INFO(run.out << run.err);
  REQUIRE(run.code == 0);
  const std::string plugin_file = std::string(STORH_TEST_FIXTURE_DIR) + "/storh_unoptimized.so";
  const std::string warning =
      "plugin \"unoptimized\" is a debug build: its timings are not representative (not "
      "optimized; file " +
      plugin_file + ")";
  CHECK(contains(run.err, "warning: " + warning));
  CHECK(contains(run.out, "warning: " + warning));  // the report

  const nlohmann::json result = read_json(output);
  const nlohmann::json& build = result["experiment"]["engines"][0]["build"];
  CHECK(build["optimized"] == false);
  CHECK(build["type"] != "unknown");
  CHECK(build["file_hash"].get<std::string>().size() == 16);
  bool recorded = false;
  for (const nlohmann::json& w : result["environment"]["warnings"]) {
    recorded = recorded || contains(w.get<std::string>(), warning);
  }
  CHECK(recorded);

  const auto report = cli({"report", output.string()});
  CHECK(contains(report.out, "plugin: engine=unoptimized build="));
  CHECK(contains(report.out, "optimized=no"));
  CHECK(contains(cli({"report", output.string(), "--format=md"}).out, "## Plugin builds"));

  const auto compared = cli({"compare", output.string(), output.string()});
  CHECK(contains(compared.err, "warning: " + output.string() + ": " + warning));
}

TEST_CASE("cli: a plugin that crashes while loading fails its cells, not the run", "[cli]") {
  ScratchDir dir;
  storh::test::write_text(dir / "s.toml",
                          "datasets = [5]\n[engines.crash_on_load]\n[engines.misbehave]\n");
  const auto run =
      cli({(dir / "s.toml").string(), fixture_path_flag, "--output=" + (dir / "o.json").string()});
  INFO(run.out << run.err);
  CHECK(run.code == 3);
  const nlohmann::json result = read_json(dir / "o.json");
  REQUIRE(result["failures"].size() == 1);
  CHECK(result["failures"][0]["engine"] == "crash_on_load");
  CHECK(result["failures"][0]["kind"] == "load");
  CHECK(result["results"]["misbehave"].contains("first"));
}

TEST_CASE("cli: help, version and bad arguments", "[cli]") {
  for (const char* command : {"run", "validate", "list", "report"}) {
    const auto run = cli({command, "--help"});
    CHECK(run.code == 0);
    CHECK(contains(run.out, std::string("Usage: storh-host ") +
                                (std::string(command) == "run" ? "[run]" : command)));
  }
  CHECK(cli({"--help"}).code == 0);
  CHECK(contains(cli({"--version"}).out, "storh-host "));
  auto run = cli({"frobnicate"});
  CHECK(run.code == 2);
  CHECK(contains(run.err, "unknown command \"frobnicate\""));
  run = cli({"run", fixture_suites + "containment.toml", "--repeats=3"});
  CHECK(run.code == 2);
  CHECK(contains(run.err, "unknown option \"--repeats=3\""));
  CHECK(contains(run.err, "--repeat=..."));
  CHECK(contains(run.err, "; did you mean \"--repeat\"?"));
  const auto gate = cli({"gate", "a.json", "b.json", "--treshold=5"});
  CHECK(gate.code == 2);
  CHECK(contains(gate.err, "did you mean \"--threshold\"?"));
  CHECK(cli({}).code == 2);
}

TEST_CASE("cli: list keeps a plugin's columns in line past long names", "[cli][loader]") {
  // Regression: doc's indexed_range_ordered_desc_first (32 characters) pushed its unit
  // and description out of line with every other row.
  const auto run = cli({"list", std::string("--plugin-path=") + STORH_TEST_PLUGIN_DIR});
  REQUIRE(run.code == 0);
  std::size_t long_unit = std::string::npos, short_unit = std::string::npos;
  std::istringstream lines(run.out);
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with("    indexed_range_ordered_desc_first ")) long_unit = line.find("queries");
    if (line.starts_with("    indexed_range_ordered_desc ")) short_unit = line.find("queries");
  }
  REQUIRE(long_unit != std::string::npos);
  CHECK(long_unit == short_unit);
}
