// Google Benchmark files (foreign/google_benchmark.h) read by report, compare, gate and
// history: the fixtures are a real binary's output (tests/fixtures/gbench, written by
// regenerate.sh from gbench_fixture.cpp), so the reader is held to what Google
// Benchmark actually writes; the refusals use small files made here.
#include <catch2/catch.hpp>

#include <cmath>

#include <nlohmann/json.hpp>

#include "compare/comparable.h"
#include "compare_fixtures.h"
#include "foreign/google_benchmark.h"

namespace test = storh::test;
using storh::test::contains;

namespace {

const storh::result::Metric& gbench_metric(const storh::result::ResultFile& file,
                                           const std::string& key) {
  for (const auto& metric : file.metrics) {
    if (metric.key == key) return metric;
  }
  throw std::runtime_error("no metric " + key);
}

// The error from_google_benchmark gives for `text`, or "" when it reads.
std::string gbench_error(const std::string& text) {
  auto read = storh::foreign::from_google_benchmark(nlohmann::json::parse(text), "gb.json");
  return read ? "" : read.error();
}

bool near(double a, double b) {
  return std::abs(a - b) <= 1e-12 * std::max(1.0, std::abs(b));
}

}  // namespace

TEST_CASE("google benchmark: each instance of a real file is a real-time and a CPU-time metric",
          "[gbench]") {
  const storh::result::ResultFile file = test::read_fixture_result("gbench/base.json");
  const nlohmann::json raw = test::read_json(test::fixture_file("gbench/base.json"));
  std::vector<std::string> keys;
  for (const auto& metric : file.metrics) keys.push_back(metric.key);
  CHECK(keys == std::vector<std::string>{
                    "BM_string_copy", "BM_string_copy[cpu_time]", "BM_sort/8",
                    "BM_sort/8[cpu_time]", "BM_sort/64", "BM_sort/64[cpu_time]", "BM_sort/512",
                    "BM_sort/512[cpu_time]", "BM_accumulate/1024", "BM_accumulate/1024[cpu_time]",
                    "BM_accumulate/4096", "BM_accumulate/4096[cpu_time]", "BM_vector_fill",
                    "BM_vector_fill[cpu_time]"});

  // The repetitions are the samples, in seconds per iteration, whatever the time_unit.
  std::vector<double> real, cpu;
  std::vector<std::uint64_t> iterations;
  double vector_fill_first = 0;
  for (const auto& entry : raw["benchmarks"]) {
    if (entry["run_name"] == "BM_sort/64" && entry["run_type"] == "iteration") {
      real.push_back(entry["real_time"].get<double>() * 1e-9);
      cpu.push_back(entry["cpu_time"].get<double>() * 1e-9);
      iterations.push_back(entry["iterations"].get<std::uint64_t>());
    }
    if (entry["name"] == "BM_vector_fill" && vector_fill_first == 0) {
      CHECK(entry["time_unit"] == "us");
      vector_fill_first = entry["real_time"].get<double>() * 1e-6;
    }
  }
  const auto& sort = gbench_metric(file, "BM_sort/64");
  const auto& sort_cpu = gbench_metric(file, "BM_sort/64[cpu_time]");
  REQUIRE(sort.samples.size() == 3);
  REQUIRE(sort_cpu.samples.size() == 3);
  for (std::size_t i = 0; i < 3; ++i) {
    CHECK(near(sort.samples[i].seconds, real[i]));
    CHECK(near(sort_cpu.samples[i].seconds, cpu[i]));
    CHECK(sort.samples[i].calls == iterations[i]);
    CHECK(sort.samples[i].items == 1);
  }
  CHECK(sort.seconds.runs == 3);
  CHECK(sort.unit == "iterations");
  CHECK(sort.direction == storh::result::MetricDirection::lower_is_better);
  CHECK(sort.engine == "gbench_fixture");
  CHECK(near(gbench_metric(file, "BM_vector_fill").samples[0].seconds, vector_fill_first));

  // User and rate counters, on the real-time metric only.
  const auto& accumulate = gbench_metric(file, "BM_accumulate/4096");
  REQUIRE(accumulate.counters.size() == 2);
  CHECK(accumulate.counters[0].first == "bytes_per_second");
  CHECK(accumulate.counters[1] == std::pair<std::string, double>{"elements", 4096});
  CHECK(gbench_metric(file, "BM_accumulate/4096[cpu_time]").counters.empty());
  CHECK(gbench_metric(file, "BM_sort/8").counters.front().first == "items_per_second");
}

