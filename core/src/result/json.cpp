#include "result/json.h"

#include <fmt/format.h>

#include "result/engine_values.h"
#include "util/files.h"
#include "util/json_input.h"
#include "util/secrets.h"

namespace storh::result {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

template <typename T>
ordered_json optional_json(const std::optional<T>& value) {
  return value ? ordered_json(*value) : ordered_json(nullptr);
}

ordered_json params_json(const std::vector<Param>& params) {
  ordered_json object = ordered_json::object();
  for (const auto& [name, value] : params) object[name] = result::param_value_json(value);
  return object;
}

ordered_json lag_json(const LoadLag& lag) {
  return {{"mean", lag.mean}, {"max", lag.max}};
}

// The keys only the features that made them add: files without a rate, limit or
// series keep their old bytes.
template <typename T>
void add_lateness(ordered_json& j, const T& r) {
  if (r.lag) j["lag"] = lag_json(*r.lag);
  if (r.late > 0) j["late"] = r.late;
  if (r.skipped > 0) j["skipped"] = r.skipped;
}

ordered_json load_json(const LoadResult& l) {
  ordered_json repeats = ordered_json::array();
  for (const LoadRepeat& r : l.repeats) {
    ordered_json repeat = {{"processed", r.processed},
                           {"intended", optional_json(r.intended)},
                           {"failed", r.failed},
                           {"setup_seconds", r.setup_seconds},
                           {"run_seconds", r.run_seconds},
                           {"tps_including_setup", r.tps_including_setup},
                           {"tps_excluding_setup", r.tps_excluding_setup}};
    add_lateness(repeat, r);
    if (r.intervals) repeat["intervals"] = load_intervals_json(*r.intervals);
    repeats.push_back(std::move(repeat));
  }
  ordered_json latency = nullptr;
  if (l.latency) {
    const Latency& t = *l.latency;
    latency = {{"count", t.count},
               {"mean", t.mean},
               {"stddev", t.stddev},
               {"min", t.min},
               {"p50", optional_json(t.p50)},
               {"p95", optional_json(t.p95)},
               {"p99", optional_json(t.p99)},
               {"p99_9", optional_json(t.p999)},
               {"max", t.max}};
  }
  ordered_json j = {{"clients", l.clients},
                    {"mode", l.mode},
                    {"transactions_per_client", optional_json(l.transactions_per_client)},
                    {"duration_seconds", optional_json(l.duration_seconds)},
                    {"target_rate", optional_json(l.target_rate)},
                    {"processed", l.processed},
                    {"intended", optional_json(l.intended)},
                    {"failed", l.failed},
                    {"tps_including_setup", l.tps_including_setup},
                    {"tps_excluding_setup", l.tps_excluding_setup},
                    {"tps_stddev", l.tps_stddev},
                    {"latency", latency},
                    {"repeats", repeats}};
  const auto put = [&](const char* name, std::uint64_t value) {
    if (value != 0) j[name] = value;
  };
  put("retried", l.retried);
  put("retries", l.retries);
  put("serialization_failures", l.serialization_failures);
  put("deadlock_failures", l.deadlock_failures);
  if (l.connection_mean) j["connection_mean"] = *l.connection_mean;
  if (l.latency_limit) j["latency_limit"] = *l.latency_limit;
  add_lateness(j, l);
  if (!l.statements.empty()) j["statements"] = statements_json(l.statements);
  return j;
}

ordered_json metric_json(const Metric& m) {
  ordered_json samples = ordered_json::array();
  for (const Sample& s : m.samples) {
    ordered_json sample = {{"seconds", s.seconds}, {"items", s.items}};
    if (s.calls != 1) sample["calls"] = s.calls;  // min_time batches only
    samples.push_back(std::move(sample));
  }
  ordered_json j = {{"key", m.key},
                    {"engine", m.engine},
                    {"operation", m.operation},
                    {"dataset", m.dataset},
                    {"params", params_json(m.params)},
                    {"unit", m.unit},
                    {"direction", result::direction_name(m.direction)},
                    {"samples", samples},
                    {"seconds",
                     {{"runs", m.seconds.runs},
                      {"median", m.seconds.median},
                      {"min", m.seconds.min},
                      {"max", m.seconds.max},
                      {"mean", m.seconds.mean},
                      {"stddev", m.seconds.stddev},
                      {"mad", m.seconds.mad}}},
                    {"rate", {{"per_second", m.rate}, {"unit", m.unit + "/s"}}}};
  if (m.latency) {
    const Latency& l = *m.latency;
    j["latency"] = {{"count", l.count},
                    {"mean", l.mean},
                    {"min", l.min},
                    {"max", l.max},
                    {"p50", optional_json(l.p50)},
                    {"p90", optional_json(l.p90)},
                    {"p99", optional_json(l.p99)},
                    {"p99_9", optional_json(l.p999)}};
  }
  if (m.load) j["load"] = load_json(*m.load);
  if (!m.counters.empty()) {
    ordered_json counters = ordered_json::object();
    for (const auto& [name, per_item] : m.counters) counters[name] = per_item;
    j["counters"] = counters;
  }
  if (!m.not_counted.empty()) j["not_counted"] = m.not_counted;
  if (!m.engine_counters.empty()) {
    ordered_json engine = ordered_json::object();
    for (const EngineCounterValue& c : m.engine_counters) {
      engine[c.name] = {{"per_item", c.per_item}, {"unit", c.unit}, {"repeats", c.repeats}};
    }
    j["engine_counters"] = std::move(engine);
  }
  j["warnings"] = m.warnings;
  // Only in adaptive runs, so other files stay as they were.
  if (m.repeats) {
    ordered_json interval = nullptr;
    if (m.repeats->interval) interval = {m.repeats->interval->first, m.repeats->interval->second};
    j["repeats"] = {
        {"taken", m.repeats->taken}, {"interval", interval}, {"converged", m.repeats->converged}};
  }
  return j;
}

// Absent from engines that did not load; unknown values are "unknown" or null.
ordered_json build_json(const PluginBuild& b) {
  return {{"type", b.type},
          {"flags", b.flags},
          {"compiler", b.compiler},
          {"optimized", optional_json(b.optimized)},
          {"file_hash", b.file_hash.empty() ? ordered_json(nullptr) : ordered_json(b.file_hash)}};
}

ordered_json experiment_fields(const Experiment& e) {
  ordered_json engines = ordered_json::array();
  for (const EngineRecord& r : e.engines) {
    ordered_json engine = {{"name", r.name},
                           {"version", r.version},
                           {"plugin", r.plugin},
                           {"operations", r.operations}};
    if (r.build) engine["build"] = build_json(*r.build);
    engines.push_back(std::move(engine));
  }
  ordered_json params = ordered_json::object();
  for (const auto& [engine, list] : e.params) {
    ordered_json per_engine = ordered_json::object();
    for (const auto& [name, values] : list) {
      ordered_json array = ordered_json::array();
      for (const ParamValue& v : values) array.push_back(result::param_value_json(v));
      per_engine[name] = array;
    }
    params[engine] = per_engine;
  }
  return {{"suite", e.suite},
          {"suite_file", e.suite_file},
          {"fingerprint", e.fingerprint},
          {"datasets", e.datasets},
          {"repeat", e.repeat},
          {"warmup", e.warmup},
          {"memory_limit_bytes", optional_json(e.memory_limit_bytes)},
          {"timeout_seconds", optional_json(e.timeout_seconds)},
          {"min_time_seconds", optional_json(e.min_time_seconds)},
          {"durability", e.durability},
          {"host_version", e.host_version},
          {"engines", engines},
          {"params", params},
          {"work_dir", {{"path", e.work_dir}, {"cleanup", e.work_dir_cleanup}}},
          {"command_line", e.command_line},
          {"hostname", e.hostname},
          {"git_commit", optional_json(e.git_commit)}};
}

ordered_json experiment_json(const Experiment& e) {
  ordered_json j = experiment_fields(e);
  // Only when a counting pass ran (docs/counters.md).
  if (!e.counters.empty()) j["counters"] = e.counters;
  // Only for adaptive repeats (docs/results.md); `repeat` is then the minimum.
  if (e.repeat_until) {
    j["repeat_until"] = {{"min", e.repeat_until->min},
                         {"max", e.repeat_until->max},
                         {"until", e.repeat_until->until}};
  }
  // Only for a load suite with [[load.bench]] tables (docs/load.md).
  if (!e.load_benches.empty()) {
    ordered_json benches = ordered_json::array();
    for (const LoadBench& bench : e.load_benches) {
      ordered_json points = ordered_json::array();
      for (const LoadBenchPoint& p : bench.points) {
        points.push_back({{"clients", p.clients}, {"transactions", p.transactions}});
      }
      benches.push_back(
          {{"name", bench.name}, {"operations", bench.operations}, {"points", points}});
    }
    j["load_benches"] = benches;
  }
  // Only in a shard's file (run --shard=K/N).
  if (e.shard) {
    j["shard"] = {{"index", e.shard->index},
                  {"count", e.shard->count},
                  {"cells", e.shard->cells},
                  {"plan_cells", e.shard->plan_cells}};
  }
  return j;
}

ordered_json failure_json(const Failure& f) {
  return {{"engine", f.engine},
          {"dataset", f.dataset},
          {"params", params_json(f.params)},
          {"repeat", f.repeat},
          {"operation", f.operation},
          {"kind", std::string(failure_kind_name(f.kind))},
          {"message", f.message},
          {"signal", optional_json(f.signal)},
          {"exit_code", optional_json(f.exit_code)},
          {"stderr_tail", f.stderr_tail}};
}

ordered_json run_json(const Run& r) {
  return {{"engine", r.engine},
          {"dataset", r.dataset},
          {"params", params_json(r.params)},
          {"repeat", r.repeat},
          {"ok", r.ok},
          {"wall_seconds", r.wall_seconds},
          {"startup_seconds", r.startup_seconds},
          {"peak_rss_bytes", r.peak_rss_bytes}};
}

// The storh harness's view: results.<engine>.<operation> = median seconds. A key that
// does not start with "<engine>." (a Google Benchmark name, foreign/google_benchmark.h)
// is kept whole.
ordered_json flat_results(const ResultFile& r) {
  ordered_json results = ordered_json::object();
  for (const Metric& m : r.metrics) {
    const std::string prefix = m.engine + ".";
    const bool prefixed = m.key.starts_with(prefix);
    results[m.engine][prefixed ? m.key.substr(prefix.size()) : m.key] = m.seconds.median;
  }
  return results;
}

}  // namespace

