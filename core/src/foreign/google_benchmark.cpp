// Google Benchmark entries grouped per benchmark instance and turned into metrics
// (the contract is in google_benchmark.h).
#include "foreign/google_benchmark.h"

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <xxhash.h>

#include <nlohmann/json.hpp>

#include "foreign/google_benchmark_context.h"
#include "stats/spread.h"
#include "stats/stats.h"
#include "util/json_node.h"

namespace storh::foreign {
namespace {

using nlohmann::json;

// Fields Google Benchmark defines on an entry; every other numeric field is a counter.
constexpr std::array<std::string_view, 24> kEntryFields = {"name",
                                                           "family_index",
                                                           "per_family_instance_index",
                                                           "run_name",
                                                           "run_type",
                                                           "repetitions",
                                                           "repetition_index",
                                                           "threads",
                                                           "iterations",
                                                           "real_time",
                                                           "cpu_time",
                                                           "time_unit",
                                                           "aggregate_name",
                                                           "aggregate_unit",
                                                           "error_occurred",
                                                           "error_message",
                                                           "label",
                                                           "big_o",
                                                           "rms",
                                                           "cpu_coefficient",
                                                           "real_coefficient",
                                                           "complexity_n",
                                                           "skipped",
                                                           "skip_message"};

// Seconds per unit of `time_unit`; nullopt for an unknown unit.
std::optional<double> seconds_per(std::string_view time_unit) {
  if (time_unit == "ns") return 1e-9;
  if (time_unit == "us") return 1e-6;
  if (time_unit == "ms") return 1e-3;
  if (time_unit == "s") return 1.0;
  return std::nullopt;
}

// What the file says about one benchmark instance (one run_name).
struct Instance {
  std::string name;
  std::vector<result::Sample> real;  // the repetitions, in file order
  std::vector<double> cpu;           // seconds per iteration, one per repetition
  std::map<std::string, std::vector<double>> counters;
  // Aggregates by name ("mean", "median", "stddev"): {real, cpu} seconds.
  std::map<std::string, std::pair<double, double>> aggregates;
  std::map<std::string, std::map<std::string, double>> aggregate_counters;
  std::size_t repetitions = 0;  // the entries' "repetitions" field, when present
};

double median_of(std::vector<double> values) {
  return stats::summarize(std::move(values)).median;
}

// The summary of one time of an instance: from its repetitions, else from its
// aggregates (`real` picks the real or the CPU time of each aggregate).
result::Summary summary_of(const std::vector<double>& samples, const Instance& instance,
                           bool real) {
  if (!samples.empty()) return stats::summarize(samples);
  result::Summary summary;
  auto aggregate = [&](const char* name) -> std::optional<double> {
    const auto it = instance.aggregates.find(name);
    if (it == instance.aggregates.end()) return std::nullopt;
    return real ? it->second.first : it->second.second;
  };
  summary.runs = instance.repetitions;
  summary.mean = aggregate("mean").value_or(0);
  summary.median = aggregate("median").value_or(summary.mean);
  summary.stddev = aggregate("stddev").value_or(0);
  summary.min = summary.median;
  summary.max = summary.median;
  return summary;
}

result::Metric metric_of(const Instance& instance, const std::string& engine, bool real) {
  result::Metric metric;
  metric.key = real ? instance.name : instance.name + "[cpu_time]";
  metric.engine = engine;
  metric.operation = instance.name;
  metric.unit = "iterations";
  metric.direction = result::MetricDirection::lower_is_better;
  std::vector<double> seconds;
  for (std::size_t i = 0; i < instance.real.size(); ++i) {
    result::Sample sample = instance.real[i];
    if (!real) sample.seconds = instance.cpu[i];
    seconds.push_back(sample.seconds);
    metric.samples.push_back(sample);
  }
  metric.seconds = summary_of(seconds, instance, real);
  metric.rate = metric.seconds.median > 0 ? 1.0 / metric.seconds.median : 0;
  if (!real) return metric;
  for (const auto& [name, values] : instance.counters) {
    metric.counters.emplace_back(name, median_of(values));
  }
  if (instance.counters.empty() && instance.real.empty()) {
    const auto median = instance.aggregate_counters.find("median");
    if (median != instance.aggregate_counters.end()) {
      metric.counters.assign(median->second.begin(), median->second.end());
    }
  }
  return metric;
}

// Numeric fields that are not Google Benchmark's own: user and rate counters.
std::map<std::string, double> counters_of(const json& entry) {
  std::map<std::string, double> counters;
  for (auto it = entry.begin(); it != entry.end(); ++it) {
    if (!it.value().is_number() ||
        std::find(kEntryFields.begin(), kEntryFields.end(), it.key()) != kEntryFields.end()) {
      continue;
    }
    counters[it.key()] = it.value().get<double>();
  }
  return counters;
}

// A field Google Benchmark always writes; the entry's reader refuses an entry without it.
JsonNode required(const JsonNode& entry, const std::string& key) {
  std::optional<JsonNode> member = entry.find(key);
  if (!member) entry.refuse(fmt::format("missing \"{}\"", key));
  return *std::move(member);
}

// Adds one entry of "benchmarks" to its instance, or to the failures.
void read_entry(const JsonNode& entry, const std::string& engine, std::vector<Instance>& instances,
                std::vector<result::Failure>& failures) {
  const std::string name = required(entry, "name").str();
  const std::string run_type = entry.optional("run_type", &JsonNode::str).value_or("iteration");
  if (run_type != "iteration" && run_type != "aggregate") {
    entry.at("run_type")
        .refuse(fmt::format("unknown run type \"{}\" (known: iteration, aggregate)", run_type));
  }
  const std::string aggregate = entry.optional("aggregate_name", &JsonNode::str).value_or("");
  std::string run_name = entry.optional("run_name", &JsonNode::str).value_or(name);
  if (!entry.has("run_name") && run_type == "aggregate" && name.ends_with("_" + aggregate)) {
    run_name = name.substr(0, name.size() - aggregate.size() - 1);  // before run_name existed
  }
  if (entry.optional("error_occurred", &JsonNode::boolean).value_or(false)) {
    result::Failure failure;
    failure.engine = engine;
    failure.operation = name;
    failure.repeat =
        static_cast<int>(entry.optional("repetition_index", &JsonNode::finite).value_or(0));
    failure.kind = result::Failure::Kind::failed;
    failure.message = entry.optional("error_message", &JsonNode::str).value_or("");
    failures.push_back(std::move(failure));
    return;
  }
  // Complexity fits (BigO, RMS) and percentages (cv) are not times of one iteration.
  if (run_type == "aggregate" && aggregate != "mean" && aggregate != "median" &&
      aggregate != "stddev") {
    return;
  }
  const std::string unit = entry.optional("time_unit", &JsonNode::str).value_or("ns");
  const std::optional<double> scale = seconds_per(unit);
  if (!scale) {
    entry.at("time_unit")
        .refuse(fmt::format("unknown time unit \"{}\" (known: ns, us, ms, s)", unit));
  }
  const double real = required(entry, "real_time").finite() * *scale;
  const double cpu = required(entry, "cpu_time").finite() * *scale;
  auto at = std::find_if(instances.begin(), instances.end(),
                         [&](const Instance& instance) { return instance.name == run_name; });
  if (at == instances.end()) {
    at = instances.insert(instances.end(), Instance{});
    at->name = run_name;
  }
  if (const std::optional<double> repetitions = entry.optional("repetitions", &JsonNode::finite)) {
    at->repetitions = *repetitions >= 0 ? static_cast<std::size_t>(*repetitions) : 0;
  }
  if (run_type == "aggregate") {
    at->aggregates[aggregate] = {real, cpu};
    at->aggregate_counters[aggregate] = counters_of(entry.raw());
    return;
  }
  const double iterations = entry.optional("iterations", &JsonNode::finite).value_or(1);
  result::Sample sample;
  sample.seconds = real;
  sample.items = 1;
  sample.calls = iterations >= 1 ? static_cast<std::uint64_t>(iterations) : 1;
  at->real.push_back(sample);
  at->cpu.push_back(cpu);
  for (const auto& [counter, value] : counters_of(entry.raw())) {
    at->counters[counter].push_back(value);
  }
}

// 16 hex digits over the executable and its benchmark instances, so two files of the
// same binary and benchmark selection share it (compare warns when they differ).
std::string fingerprint_of(const std::string& executable, const std::vector<Instance>& instances) {
  json described = {{"executable", executable}, {"benchmarks", json::array()}};
  for (const Instance& instance : instances) described["benchmarks"].push_back(instance.name);
  const std::string text = described.dump();
  return fmt::format("{:016x}", XXH64(text.data(), text.size(), 0));
}

}  // namespace

Expected<result::ResultFile> from_google_benchmark(const json& root, const std::string& origin) {
  const auto fail = [&](const std::string& what) {
    return Error{fmt::format("{}: not a Google Benchmark file: {}", origin, what)};
  };
  if (!root.is_object())
    return fail(fmt::format("expected a JSON object, got {}", root.type_name()));
  const auto context = root.find("context");
  const auto benchmarks = root.find("benchmarks");
  if (context == root.end() || !context->is_object()) {
    return fail(
        "no \"context\" object (a Google Benchmark file has \"context\" and \"benchmarks\")");
  }
  if (benchmarks == root.end() || !benchmarks->is_array()) {
    return fail(
        "no \"benchmarks\" array (a Google Benchmark file has \"context\" and \"benchmarks\")");
  }
  try {
    const JsonNode root_node(root, "");
    GoogleBenchmarkContext read = read_google_benchmark_context(root_node.at("context"));
    result::ResultFile file;
    file.experiment = std::move(read.experiment);
    file.environment = std::move(read.environment);
    std::vector<Instance> instances;
    for (const JsonNode& entry : root_node.at("benchmarks").items()) {
      read_entry(entry, read.executable_name, instances, file.failures);
    }
    result::EngineRecord engine;
    engine.name = read.executable_name;
    engine.version = read.library_version;
    engine.plugin = file.experiment.suite_file;
    for (const Instance& instance : instances) {
      engine.operations.push_back(instance.name);
      file.metrics.push_back(metric_of(instance, read.executable_name, true));
      file.metrics.push_back(metric_of(instance, read.executable_name, false));
    }
    file.experiment.engines.push_back(std::move(engine));
    file.experiment.fingerprint = fingerprint_of(read.executable_name, instances);
    for (const Instance& instance : instances) {
      file.experiment.repeat =
          std::max(file.experiment.repeat, static_cast<std::uint32_t>(instance.repetitions));
    }
    stats::judge_run_spread(file, {"--benchmark_repetitions", "--benchmark_min_time"});
    return file;
  } catch (const BadJsonValue& bad) {
    return Error{fmt::format("{}: {}", origin, bad.message)};
  }
}

}  // namespace storh::foreign
