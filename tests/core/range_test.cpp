// Range output (one result file per dataset, engine and parameter combination, plus
// an index) and the report's rate-by-size section, on hand-built results and end to
// end through the CLI with the misbehave fixture plugin.
#include "range/range.h"

#include <algorithm>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "report/report.h"
#include "result/json.h"
#include "suite/parse.h"
#include "test_support.h"

using namespace storh;
using storh::test::contains;
using storh::test::ScratchDir;

namespace {

using storh::test::fixture_path_flag;

// A metric as the runner keys it: n qualifies when there are several datasets, then
// the one varying parameter.
result::Metric metric(const std::string& engine, const std::string& operation, std::uint64_t n,
                      std::vector<result::Param> params, const std::string& varying,
                      double median) {
  result::Metric m;
  m.engine = engine;
  m.operation = operation;
  m.dataset = n;
  std::string qualifier;
  for (const auto& [name, value] : params) {
    if (name == varying) qualifier = name + "=" + suite::param_value_text(value);
  }
  m.key = engine + "." + operation + "[n=" + std::to_string(n) + "," + qualifier + "]";
  m.params = std::move(params);
  m.unit = "records";
  m.samples = {{median, n}};
  m.seconds = {1, median, median, median, median, 0};
  m.rate = static_cast<double>(n) / median;
  return m;
}

// 2 datasets x 2 engines x 2 values of each engine's varying parameter. cache also
// has a fixed parameter (capacity) that must not reach the file names, and lists its
// validations as the matrix ran them: stat before hash.
result::ResultFile range_result() {
  result::ResultFile file;
  auto& e = file.experiment;
  e.suite = "range";
  e.fingerprint = "fedcba9876543210";
  e.datasets = {1000, 10000};
  e.engines = {{"cache", "1.0", "cache.so", {"cold", "warm"}},
               {"log", "1.0", "log.so", {"append"}}};
  e.params = {{"cache",
               {{"capacity", {std::int64_t{100}}},
                {"validation", {std::string("stat"), std::string("hash")}}}},
              {"log", {{"interval", {std::int64_t{64}, std::int64_t{128}}}}}};
  file.environment.time = "2026-11-30T03:22:07Z";
  file.environment.cpu_model = "test cpu";
  for (std::uint64_t n : e.datasets) {
    for (const char* validation : {"stat", "hash"}) {
      const std::vector<result::Param> params = {{"capacity", std::int64_t{100}},
                                                 {"validation", std::string(validation)}};
      file.metrics.push_back(
          metric("cache", "cold", n, params, "validation", 1e-6 * static_cast<double>(n)));
      file.metrics.push_back(
          metric("cache", "warm", n, params, "validation", 1e-7 * static_cast<double>(n)));
      file.runs.push_back({"cache", n, params, 0, true, 0.5, 1000, 0.01});
    }
    for (std::int64_t interval : {64, 128}) {
      const std::vector<result::Param> params = {{"interval", interval}};
      file.metrics.push_back(
          metric("log", "append", n, params, "interval", 2e-6 * static_cast<double>(n)));
      file.runs.push_back({"log", n, params, 0, true, 0.5, 1000, 0.01});
    }
  }
  std::sort(file.metrics.begin(), file.metrics.end(),
            [](const auto& a, const auto& b) { return a.key < b.key; });
  result::Failure failure;
  failure.engine = "cache";
  failure.dataset = 10000;
  failure.params = {{"capacity", std::int64_t{100}}, {"validation", std::string("hash")}};
  failure.repeat = 1;
  failure.operation = "warm";
  failure.kind = storh::result::Failure::Kind::crashed;
  failure.signal = 11;
  file.failures.push_back(failure);
  return file;
}

const range::RangeSlice& slice_named(const std::vector<range::RangeSlice>& slices,
                                     const std::string& file) {
  const auto at = std::find_if(slices.begin(), slices.end(),
                               [&](const range::RangeSlice& s) { return s.file == file; });
  REQUIRE(at != slices.end());
  return *at;
}

std::vector<std::string> keys_of(const result::ResultFile& file) {
  std::vector<std::string> keys;
  for (const auto& m : file.metrics) keys.push_back(m.key);
  return keys;
}

}  // namespace

