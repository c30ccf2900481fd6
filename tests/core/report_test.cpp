#include "report/report.h"

#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "report/format.h"
#include "result/json.h"

using namespace storh;
using report::render_report;
using report::ReportFormat;

namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = text.find('\n', start);
    lines.push_back(text.substr(start, end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return lines;
}

// Compares line by line so a failure names the first differing line.
void lines_should_be(const std::string& text, const std::vector<std::string>& expected) {
  const auto actual = lines_of(text);
  for (std::size_t i = 0; i < std::min(actual.size(), expected.size()); ++i) {
    INFO("line " << i + 1);
    CHECK(actual[i] == expected[i]);
  }
  CHECK(actual.size() == expected.size());
}

result::Metric metric(std::string engine, std::string operation, std::vector<result::Param> params,
                      std::string unit, double median, std::size_t runs) {
  result::Metric m;
  m.engine = std::move(engine);
  m.operation = std::move(operation);
  m.key = m.engine + "." + m.operation;
  if (!params.empty()) {
    m.key += "[";
    for (std::size_t i = 0; i < params.size(); ++i) {
      m.key +=
          (i == 0 ? "" : ",") + params[i].first + "=" + std::get<std::string>(params[i].second);
    }
    m.key += "]";
  }
  m.dataset = 1000;
  m.params = std::move(params);
  m.unit = std::move(unit);
  m.seconds = {runs, median, median * 0.9, median * 1.2, median, runs > 1 ? median * 0.05 : 0};
  m.rate = 1000 / median;
  return m;
}

// Two engines (listed doc, cache: not alphabetical), a cache matrix over validation,
// three repeats, one crashed run with a stderr tail, latency on doc.get.
result::ResultFile sample_result() {
  result::ResultFile file;
  auto& experiment = file.experiment;
  experiment.suite = "ci";
  experiment.fingerprint = "0123456789abcdef";
  experiment.datasets = {1000};
  experiment.repeat = 3;
  experiment.engines = {{"doc", "1.0", "doc.so", {"put", "get", "stream"}},
                        {"cache", "1.0", "cache.so", {"cold", "warm"}},
                        {"uuid", "1.0", "uuid.so", {"monotonic"}}};
  auto& env = file.environment;
  env.os = "Debian GNU/Linux 12 (bookworm)";
  env.kernel = "Linux 6.1.0-18-amd64";
  env.cpu_model = "AMD EPYC 7B13";
  env.cpu_count = 2;
  env.memory_bytes = 25276063744;
  env.work_dir_filesystem = "ext4";
  env.compiler = "g++ 12.2.0";
  env.build_type = "Release";
  env.build_flags = "-O3 -DNDEBUG";
  env.cpu_governor = "powersave";
  env.time = "2026-11-30T03:22:07Z";
  env.warnings = {"CPU frequency scaling governor is \"powersave\""};

  const result::Param hash{"validation", std::string("hash")};
  const result::Param stat{"validation", std::string("stat")};
  // In key order, as result files keep them.
  file.metrics = {metric("cache", "cold", {hash}, "records", 0.004113, 3),
                  metric("cache", "cold", {stat}, "records", 0.0020, 2),
                  metric("cache", "warm", {hash}, "records", 412.3e-6, 3),
                  metric("doc", "get", {}, "records", 0.0205, 3),
                  metric("doc", "put", {}, "records", 0.2801, 3),
                  metric("doc", "stream", {}, "records", 1.5e-3, 3)};
  file.metrics[3].latency =
      result::Latency{3000, 6.9e-6, 1.1e-6, 950e-6, 5.25e-6, 9e-6, 40.5e-6, 120e-6};
  file.metrics[4].latency = result::Latency{20, 280e-6, 200e-6, 400e-6, 279e-6, 300e-6, {}, {}};
  file.metrics[1].warnings = {
      "2 sample(s): a significance test needs at least 4 per side (repeat >= 4)"};
  file.metrics[4].warnings = {
      "spread too wide to trust: coefficient of variation 24.1% > 10%",
      "3 sample(s): a significance test needs at least 4 per side (repeat >= 4)"};

  result::Failure crash;
  crash.engine = "cache";
  crash.dataset = 1000;
  crash.params = {stat};
  crash.repeat = 2;
  crash.operation = "cold";
  crash.kind = storh::result::Failure::Kind::crashed;
  crash.message = "worker killed | core dumped";
  crash.signal = 11;
  crash.stderr_tail = "one\ntwo\nthree\nfour\nfive\nsix\nseven\n\n";
  file.failures = {crash};
  result::Failure load;
  load.engine = "uuid";
  load.dataset = 1000;
  load.repeat = -1;
  load.kind = storh::result::Failure::Kind::exit;
  load.message = "plugin refused";
  load.exit_code = 3;
  file.failures.push_back(load);
  file.interrupted = true;
  return file;
}

}  // namespace