TEST_CASE("google benchmark: the context is the environment", "[gbench]") {
  const storh::result::ResultFile file = test::read_fixture_result("gbench/base.json");
  const nlohmann::json context = test::read_json(test::fixture_file("gbench/base.json"))["context"];
  CHECK(file.experiment.hostname == context["host_name"]);
  CHECK(file.experiment.suite == "gbench_fixture");
  CHECK(file.experiment.command_line == std::vector<std::string>{context["executable"]});
  CHECK(file.environment.cpu_count == context["num_cpus"]);
  CHECK(contains(file.environment.cpu_model, " MHz"));
  CHECK(file.environment.build_type == context["library_build_type"]);
  CHECK(file.experiment.repeat == 3);
  REQUIRE(file.experiment.engines.size() == 1);
  CHECK(file.experiment.engines[0].version == context.value("library_version", "unknown"));
  CHECK(file.environment.time.size() == 20);
  CHECK(file.environment.time.back() == 'Z');
  // Two runs of one binary measured the same benchmarks.
  CHECK(file.experiment.fingerprint ==
        test::read_fixture_result("gbench/new.json").experiment.fingerprint);
}

TEST_CASE("google benchmark: dates, caches and warnings of the context", "[gbench]") {
  auto read = storh::foreign::from_google_benchmark(nlohmann::json::parse(R"({
    "context": {"date": "2026-12-04T00:30:00+01:30", "executable": "/x/bench_io",
                "mhz_per_cpu": 3000, "cpu_scaling_enabled": true,
                "caches": [{"type": "Data", "level": 1, "size": 32768, "num_sharing": 1},
                           {"type": "Unified", "level": 3, "size": 33554432, "num_sharing": 8}],
                "library_build_type": "release", "library_version": "v1.8.3"},
    "benchmarks": []})"),
                                                    "gb.json");
  REQUIRE(read);
  CHECK(read->environment.time == "2026-12-03T23:00:00Z");
  CHECK(read->environment.cpu_model == "3000 MHz, L1 Data 32 KiB, L3 Unified 32 MiB");
  CHECK(read->experiment.engines[0].name == "bench_io");
  CHECK(read->experiment.engines[0].version == "v1.8.3");
  REQUIRE(read->environment.warnings.size() == 1);
  CHECK(contains(read->environment.warnings[0], "CPU frequency scaling"));
  // An older local time without an offset is kept as written.
  read = storh::foreign::from_google_benchmark(
      nlohmann::json::parse(R"({"context": {"date": "2019-05-01 10:00:00"}, "benchmarks": []})"),
      "gb.json");
  REQUIRE(read);
  CHECK(read->environment.time == "2019-05-01 10:00:00");
}

TEST_CASE("google benchmark: a run without repetitions is one sample per metric", "[gbench]") {
  const storh::result::ResultFile file = test::read_fixture_result("gbench/single.json");
  CHECK(file.metrics.size() == 14);
  for (const auto& metric : file.metrics) {
    CHECK(metric.samples.size() == 1);
    CHECK(metric.seconds.median == metric.samples[0].seconds);
  }
}