TEST_CASE("range: one file per dataset, engine and varying value, in experiment order", "[range]") {
  auto slices = range::split_ranges(range_result());
  REQUIRE(slices.ok());
  std::vector<std::string> files;
  for (const auto& slice : *slices) files.push_back(slice.file);
  CHECK(files == std::vector<std::string>{"bench-1000-cache-stat.json",
                                          "bench-1000-cache-hash.json", "bench-1000-log-64.json",
                                          "bench-1000-log-128.json", "bench-10000-cache-stat.json",
                                          "bench-10000-cache-hash.json", "bench-10000-log-64.json",
                                          "bench-10000-log-128.json"});
  const auto& slice = slice_named(*slices, "bench-10000-log-128.json");
  CHECK(slice.dataset == 10000);
  CHECK(slice.engine == "log");
  CHECK(slice.params == std::vector<result::Param>{{"interval", std::int64_t{128}}});
}

TEST_CASE("range: a slice holds its own metrics, re-keyed without the fixed qualifiers",
          "[range]") {
  auto slices = range::split_ranges(range_result());
  REQUIRE(slices.ok());
  const result::ResultFile& file = slice_named(*slices, "bench-1000-cache-hash.json").result;
  CHECK(keys_of(file) == std::vector<std::string>{"cache.cold", "cache.warm"});
  for (const auto& m : file.metrics) {
    CHECK(m.dataset == 1000);
    CHECK(m.params[1].second == ParamValue(std::string("hash")));
  }
  CHECK(file.metrics[0].seconds.median == Approx(1e-3));
  CHECK(file.runs.size() == 1);
  CHECK(file.failures.empty());

  const result::ResultFile& failed = slice_named(*slices, "bench-10000-cache-hash.json").result;
  REQUIRE(failed.failures.size() == 1);
  CHECK(failed.failures[0].operation == "warm");
  CHECK(slice_named(*slices, "bench-10000-cache-stat.json").result.failures.empty());

  // The storh view of the slice: results.cache.cold, and the top-level keys name it.
  const nlohmann::ordered_json json = result::to_json(file);
  CHECK(json["dataset"] == 1000);
  CHECK(json["engine"] == "cache");
  CHECK(json["results"]["cache"].contains("cold"));
  CHECK(json["results"].size() == 1);
}

TEST_CASE("range: the experiment is narrowed to the slice, the environment is kept", "[range]") {
  const result::ResultFile combined = range_result();
  auto slices = range::split_ranges(combined);
  REQUIRE(slices.ok());
  const result::ResultFile& file = slice_named(*slices, "bench-10000-log-64.json").result;
  CHECK(file.experiment.datasets == std::vector<std::uint64_t>{10000});
  REQUIRE(file.experiment.engines.size() == 1);
  CHECK(file.experiment.engines[0].name == "log");
  REQUIRE(file.experiment.params.size() == 1);
  CHECK(file.experiment.params[0].second[0].second == std::vector<ParamValue>{std::int64_t{64}});
  CHECK(file.experiment.fingerprint == combined.experiment.fingerprint);
  CHECK(file.experiment.suite == "range");
  CHECK(result::to_json(file)["environment"] == result::to_json(combined)["environment"]);
}

TEST_CASE("range: file names keep values inside the directory, clashes are errors", "[range]") {
  CHECK(range::range_file_name(5, "x", {}) == "bench-5-x.json");
  CHECK(range::range_file_name(5, "x", {{"a", 1.5}, {"b", true}, {"c", std::string("../d e")}}) ==
        "bench-5-x-1.5-true-.._d_e.json");

  result::ResultFile file;
  file.experiment.datasets = {5};
  for (const char* value : {"a/b", "a_b"}) {
    result::Run run;
    run.engine = "x";
    run.dataset = 5;
    run.params = {{"path", std::string(value)}};
    file.runs.push_back(run);
  }
  auto slices = range::split_ranges(file);
  REQUIRE_FALSE(slices.ok());
  CHECK(slices.error() ==
        "range output: \"x n=5 path=a/b\" and \"x n=5 path=a_b\" would both be written to "
        "bench-5-x-a_b.json");
}