ordered_json environment_json(const Environment& v) {
  return {{"os", v.os},
          {"kernel", v.kernel},
          {"cpu_model", v.cpu_model},
          {"cpu_count", v.cpu_count},
          {"memory_bytes", v.memory_bytes},
          {"work_dir_filesystem", v.work_dir_filesystem},
          {"compiler", v.compiler},
          {"build_type", v.build_type},
          {"build_flags", v.build_flags},
          {"cpu_governor", v.cpu_governor},
          {"time", v.time},
          {"warnings", v.warnings}};
}

void mask_json_secrets(ordered_json& value) {
  if (value.is_string()) {
    if (holds_secret(value.get_ref<const std::string&>()))
      value = storh::mask_secrets(value.get<std::string>());
  } else if (value.is_array()) {
    for (ordered_json& item : value) mask_json_secrets(item);
  } else if (value.is_object()) {
    bool keys_hold_secrets = false;
    for (auto& [key, item] : value.items()) {
      keys_hold_secrets = keys_hold_secrets || holds_secret(key);
      mask_json_secrets(item);
    }
    if (!keys_hold_secrets) return;
    ordered_json masked = ordered_json::object();
    for (auto& [key, item] : value.items()) masked[storh::mask_secrets(key)] = std::move(item);
    value = std::move(masked);
  }
}