TEST_CASE("google benchmark: aggregates alone give the median, mean and stddev", "[gbench]") {
  nlohmann::json raw = test::read_json(test::fixture_file("gbench/base.json"));
  nlohmann::json aggregates = nlohmann::json::array();
  for (const auto& entry : raw["benchmarks"]) {
    if (entry["run_type"] == "aggregate") aggregates.push_back(entry);
  }
  raw["benchmarks"] = aggregates;
  auto read = storh::foreign::from_google_benchmark(raw, "aggregates.json");
  REQUIRE(read);
  const auto& sort = gbench_metric(*read, "BM_sort/8");
  CHECK(sort.samples.empty());
  CHECK(sort.seconds.runs == 3);
  for (const auto& entry : aggregates) {
    if (entry["run_name"] != "BM_sort/8") continue;
    const double seconds = entry["real_time"].get<double>() * 1e-9;
    if (entry["aggregate_name"] == "median") CHECK(near(sort.seconds.median, seconds));
    if (entry["aggregate_name"] == "mean") CHECK(near(sort.seconds.mean, seconds));
    if (entry["aggregate_name"] == "stddev") CHECK(near(sort.seconds.stddev, seconds));
  }
  CHECK(gbench_metric(*read, "BM_accumulate/1024").counters.size() == 2);
}

TEST_CASE("google benchmark: a benchmark that reported an error is a failure", "[gbench]") {
  auto read = storh::foreign::from_google_benchmark(nlohmann::json::parse(R"({
    "context": {"executable": "b"},
    "benchmarks": [
      {"name": "BM_ok", "run_type": "iteration", "iterations": 10, "real_time": 5,
       "cpu_time": 4, "time_unit": "ms"},
      {"name": "BM_bad", "run_type": "iteration", "error_occurred": true,
       "error_message": "disk full", "iterations": 0, "real_time": 0, "cpu_time": 0,
       "time_unit": "ns"},
      {"name": "BM_ok_BigO", "run_name": "BM_ok", "run_type": "aggregate",
       "aggregate_name": "BigO", "cpu_coefficient": 1, "real_coefficient": 1, "big_o": "N"}]})"),
                                                    "gb.json");
  REQUIRE(read);
  REQUIRE(read->metrics.size() == 2);
  CHECK(read->metrics[0].seconds.median == 0.005);
  REQUIRE(read->failures.size() == 1);
  CHECK(read->failures[0].operation == "BM_bad");
  CHECK(read->failures[0].message == "disk full");
}

TEST_CASE("google benchmark: a file of the wrong shape names the file and what is wrong",
          "[gbench]") {
  CHECK(gbench_error(R"({"benchmarks": []})") ==
        "gb.json: not a Google Benchmark file: no \"context\" object (a Google Benchmark file "
        "has \"context\" and \"benchmarks\")");
  CHECK(contains(gbench_error(R"({"context": {}, "benchmarks": {}})"), "no \"benchmarks\" array"));
  CHECK(gbench_error(R"({"context": {}, "benchmarks": [3]})") ==
        "gb.json: /benchmarks/0: expected an object, got number");
  CHECK(gbench_error(R"({"context": {}, "benchmarks": [{"real_time": 1}]})") ==
        "gb.json: /benchmarks/0: missing \"name\"");
  CHECK(gbench_error(R"({"context": {}, "benchmarks": [{"name": "a", "real_time": "1",
        "cpu_time": 1}]})") == "gb.json: /benchmarks/0/real_time: expected a number, got string");
  CHECK(gbench_error(R"({"context": {}, "benchmarks": [{"name": "a", "real_time": 1,
        "cpu_time": 1, "time_unit": "ps"}]})") ==
        "gb.json: /benchmarks/0/time_unit: unknown time unit \"ps\" (known: ns, us, ms, s)");
  CHECK(gbench_error(R"({"context": {"num_cpus": "2"}, "benchmarks": []})") ==
        "gb.json: /context/num_cpus: expected a number, got string");
  CHECK(gbench_error(R"({"context": {"caches": [1]}, "benchmarks": []})") ==
        "gb.json: /context/caches/0: expected an object, got number");
  CHECK(gbench_error(R"({"context": {}, "benchmarks": [{"name": "a", "run_type": "x"}]})") ==
        "gb.json: /benchmarks/0/run_type: unknown run type \"x\" (known: iteration, aggregate)");
}