TEST_CASE("range: an engine that failed to load gets a file of its failures", "[range]") {
  result::ResultFile file = range_result();
  result::Failure load;
  load.engine = "queue";
  load.dataset = 1000;
  load.kind = storh::result::Failure::Kind::load;
  file.failures.push_back(load);
  file.experiment.engines.push_back({"queue", "", "", {}});
  auto slices = range::split_ranges(file);
  REQUIRE(slices.ok());
  CHECK(slices->size() == 9);
  CHECK(slice_named(*slices, "bench-1000-queue.json").result.failures.size() == 1);
}

TEST_CASE("range: written files are valid result files and the index lists them", "[range]") {
  ScratchDir dir;
  auto index = range::write_range_output(dir / "ranges", range_result());
  REQUIRE(index.ok());
  CHECK(*index == dir / "ranges" / "index.json");
  const auto json = nlohmann::json::parse(test::read_text(*index));
  CHECK(json["schema_version"] == 1);
  CHECK(json["layout"] == "range");
  CHECK(json["suite"] == "range");
  CHECK(json["fingerprint"] == "fedcba9876543210");
  REQUIRE(json["files"].size() == 8);
  const auto& first = json["files"][0];
  CHECK(first["file"] == "bench-1000-cache-stat.json");
  CHECK(first["dataset"] == 1000);
  CHECK(first["engine"] == "cache");
  CHECK(first["params"] == nlohmann::json{{"validation", "stat"}});
  CHECK(json["files"][3]["params"] == nlohmann::json{{"interval", 128}});

  for (const auto& entry : json["files"]) {
    const auto path = dir / "ranges" / entry["file"].get<std::string>();
    auto read = result::read_result_file(path);
    INFO(path);
    REQUIRE(read.ok());
    CHECK(result::to_json_text(*read) == test::read_text(path));
    CHECK(read->experiment.datasets[0] == entry["dataset"]);
  }
  // Deterministic: the same result writes the same bytes.
  const std::string before = test::read_text(*index);
  REQUIRE(range::write_range_output(dir / "ranges", range_result()).ok());
  CHECK(test::read_text(*index) == before);
}

TEST_CASE("range: suite key and --range-output choose the directory", "[range][suite]") {
  std::vector<suite::SuiteError> errors;
  auto parsed = suite::parse_suite("range_output = \"build/r\"\n[engines.doc]\n", "x.toml", errors);
  REQUIRE(parsed.has_value());
  CHECK(parsed->range_output == std::filesystem::path("build/r"));
  CHECK_FALSE(suite::parse_suite("[engines.doc]\n", "x.toml", errors)->range_output.has_value());

  suite::Overrides overrides;
  overrides.range_output = "elsewhere";
  REQUIRE(suite::apply_overrides(*parsed, overrides, errors));
  CHECK(parsed->range_output == std::filesystem::path("elsewhere"));

  CHECK_FALSE(suite::parse_suite("range_output = 3\n[engines.doc]\n", "x.toml", errors));
  CHECK(contains(errors.back().str(), "x.toml:1:16: \"range_output\" must be a non-empty string"));
}