TEST_CASE("format: durations have 4 significant digits in a readable unit", "[report]") {
  CHECK(report::format_seconds(412.3e-6) == "412.3 us");
  CHECK(report::format_seconds(1.2341e-3) == "1.234 ms");
  CHECK(report::format_seconds(0.41134) == "411.3 ms");
  CHECK(report::format_seconds(12) == "12.00 s");
  CHECK(report::format_seconds(4000) == "4000 s");
  CHECK(report::format_seconds(85e-9) == "85.00 ns");
  CHECK(report::format_seconds(999.96e-6) == "1.000 ms");  // rounding moves the unit up
  CHECK(report::format_seconds(0) == "0 s");
}

TEST_CASE("format: rates have 3 significant digits and an SI prefix", "[report]") {
  CHECK(report::format_rate(2.43e6, "ids") == "2.43 M ids/s");
  CHECK(report::format_rate(7214, "records") == "7.21 k records/s");
  CHECK(report::format_rate(512, "rows") == "512 rows/s");
  CHECK(report::format_rate(0.5, "jobs") == "0.500 jobs/s");
  CHECK(report::format_rate(999.7e3, "") == "1.00 M items/s");
  CHECK(report::format_bytes(25276063744) == "23.5 GiB");
  CHECK(report::format_bytes(512) == "512 B");
}

// Regression (both formats): the per-metric warnings of the file were not shown, the
// columns had no header and nothing said that ± was the coefficient of variation.
TEST_CASE("report: text lists engines in experiment order and metrics in scenario order",
          "[report]") {
  lines_should_be(
      render_report(sample_result(), ReportFormat::text),
      {
          "storh-host suite=ci datasets=1000 repeat=3 fingerprint=0123456789abcdef",
          ("environment: cpu=\"AMD EPYC 7B13\" cpus=2 kernel=\"Linux 6.1.0-18-amd64\" fs=ext4 "
           "build=Release"),
          "warning: CPU frequency scaling governor is \"powersave\"",
          "warning: 2 of 6 metrics have warnings (marked !, listed under their engine)",
          "interrupted: the run was interrupted: results are partial",
          ("legend: median = time of one step (one call of a repeated step); per item = median / "
           "the step's items; cv = coefficient of variation (stddev / mean) over the repeats"),
          "[doc]",
          ("     operation    median  per item              rate    cv  min .. max                 "
           "p50       p99"),
          ("  !  put        280.1 ms  280.1 us  3.57 k records/s  5.0%  252.1 ms .. 336.1 ms  "
           "279.0 "
           "us         -"),
          ("     get        20.50 ms  20.50 us  48.8 k records/s  5.0%  18.45 ms .. 24.60 ms  "
           "5.250 "
           "us  40.50 us"),
          ("     stream     1.500 ms  1.500 us   667 k records/s  5.0%  1.350 ms .. 1.800 ms       "
           " "
           " -         -"),
          ("  ! put: spread too wide to trust: coefficient of variation 24.1% > 10%; 3 sample(s): "
           "a "
           "significance test needs at least 4 per side (repeat >= 4)"),
          "[cache]",
          ("     operation                median  per item              rate    cv  min .. max     "
           " "
           "      runs"),
          ("     cold[validation=hash]  4.113 ms  4.113 us   243 k records/s  5.0%  3.702 ms .. "
           "4.936 ms     3"),
          ("  !  cold[validation=stat]  2.000 ms  2.000 us   500 k records/s  5.0%  1.800 ms .. "
           "2.400 ms   2/3"),
          ("     warm[validation=hash]  412.3 us  412.3 ns  2.43 M records/s  5.0%  371.1 us .. "
           "494.8 us     3"),
          ("  ! cold[validation=stat]: 2 sample(s): a significance test needs at least 4 per side "
           "(repeat >= 4)"),
          "[uuid]",
          "  no results",
          "failures (2):",
          ("  cache dataset=1000 validation=stat repeat=3 operation=cold: crashed (signal 11): "
           "worker killed | core dumped"),
          "    | three",
          "    | four",
          "    | five",
          "    | six",
          "    | seven",
          "  uuid dataset=1000 warm-up=1: exit (exit code 3): plugin refused",
      });
}