ordered_json to_json(const ResultFile& r) {
  ordered_json metrics = ordered_json::array();
  for (const Metric& m : r.metrics) metrics.push_back(metric_json(m));
  ordered_json runs = ordered_json::array();
  for (const Run& run : r.runs) runs.push_back(run_json(run));
  ordered_json failures = ordered_json::array();
  for (const Failure& f : r.failures) failures.push_back(failure_json(f));
  std::vector<std::string> engine_names;
  for (const EngineRecord& e : r.experiment.engines) engine_names.push_back(e.name);
  ordered_json document = {
      {"schema_version", r.schema_version},
      {"tool", "storh-host"},
      // The storh harness's top-level keys, so its compare and gate read this file.
      {"dataset", r.experiment.datasets.empty() ? 0 : r.experiment.datasets.front()},
      {"engine", fmt::format("{}", fmt::join(engine_names, ","))},
      {"time", r.environment.time},
      {"interrupted", r.interrupted},
      {"experiment", experiment_json(r.experiment)},
      {"environment", environment_json(r.environment)},
      {"metrics", metrics},
      {"failures", failures},
      {"runs", runs},
      {"results", flat_results(r)}};
  mask_json_secrets(document);
  return document;
}

std::string to_json_text(const ResultFile& result) {
  return to_json(result).dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

std::string write_result_file(const std::filesystem::path& file, const ResultFile& result) {
  return write_file_atomically(file, to_json_text(result));
}

Expected<ResultFile> read_result_file(const std::filesystem::path& file) {
  Expected<std::string> text = read_input_file(file);
  if (!text) return Error{text.error()};
  Expected<json> parsed = parse_json_input<json>(*text, file.string());
  if (!parsed) return Error{parsed.error()};
  return from_json(*parsed, file.string());
}

}  // namespace storh::result
