// Reading any result file into a ComparableFile: detection of the kind, and the
// storh-host (schema 1) conversion. The storh PHP side is in storh_php.cpp, Google
// Benchmark's in foreign/google_benchmark.cpp.
#include <algorithm>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "compare/comparable.h"
#include "foreign/document_kind.h"
#include "foreign/google_benchmark.h"
#include "result/json.h"
#include "result/plugin_build.h"
#include "stats/stats.h"
#include "util/files.h"
#include "util/json_input.h"

namespace storh::compare {
namespace {

void add_fact(std::vector<Fact>& facts, std::string name, std::string value) {
  if (!value.empty()) facts.emplace_back(std::move(name), std::move(value));
}

}  // namespace

std::string_view file_kind_name(FileKind kind) {
  switch (kind) {
    case FileKind::storh_host_v1:
      return "storh-host schema 1";
    case FileKind::storh_php_bench:
      return "storh PHP bench.php";
    case FileKind::storh_php_repeat:
      return "storh PHP repeat.php";
    case FileKind::google_benchmark:
      return "Google Benchmark";
  }
  return "unknown";
}

const ComparableMetric* ComparableFile::find(std::string_view key) const {
  for (const ComparableMetric& metric : metrics) {
    if (metric.key == key) return &metric;
  }
  return nullptr;
}

ComparableFile comparable_from_result(const result::ResultFile& result, const std::string& name) {
  ComparableFile file;
  file.name = name;
  file.kind = FileKind::storh_host_v1;
  for (const result::Metric& m : result.metrics) {
    ComparableMetric metric;
    metric.key = m.key;
    metric.unit = m.unit;
    metric.direction = m.direction;
    for (const result::Sample& sample : m.samples) metric.samples.push_back(sample.seconds);
    metric.median = m.seconds.median;
    metric.min = m.seconds.min;
    metric.max = m.seconds.max;
    metric.runs = m.seconds.runs;
    metric.counters = m.counters;
    // The engine's counters beside the host's: their dotted names never clash with a
    // host counter's, so the gate's tolerances and compare's rows take either.
    for (const result::EngineCounterValue& c : m.engine_counters) {
      metric.counters.emplace_back(c.name, c.per_item);
    }
    metric.engine_counters = m.engine_counters;
    metric.not_counted = m.not_counted;
    // A load cell compares by throughput (docs/load.md): its samples are the repeats'
    // tps excluding set-up, and more is better. Its seconds are not comparable: a
    // duration-bound cell always runs for about the same time.
    if (m.load) {
      metric.unit = "tps";
      metric.direction = result::MetricDirection::higher_is_better;
      metric.samples.clear();
      for (const result::LoadRepeat& r : m.load->repeats) {
        metric.samples.push_back(r.tps_excluding_setup);
      }
      const result::Summary tps = stats::summarize(metric.samples);
      metric.median = tps.median;
      metric.min = tps.min;
      metric.max = tps.max;
      metric.runs = tps.runs;
    }
    file.metrics.push_back(std::move(metric));
  }

  // The facts that decide whether two runs measured the same thing. The fingerprint
  // covers the plan; the others say which part differs when it does not match.
  const result::Experiment& e = result.experiment;
  add_fact(file.facts, "harness", "storh-host");
  add_fact(file.facts, "experiment fingerprint", e.fingerprint);
  add_fact(file.facts, "suite", e.suite);
  add_fact(file.facts, "datasets", fmt::format("{}", fmt::join(e.datasets, ",")));
  add_fact(file.facts, "durability", e.durability);
  for (const result::EngineRecord& engine : e.engines) {
    add_fact(file.facts, fmt::format("plugin version of {}", engine.name), engine.version);
    // Another build or another file of the same version is another program: a delta
    // may be the compiler's, not the code's.
    if (engine.build) {
      add_fact(
          file.facts, fmt::format("plugin build of {}", engine.name),
          fmt::format("{} ({})", engine.build->type, result::optimization_text(*engine.build)));
      add_fact(file.facts, fmt::format("plugin file hash of {}", engine.name),
               engine.build->file_hash);
    }
  }
  add_fact(file.facts, "build type", result.environment.build_type);
  add_fact(file.facts, "CPU model", result.environment.cpu_model);
  add_fact(file.facts, "kernel", result.environment.kernel);
  add_fact(file.facts, "compiler", result.environment.compiler);
  add_fact(file.facts, "build flags", result.environment.build_flags);

  if (result.interrupted) {
    file.notes.push_back("the run was interrupted: only what finished is in the file");
  }
  if (!result.failures.empty()) {
    file.notes.push_back(fmt::format("{} worker run{} failed: {} metrics may be missing",
                                     result.failures.size(), result.failures.size() == 1 ? "" : "s",
                                     result.failures.size() == 1 ? "its" : "their"));
  }
  // From the build records, so a file is judged by what it records; the run's copy
  // of the same warning is then not repeated.
  const std::vector<std::string> build_warnings = result::plugin_build_warnings(e.engines);
  file.notes.insert(file.notes.end(), build_warnings.begin(), build_warnings.end());
  for (const std::string& warning : result.environment.warnings) {
    if (std::find(build_warnings.begin(), build_warnings.end(), warning) != build_warnings.end()) {
      continue;
    }
    file.notes.push_back("recorded warning: " + warning);
  }
  return file;
}

Expected<ComparableFile> comparable_from_json(const nlohmann::ordered_json& json,
                                              const std::string& name) {
  if (!json.is_object()) {
    return Error{fmt::format("{}: not a result file: expected a JSON object, got {}", name,
                             json.type_name())};
  }
  switch (foreign::document_kind(json)) {
    case foreign::DocumentKind::storh_host: {
      Expected<result::ResultFile> parsed = result::from_json(nlohmann::json(json), name);
      if (!parsed) return Error{parsed.error()};
      return comparable_from_result(*parsed, name);
    }
    case foreign::DocumentKind::google_benchmark: {
      Expected<result::ResultFile> parsed =
          foreign::from_google_benchmark(nlohmann::json(json), name);
      if (!parsed) return Error{parsed.error()};
      ComparableFile file = comparable_from_result(*parsed, name);
      file.kind = FileKind::google_benchmark;
      file.facts.front().second = "Google Benchmark";  // the "harness" fact
      return file;
    }
    case foreign::DocumentKind::storh_php:
      return comparable_from_storh_php(json, name);
    case foreign::DocumentKind::unknown:
      break;
  }
  return Error{fmt::format(
      "{}: not a result file: no schema_version and no results map (storh), and no context and "
      "benchmarks (Google Benchmark)",
      name)};
}

Expected<ComparableFile> read_comparable(const std::filesystem::path& file) {
  Expected<std::string> text = read_input_file(file);
  if (!text) return Error{text.error()};
  Expected<nlohmann::ordered_json> parsed =
      parse_json_input<nlohmann::ordered_json>(*text, file.string());
  if (!parsed) return Error{parsed.error()};
  return comparable_from_json(*parsed, file.string());
}

}  // namespace storh::compare