TEST_CASE("report: a range result gets a rate-by-size table and a complexity per row",
          "[range][report]") {
  result::ResultFile file = range_result();
  // A third size, so rows can be fitted; warm[validation=stat] misses it.
  for (result::Metric m : range_result().metrics) {
    if (m.dataset != 1000 || m.key == "cache.warm[n=1000,validation=stat]") continue;
    m.dataset = 100000;
    m.key.replace(m.key.find("n=1000"), 6, "n=100000");
    m.seconds.median *= 100;
    file.metrics.push_back(m);
  }
  const std::string text = report::render_report(file, report::ReportFormat::text);
  INFO(text);
  CHECK(contains(text,
                 "  warm[n=100000,validation=hash]  10.00 ms  100.0 ns  10.0 M records/s\n"
                 "  rate by dataset size:\n"
                 "    operation                        n=1000           n=10000          n=100000  "
                 "complexity\n"
                 "    cold[validation=stat]  1.00 M records/s  1.00 M records/s  1.00 M records/s  "
                 "O(n)  err 0.0%\n"
                 "    cold[validation=hash]  1.00 M records/s  1.00 M records/s  1.00 M records/s  "
                 "O(n)  err 0.0%\n"
                 "    warm[validation=stat]  10.0 M records/s  10.0 M records/s                 -  "
                 "too few sizes\n"
                 "    warm[validation=hash]  10.0 M records/s  10.0 M records/s  10.0 M records/s  "
                 "O(n)  err 0.0%\n"
                 "[log]\n"));
  const std::string md = report::render_report(file, report::ReportFormat::markdown);
  INFO(md);
  CHECK(contains(md,
                 "### cache: rate by dataset size\n\n"
                 "| operation | n=1000 | n=10000 | n=100000 | complexity |\n"
                 "|---|---:|---:|---:|---|\n"
                 "| cold[validation=stat] | 1.00 M records/s | 1.00 M records/s | 1.00 M records/s "
                 "| O(n)  err 0.0% |\n"));
  CHECK(contains(md,
                 "| warm[validation=stat] | 10.0 M records/s | 10.0 M records/s | - | "
                 "too few sizes |\n"));
  CHECK(contains(md,
                 "| warm[validation=hash] | 10.0 M records/s | 10.0 M records/s | 10.0 M records/s "
                 "| O(n)  err 0.0% |\n\n## log\n"));
}

TEST_CASE("range: end to end, a run writes the range files and report shows rate per size",
          "[range][cli]") {
  ScratchDir dir;
  const auto ranges = dir / "bench-ranges";
  const auto combined = dir / "combined.json";
  test::write_text(dir / "range.toml",
                   "name = \"range\"\n"
                   "datasets = [10, 20]\n"
                   "range_output = \"" +
                       ranges.string() +
                       "\"\n"
                       "[engines.misbehave.params]\n"
                       "behaviour = \"ok\"\n"
                       "items = [5, 6]\n");
  const auto run =
      test::cli({(dir / "range.toml").string(), fixture_path_flag, "--output=" + combined.string(),
                 "--work-dir=" + (dir / "work").string()});
  INFO(run.out << run.err);
  REQUIRE(run.code == 0);
  CHECK(contains(run.out, "result: " + combined.string() +
                              "\nrange: " + (ranges / "index.json").string() + "\n"));

  const auto index = nlohmann::json::parse(test::read_text(ranges / "index.json"));
  std::vector<std::string> files;
  for (const auto& entry : index["files"]) files.push_back(entry["file"]);
  CHECK(files == std::vector<std::string>{"bench-10-misbehave-5.json", "bench-10-misbehave-6.json",
                                          "bench-20-misbehave-5.json",
                                          "bench-20-misbehave-6.json"});
  CHECK(index["files"][2]["params"] == nlohmann::json{{"items", 5}});

  auto slice = result::read_result_file(ranges / "bench-20-misbehave-6.json");
  REQUIRE(slice.ok());
  CHECK(keys_of(*slice) ==
        std::vector<std::string>{"misbehave.first", "misbehave.latency", "misbehave.second"});
  CHECK(slice->metrics[0].dataset == 20);
  CHECK(slice->runs.size() == 1);

  const auto report = test::cli({"report", combined.string()});
  CHECK(report.code == 0);
  CHECK(contains(report.out, "  rate by dataset size:\n    operation"));
  CHECK(contains(report.out, "n=10"));
  CHECK(contains(report.out, "n=20"));
  CHECK(contains(report.out, "    first[items=5] "));
  CHECK(contains(report.out, "too few sizes"));
  // A slice has one dataset: its report is the plain one.
  const auto plain = test::cli({"report", (ranges / "bench-10-misbehave-5.json").string()});
  CHECK(plain.code == 0);
  CHECK_FALSE(contains(plain.out, "rate by dataset size"));
}