TEST_CASE("google benchmark: report renders every format of a real file", "[gbench][cli]") {
  test::ScratchDir dir;
  for (const std::string format : {"text", "md", "csv", "json", "html"}) {
    const std::string out = (dir / ("report." + format)).string();
    const auto run = test::cli(
        {"report", test::fixture_file("gbench/base.json"), "--format=" + format, "-o", out});
    CHECK(run.code == 0);
    CHECK(contains(test::read_text(out), "BM_sort/512"));
  }
  CHECK(contains(test::read_text(dir / "report.html"), "<canvas"));
}

TEST_CASE("google benchmark: the report speaks of the file, not of a storh-host run",
          "[gbench][cli]") {
  // Regression: items_per_second under "counters per item (counting pass)" though no
  // counting pass ran, a "min_time unknown" line, and --repeat=10 as advice.
  const auto run = test::cli({"report", test::fixture_file("gbench/base.json")});
  CHECK(run.code == 0);
  CHECK_FALSE(contains(run.out, "counting pass"));
  CHECK(contains(run.out, "counters from the file (rates per second, others as reported):"));
  CHECK_FALSE(contains(run.out, "min_time unknown"));
  CHECK(contains(run.out, "metrics timed in batches of calls, shown per call"));
  CHECK_FALSE(contains(run.out, "--repeat="));
  CHECK(contains(run.out, "--benchmark_min_time"));
}

TEST_CASE("google benchmark: gate and compare agree on a change inside the noise",
          "[gbench][cli]") {
  // Regression: gate failed BM_string_copy at +10.85% where compare called it same
  // (noise ±22.5%): the gate now excuses a change within the files' noise band.
  const std::string base = test::fixture_file("gbench/base.json"),
                    next = test::fixture_file("gbench/new.json");
  const auto compared = test::cli({"compare", base, next});
  const auto gated = test::cli({"gate", base, next});
  INFO(compared.out << gated.out);
  CHECK(contains(compared.out, "+10.85%  ±22.52%  same"));
  CHECK(contains(gated.out,
                 "+10.85% [+10.85% is within these files' noise band ±22.52% (compare calls it "
                 "same): not a failure"));
}

TEST_CASE("google benchmark: compare and gate two runs of a real binary", "[gbench][cli]") {
  const std::string base = test::fixture_file("gbench/base.json"),
                    next = test::fixture_file("gbench/new.json");
  auto run = test::cli({"compare", base, next});
  CHECK(run.code == 0);
  CHECK(contains(run.out, "(Google Benchmark)"));
  CHECK(contains(run.out, "BM_accumulate/4096[cpu_time]"));
  CHECK(test::cli({"gate", base, base}).code == 0);
  run = test::cli({"gate", base, next, "--threshold=1000"});
  CHECK(run.code == 0);
  CHECK(contains(run.out, "BM_vector_fill"));

  // One benchmark three times slower in every repetition fails the gate, by name.
  test::ScratchDir dir;
  nlohmann::json slower = test::read_json(base);
  for (auto& entry : slower["benchmarks"]) {
    if (entry["run_name"] == "BM_sort/8") entry["real_time"] = entry["real_time"].get<double>() * 3;
  }
  test::write_text(dir / "slower.json", slower.dump());
  run = test::cli({"gate", base, (dir / "slower.json").string()});
  CHECK(run.code == 1);
  CHECK(contains(run.out, "BM_sort/8 "));
  CHECK(contains(run.out, "FAIL"));
}

TEST_CASE("google benchmark: history add takes a real file", "[gbench][cli]") {
  test::ScratchDir dir;
  const std::string db = "--db=" + (dir / "history.db").string();
  const auto run = test::cli({"history", "add", test::fixture_file("gbench/base.json"),
                              test::fixture_file("gbench/new.json"), db});
  CHECK(run.code == 0);
  CHECK(contains(run.out, "as run 2 (14 metrics"));
  CHECK(contains(test::cli({"history", "show", db}).out, "BM_sort/64[cpu_time]"));
}