TEST_CASE("report: a single run shows no spread and a non-durable run is flagged", "[report]") {
  result::ResultFile file;
  file.experiment.suite = "quick";
  file.experiment.datasets = {100, 10000};
  file.experiment.durability = "none";
  file.experiment.engines = {{"uuid", "1.0", "uuid.so", {"monotonic"}}};
  file.metrics = {metric("uuid", "monotonic", {}, "ids", 411.34e-6, 1)};
  file.metrics[0].rate = 2.43e6;
  lines_should_be(
      render_report(file, ReportFormat::text),
      {
          "storh-host suite=quick datasets=100,10000 repeat=1 fingerprint=",
          "environment: cpu=unknown cpus=0 kernel=unknown fs=unknown build=unknown",
          "warning: durability is \"none\": engines did not fsync every write they reported stored",
          ("legend: median = time of one step (one call of a repeated step); per item = median / "
           "the step's items"),
          "[uuid]",
          "  operation    median  per item          rate",
          "  monotonic  411.3 us  411.5 ns  2.43 M ids/s",
      });
}

TEST_CASE("report: markdown has an environment table, one table per engine and failures",
          "[report]") {
  lines_should_be(
      render_report(sample_result(), ReportFormat::markdown),
      {
          "# storh-host report: ci",
          "",
          "- datasets: 1000",
          "- repeat: 3",
          "- fingerprint: `0123456789abcdef`",
          "- durability: durable",
          "",
          "> **Warning:** CPU frequency scaling governor is \"powersave\"",
          "",
          "> **Warning:** 2 of 6 metrics have warnings (marked !, listed under their engine)",
          "",
          "> **Interrupted:** the run was interrupted: results are partial",
          "",
          "## Environment",
          "",
          "| | |",
          "|---|---|",
          "| OS | Debian GNU/Linux 12 (bookworm) |",
          "| Kernel | Linux 6.1.0-18-amd64 |",
          "| CPU | AMD EPYC 7B13 (2 CPUs) |",
          "| Memory | 23.5 GiB |",
          "| Work directory filesystem | ext4 |",
          "| Compiler | g++ 12.2.0 |",
          "| Build | Release |",
          "| Build flags | -O3 -DNDEBUG |",
          "| CPU governor | powersave |",
          "| Time | 2026-11-30T03:22:07Z |",
          "",
          ("Legend: median = time of one step (one call of a repeated step); per item = median / "
           "the step's items; cv = coefficient of variation (stddev / mean) over the repeats."),
          "",
          "## doc",
          "",
          "|  | operation | median | per item | rate | cv | runs | p50 | p99 |",
          "|---|---|---:|---:|---:|---:|---:|---:|---:|",
          "| ! | put | 280.1 ms | 280.1 us | 3.57 k records/s | 5.0% | 3 | 279.0 us | - |",
          "|  | get | 20.50 ms | 20.50 us | 48.8 k records/s | 5.0% | 3 | 5.250 us | 40.50 us |",
          "|  | stream | 1.500 ms | 1.500 us | 667 k records/s | 5.0% | 3 | - | - |",
          "",
          "Warnings:",
          "",
          ("- `put`: spread too wide to trust: coefficient of variation 24.1% > 10%; 3 sample(s): "
           "a "
           "significance test needs at least 4 per side (repeat >= 4)"),
          "",
          "## cache",
          "",
          "|  | operation | median | per item | rate | cv | runs |",
          "|---|---|---:|---:|---:|---:|---:|",
          "|  | cold[validation=hash] | 4.113 ms | 4.113 us | 243 k records/s | 5.0% | 3 |",
          "| ! | cold[validation=stat] | 2.000 ms | 2.000 us | 500 k records/s | 5.0% | 2 |",
          "|  | warm[validation=hash] | 412.3 us | 412.3 ns | 2.43 M records/s | 5.0% | 3 |",
          "",
          "Warnings:",
          "",
          ("- `cold[validation=stat]`: 2 sample(s): a significance test needs at least 4 per side "
           "(repeat >= 4)"),
          "",
          "## uuid",
          "",
          "No results.",
          "",
          "## Failures",
          "",
          "| engine | dataset | params | repeat | operation | kind | status | message |",
          "|---|---:|---|---:|---|---|---|---|",
          ("| cache | 1000 | validation=stat | 3 | cold | crashed | signal 11 | worker killed \\| "
           "core dumped |"),
          "| uuid | 1000 | - | warm-up 1 | - | exit | exit code 3 | plugin refused |",
          "",
          "stderr tail of cache dataset=1000 validation=stat repeat=3 operation=cold:",
          "",
          "```text",
          "three",
          "four",
          "five",
          "six",
          "seven",
          "```",
      });
}

