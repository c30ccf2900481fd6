// Reading result files: every accessor checks the type and reports the JSON path of
// a bad value, so a corrupt or foreign file gives a message, never a crash.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include <fmt/format.h>

#include "result/engine_values.h"
#include "result/json.h"
#include "util/json_node.h"

namespace storh::result {
namespace {

using nlohmann::json;

using BadValue = BadJsonValue;
using Node = JsonNode;

// A parameter value: a string, number or boolean.
ParamValue param_of(const Node& node) {
  Expected<ParamValue> value = param_value_from_json(node.raw());
  if (!value)
    node.refuse(
        fmt::format("expected a string, number or boolean, got {}", node.raw().type_name()));
  return std::move(*value);
}

std::vector<Param> read_params(const Node& node) {
  std::vector<Param> params;
  for (const auto& [name, value] : node.members()) params.emplace_back(name, param_of(value));
  return params;
}

template <typename T, typename F>
std::optional<T> optional_of(const Node& node, F read) {
  if (node.is_null()) return std::nullopt;
  return read(node);
}

LoadResult read_load(const Node& n) {
  LoadResult l;
  auto count = [](const Node& x) { return x.count(); };
  auto number = [](const Node& x) { return x.number(); };
  l.clients = static_cast<std::uint32_t>(n.at("clients").count());
  l.mode = n.at("mode").str();
  l.transactions_per_client = optional_of<std::uint64_t>(n.at("transactions_per_client"), count);
  l.duration_seconds = optional_of<double>(n.at("duration_seconds"), number);
  l.target_rate = optional_of<double>(n.at("target_rate"), number);
  l.processed = n.at("processed").count();
  l.intended = optional_of<std::uint64_t>(n.at("intended"), count);
  l.failed = n.at("failed").count();
  l.tps_including_setup = n.at("tps_including_setup").number();
  l.tps_excluding_setup = n.at("tps_excluding_setup").number();
  l.tps_stddev = n.at("tps_stddev").number();
  const auto counted = [&](const char* name) { return n.has(name) ? n.at(name).count() : 0; };
  l.retried = counted("retried");
  l.retries = counted("retries");
  l.serialization_failures = counted("serialization_failures");
  l.deadlock_failures = counted("deadlock_failures");
  if (n.has("connection_mean")) l.connection_mean = n.at("connection_mean").number();
  if (const Node t = n.at("latency"); !t.is_null()) {
    Latency latency;
    latency.count = t.at("count").count();
    latency.mean = t.at("mean").number();
    latency.stddev = t.at("stddev").number();
    latency.min = t.at("min").number();
    latency.p50 = optional_of<double>(t.at("p50"), number);
    latency.p95 = optional_of<double>(t.at("p95"), number);
    latency.p99 = optional_of<double>(t.at("p99"), number);
    latency.p999 = optional_of<double>(t.at("p99_9"), number);
    latency.max = t.at("max").number();
    l.latency = latency;
  }
  for (const Node& r : n.at("repeats").items()) {
    LoadRepeat repeat;
    repeat.processed = r.at("processed").count();
    repeat.intended = optional_of<std::uint64_t>(r.at("intended"), count);
    repeat.failed = r.at("failed").count();
    repeat.setup_seconds = r.at("setup_seconds").number();
    repeat.run_seconds = r.at("run_seconds").number();
    repeat.tps_including_setup = r.at("tps_including_setup").number();
    repeat.tps_excluding_setup = r.at("tps_excluding_setup").number();
    read_load_extras(r, repeat.lag, repeat.late, repeat.skipped, &repeat.intervals);
    l.repeats.push_back(std::move(repeat));
  }
  if (n.has("latency_limit")) l.latency_limit = n.at("latency_limit").number();
  read_load_extras(n, l.lag, l.late, l.skipped, nullptr);
  if (n.has("statements")) l.statements = read_statements(n.at("statements"));
  return l;
}

// The summary must be the samples' own: a median outside their range (or a min or max
// that is none of them) is a file edited or damaged, and gating on it would judge
// numbers nobody measured.
void check_summary(const Node& seconds, const Metric& m) {
  if (m.samples.empty()) return;
  const auto [low, high] =
      std::minmax_element(m.samples.begin(), m.samples.end(),
                          [](const Sample& a, const Sample& b) { return a.seconds < b.seconds; });
  const auto same = [](double a, double b) {
    return std::abs(a - b) <= 1e-9 * std::max(std::abs(a), std::abs(b)) + 1e-300;
  };
  if (!same(m.seconds.min, low->seconds) || !same(m.seconds.max, high->seconds) ||
      m.seconds.median < m.seconds.min || m.seconds.median > m.seconds.max) {
    seconds.refuse(fmt::format(
        "the summary (median {} s, min {} s, max {} s) is not that of the samples (min {} s, "
        "max {} s)",
        m.seconds.median, m.seconds.min, m.seconds.max, low->seconds, high->seconds));
  }
}

Metric read_metric(const Node& n) {
  Metric m;
  m.key = n.at("key").str();
  m.engine = n.at("engine").str();
  m.operation = n.at("operation").str();
  m.dataset = n.at("dataset").count();
  m.params = read_params(n.at("params"));
  m.unit = n.at("unit").str();
  const Node direction = n.at("direction");
  const std::optional<MetricDirection> parsed = parse_direction(direction.str());
  if (!parsed) direction.refuse("expected \"lower_is_better\" or \"higher_is_better\"");
  m.direction = *parsed;
  for (const Node& s : n.at("samples").items()) {
    const Node sample_seconds = s.at("seconds");
    const double value = sample_seconds.number();
    if (!(value >= 0))
      sample_seconds.refuse(fmt::format("a sample of {} s: time is never negative", value));
    m.samples.push_back({value, s.at("items").count(),
                         s.has("calls") ? std::max<std::uint64_t>(1, s.at("calls").count()) : 1});
  }
  const Node seconds = n.at("seconds");
  m.seconds.runs = static_cast<std::size_t>(seconds.at("runs").count());
  m.seconds.median = seconds.at("median").number();
  m.seconds.min = seconds.at("min").number();
  m.seconds.max = seconds.at("max").number();
  m.seconds.mean = seconds.at("mean").number();
  m.seconds.stddev = seconds.at("stddev").number();
  if (seconds.has("mad")) m.seconds.mad = seconds.at("mad").number();
  check_summary(seconds, m);
  m.rate = n.at("rate").at("per_second").number();
  if (m.key.size() <= m.engine.size() ||
      m.key.compare(0, m.engine.size() + 1, m.engine + ".") != 0) {
    throw BadValue{
        fmt::format("{}: key \"{}\" does not start with \"{}.\"", "/metrics", m.key, m.engine)};
  }
  if (n.has("latency")) {
    const Node l = n.at("latency");
    Latency latency;
    latency.count = l.at("count").count();
    latency.mean = l.at("mean").number();
    latency.min = l.at("min").number();
    latency.max = l.at("max").number();
    auto number = [](const Node& x) { return x.number(); };
    latency.p50 = optional_of<double>(l.at("p50"), number);
    latency.p90 = optional_of<double>(l.at("p90"), number);
    latency.p99 = optional_of<double>(l.at("p99"), number);
    latency.p999 = optional_of<double>(l.at("p99_9"), number);
    m.latency = latency;
  }
  if (n.has("load")) m.load = read_load(n.at("load"));
  if (n.has("counters")) {
    for (const auto& [name, value] : n.at("counters").members()) {
      m.counters.emplace_back(name, value.number());
    }
    std::sort(m.counters.begin(), m.counters.end());
  }
  if (n.has("not_counted")) m.not_counted = n.at("not_counted").str();
  if (n.has("engine_counters")) {
    for (const auto& [name, value] : n.at("engine_counters").members()) {
      m.engine_counters.push_back({name, value.at("unit").str(), value.at("per_item").number(),
                                   value.at("repeats").boolean()});
    }
    std::sort(m.engine_counters.begin(), m.engine_counters.end(),
              [](const auto& a, const auto& b) { return a.name < b.name; });
  }
  if (n.has("warnings")) {
    for (const Node& w : n.at("warnings").items()) m.warnings.push_back(w.str());
  }
  if (n.has("repeats")) {
    const Node r = n.at("repeats");
    RepeatsTaken repeats;
    repeats.taken = static_cast<std::uint32_t>(r.at("taken").count());
    if (const Node interval = r.at("interval"); !interval.is_null()) {
      const std::vector<Node> bounds = interval.items();
      if (bounds.size() != 2 || bounds[0].number() > bounds[1].number()) {
        throw BadValue{
            fmt::format("/metrics: \"{}\": repeats.interval must be [low, high]", m.key)};
      }
      repeats.interval = std::pair{bounds[0].number(), bounds[1].number()};
    }
    repeats.converged = r.at("converged").boolean();
    m.repeats = repeats;
  }
  return m;
}

PluginBuild read_build(const Node& n) {
  PluginBuild b;
  b.type = n.at("type").str();
  b.flags = n.at("flags").str();
  b.compiler = n.at("compiler").str();
  b.optimized = optional_of<bool>(n.at("optimized"), [](const Node& x) { return x.boolean(); });
  if (const Node hash = n.at("file_hash"); !hash.is_null()) b.file_hash = hash.str();
  return b;
}

// As plan/shard.h allows.
constexpr std::uint64_t kMaxShards = 10000;

Experiment read_experiment(const Node& n) {
  Experiment e;
  e.suite = n.at("suite").str();
  e.suite_file = n.at("suite_file").str();
  e.fingerprint = n.at("fingerprint").str();
  for (const Node& d : n.at("datasets").items()) e.datasets.push_back(d.count());
  e.repeat = static_cast<std::uint32_t>(n.at("repeat").count());
  e.warmup = static_cast<std::uint32_t>(n.at("warmup").count());
  e.memory_limit_bytes = optional_of<std::uint64_t>(n.at("memory_limit_bytes"),
                                                    [](const Node& x) { return x.count(); });
  e.timeout_seconds =
      optional_of<double>(n.at("timeout_seconds"), [](const Node& x) { return x.number(); });
  if (n.has("min_time_seconds")) {
    e.min_time_seconds =
        optional_of<double>(n.at("min_time_seconds"), [](const Node& x) { return x.number(); });
  }
  e.durability = n.at("durability").str();
  if (n.has("counters")) {
    for (const Node& c : n.at("counters").items()) e.counters.push_back(c.str());
  }
  if (n.has("repeat_until")) {
    const Node r = n.at("repeat_until");
    e.repeat_until =
        RepeatBounds{static_cast<std::uint32_t>(r.at("min").count()),
                     static_cast<std::uint32_t>(r.at("max").count()), r.at("until").number()};
  }
  e.host_version = n.at("host_version").str();
  for (const Node& r : n.at("engines").items()) {
    EngineRecord record{r.at("name").str(), r.at("version").str(), r.at("plugin").str(), {}};
    for (const Node& op : r.at("operations").items()) record.operations.push_back(op.str());
    if (r.has("build")) record.build = read_build(r.at("build"));
    e.engines.push_back(std::move(record));
  }
  for (const auto& [engine, per_engine] : n.at("params").members()) {
    std::vector<std::pair<std::string, std::vector<ParamValue>>> list;
    for (const auto& [name, values] : per_engine.members()) {
      std::vector<ParamValue> typed;
      for (const Node& v : values.items()) typed.push_back(param_of(v));
      list.emplace_back(name, std::move(typed));
    }
    e.params.emplace_back(engine, std::move(list));
  }
  e.work_dir = n.at("work_dir").at("path").str();
  e.work_dir_cleanup = n.at("work_dir").at("cleanup").str();
  // Provenance fields came later in schema 1: absent in older files.
  if (n.has("command_line")) {
    for (const Node& arg : n.at("command_line").items()) e.command_line.push_back(arg.str());
  }
  if (n.has("hostname")) e.hostname = n.at("hostname").str();
  if (n.has("git_commit")) {
    e.git_commit =
        optional_of<std::string>(n.at("git_commit"), [](const Node& x) { return x.str(); });
  }
  if (n.has("shard")) {
    const Node& s = n.at("shard");
    const std::uint64_t index = s.at("index").count(), count = s.at("count").count();
    const std::uint64_t cells = s.at("cells").count(), plan_cells = s.at("plan_cells").count();
    if (count < 1 || count > kMaxShards || index < 1 || index > count || cells > plan_cells) {
      s.refuse(
          fmt::format("not a shard: index {} of count {} with {} of {} cells (valid: 1 <= "
                      "index <= count <= {}, cells <= plan_cells)",
                      index, count, cells, plan_cells, kMaxShards));
    }
    e.shard = ShardRecord{static_cast<std::uint32_t>(index), static_cast<std::uint32_t>(count),
                          cells, plan_cells};
  }
  if (n.has("load_benches")) {
    for (const Node& b : n.at("load_benches").items()) {
      LoadBench bench;
      bench.name = b.at("name").str();
      for (const Node& op : b.at("operations").items()) bench.operations.push_back(op.str());
      for (const Node& p : b.at("points").items()) {
        const std::uint64_t clients = p.at("clients").count();
        if (clients < 1 || clients > std::numeric_limits<std::uint32_t>::max()) {
          p.refuse(fmt::format("clients {} is not a client count (valid: 1 to {})", clients,
                               std::numeric_limits<std::uint32_t>::max()));
        }
        bench.points.push_back({static_cast<std::uint32_t>(clients), p.at("transactions").count()});
      }
      e.load_benches.push_back(std::move(bench));
    }
  }
  return e;
}

Environment read_environment(const Node& n) {
  Environment v;
  v.os = n.at("os").str();
  v.kernel = n.at("kernel").str();
  v.cpu_model = n.at("cpu_model").str();
  v.cpu_count = static_cast<unsigned>(n.at("cpu_count").count());
  v.memory_bytes = n.at("memory_bytes").count();
  v.work_dir_filesystem = n.at("work_dir_filesystem").str();
  v.compiler = n.at("compiler").str();
  v.build_type = n.at("build_type").str();
  v.build_flags = n.at("build_flags").str();
  v.cpu_governor = n.at("cpu_governor").str();
  v.time = n.at("time").str();
  for (const Node& w : n.at("warnings").items()) v.warnings.push_back(w.str());
  return v;
}

Failure read_failure(const Node& n) {
  Failure f;
  f.engine = n.at("engine").str();
  f.dataset = n.at("dataset").count();
  f.params = read_params(n.at("params"));
  f.repeat = static_cast<int>(n.at("repeat").integer());
  f.operation = n.at("operation").str();
  const Node kind = n.at("kind");
  const std::string name = kind.str();
  const std::optional<Failure::Kind> known = parse_failure_kind(name);
  if (!known) {
    kind.refuse(
        fmt::format("unknown failure kind \"{}\" (valid: {})", name, failure_kind_choices()));
  }
  f.kind = *known;
  f.message = n.at("message").str();
  auto integer = [](const Node& x) { return static_cast<int>(x.integer()); };
  f.signal = optional_of<int>(n.at("signal"), integer);
  f.exit_code = optional_of<int>(n.at("exit_code"), integer);
  f.stderr_tail = n.at("stderr_tail").str();
  return f;
}

Run read_run(const Node& n) {
  Run r;
  r.engine = n.at("engine").str();
  r.dataset = n.at("dataset").count();
  r.params = read_params(n.at("params"));
  r.repeat = static_cast<int>(n.at("repeat").integer());
  r.ok = n.at("ok").boolean();
  r.wall_seconds = n.at("wall_seconds").number();
  r.startup_seconds = n.at("startup_seconds").number();
  r.peak_rss_bytes = n.at("peak_rss_bytes").count();
  return r;
}

}  // namespace

Expected<Environment> environment_from_json(const json& j, const std::string& path) {
  try {
    return read_environment(Node(j, path));
  } catch (const BadValue& bad) {
    return Error{bad.message};
  }
}

Expected<ResultFile> from_json(const json& j, const std::string& origin) {
  try {
    const Node root(j, "");
    ResultFile r;
    if (!root.has("schema_version")) {
      return Error{fmt::format("{}: not a storh-host result file (no schema_version)", origin)};
    }
    r.schema_version = static_cast<int>(root.at("schema_version").integer());
    if (r.schema_version != kSchemaVersion) {
      return Error{fmt::format("{}: schema_version {} is not supported (this host reads {})",
                               origin, r.schema_version, kSchemaVersion)};
    }
    r.interrupted = root.at("interrupted").boolean();
    r.experiment = read_experiment(root.at("experiment"));
    r.environment = read_environment(root.at("environment"));
    const std::vector<Node> metrics = root.at("metrics").items();
    std::map<std::string, std::size_t> index_of_key;
    for (std::size_t i = 0; i < metrics.size(); ++i) {
      r.metrics.push_back(read_metric(metrics[i]));
      const auto [earlier, added] = index_of_key.emplace(r.metrics[i].key, i);
      if (added) continue;
      metrics[i].at("key").refuse(
          fmt::format("the metric \"{}\" appears twice (also /metrics/{}): which one to compare is "
                      "anyone's guess",
                      r.metrics[i].key, earlier->second));
    }
    for (const Node& f : root.at("failures").items()) r.failures.push_back(read_failure(f));
    for (const Node& run : root.at("runs").items()) r.runs.push_back(read_run(run));
    return r;
  } catch (const BadValue& bad) {
    return Error{fmt::format("{}: {}", origin, bad.message)};
  }
}

}  // namespace storh::result