TEST_CASE("report: a stderr tail with backticks gets a longer fence", "[report]") {
  auto file = sample_result();
  file.failures.resize(1);
  file.failures[0].stderr_tail = "see ```code```\n";
  const auto lines = lines_of(render_report(file, ReportFormat::markdown));
  REQUIRE(lines.size() >= 3);
  CHECK(lines[lines.size() - 3] == "````text");
  CHECK(lines[lines.size() - 2] == "see ```code```");
  CHECK(lines.back() == "````");
}

TEST_CASE("report: rendering is deterministic", "[report]") {
  const auto file = sample_result();
  for (auto format : {ReportFormat::text, ReportFormat::markdown}) {
    const std::string first = render_report(file, format);
    CHECK(render_report(sample_result(), format) == first);
    CHECK(render_report(file, format) == first);
  }
}

TEST_CASE("report: csv has one row per metric with full-precision numbers", "[report]") {
  // Regression: report had no machine-readable format.
  const auto lines = lines_of(render_report(sample_result(), ReportFormat::csv));
  REQUIRE(lines.size() == 1 + 6);
  CHECK(lines[0] ==
        "key,engine,operation,dataset,params,unit,direction,runs,median_seconds,min_seconds,"
        "max_seconds,mean_seconds,stddev_seconds,mad_seconds,cv_percent,per_item_seconds,"
        "rate_per_second,p50_seconds,p99_seconds,warnings");
  CHECK(
      lines[1].starts_with("cache.cold[validation=hash],cache,cold,1000,validation=hash,"
                           "records,lower_is_better,3,0.004113,"));
  CHECK(lines[4].starts_with("doc.get,doc,get,1000,,records,lower_is_better,3,0.0205,"));
  CHECK(lines[4].ends_with(",5.25e-06,4.05e-05,"));  // p50, p99, no warnings
  CHECK(
      lines[5].ends_with(",0.000279,,spread too wide to trust: coefficient of variation "
                         "24.1% > 10%; 3 sample(s): a significance test needs at least 4 per "
                         "side (repeat >= 4)"));
}

TEST_CASE("report: json is the whole file, normalised", "[report]") {
  const auto file = sample_result();
  CHECK(render_report(file, ReportFormat::json) == result::to_json_text(file));
  CHECK(report::parse_report_format("csv") == ReportFormat::csv);
  CHECK(report::parse_report_format("markdown") == ReportFormat::markdown);
  CHECK_FALSE(report::parse_report_format("xml").has_value());
}

TEST_CASE("report: a parameter's values are shown in the order the suite gave them", "[report]") {
  // Regression: synchronous_commit = ["on", "off"] printed "off" above "on".
  result::ResultFile file;
  file.experiment.engines = {{"pg", "1.0.0", "storh_pg.so", {"tpcb_like"}}};
  file.experiment.params = {
      {"pg",
       {{"synchronous_commit", {ParamValue(std::string("on")), ParamValue(std::string("off"))}}}}};
  file.metrics = {metric("pg", "tpcb_like", {{"synchronous_commit", std::string("off")}},
                         "transactions", 1.0, 1),
                  metric("pg", "tpcb_like", {{"synchronous_commit", std::string("on")}},
                         "transactions", 2.0, 1)};
  const std::string text = report::render_report(file, report::ReportFormat::text);
  const std::size_t on = text.find("tpcb_like[synchronous_commit=on]");
  const std::size_t off = text.find("tpcb_like[synchronous_commit=off]");
  REQUIRE(on != std::string::npos);
  REQUIRE(off != std::string::npos);
  CHECK(on < off);
}
