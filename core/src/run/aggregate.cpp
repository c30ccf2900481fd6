#include "run/aggregate.h"

#include <algorithm>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <fmt/format.h>

#include "load/summary.h"
#include "result/engine_values.h"
#include "run/adaptive.h"
#include "run/engine_counters.h"
#include "stats/spread.h"
#include "stats/stats.h"
#include "util/natural_order.h"

namespace storh::run {
namespace {

// Summary and rate from the samples (at least one); stats::judge_run_spread warns.
void summarize_metric(result::Metric& metric) {
  std::vector<double> seconds;
  for (const result::Sample& s : metric.samples) seconds.push_back(s.seconds);
  metric.seconds = stats::summarize(seconds);
  const auto items = static_cast<double>(metric.samples.front().items);
  metric.rate = metric.seconds.median > 0 ? items / metric.seconds.median : 0;
}

// A load metric from the cell's load phases of this operation; false when none
// finished (an outcome the host cannot read is dropped, never guessed at).
bool aggregate_load(const plan::Cell& cell, const CellRuns& runs, result::Metric& metric) {
  std::vector<load::LoadOutcome> outcomes;
  for (const CellRun& run : runs) {
    for (const LoadSample& sample : run.loads) {
      if (sample.operation != metric.operation) continue;
      Expected<load::LoadOutcome> outcome = load::load_outcome_from_json(sample.outcome);
      if (!outcome) continue;
      metric.samples.push_back({outcome->run_seconds, outcome->processed});
      outcomes.push_back(std::move(*outcome));
    }
  }
  if (outcomes.empty()) return false;
  summarize_metric(metric);
  metric.load = load::summarize_load(*cell.load, outcomes);
  metric.rate = metric.load->tps_excluding_setup;
  // The generic latency block too, so every reader of latency sees these.
  load::LatencyRecord merged;
  for (const load::LoadOutcome& o : outcomes) merged.merge(o.latency);
  metric.latency = stats::latency_summary(merged.histogram);
  return true;
}

// Adds the names of `cell` not yet in `record`, each before the next name of `cell`
// that `record` holds, else at the end. With bench points a cell runs a subset of its
// engine's operations in declared order, so the union keeps that order wherever the
// cells show it (and first appearance where they do not).
void add_operations(std::vector<std::string>& record, const std::vector<std::string>& cell) {
  for (auto name = cell.begin(); name != cell.end(); ++name) {
    if (std::find(record.begin(), record.end(), *name) != record.end()) continue;
    auto at = record.end();
    for (auto later = name + 1; later != cell.end() && at == record.end(); ++later) {
      at = std::find(record.begin(), record.end(), *later);
    }
    record.insert(at, *name);
  }
}

// "durable" when every cell with the engine parameter `durability` ran a level that
// syncs what it reports stored ("durable", "fsync"); else each other level with the
// engines that ran it, in the order first met: "none: queue", "os: rocksdb, sqlite",
// "none: queue; os: sqlite". So reports and compare say which numbers were not
// durable, and how far from it (`os` survives a process crash, not a power loss).
std::string durability_of(const plan::Plan& plan) {
  std::vector<std::pair<std::string, std::vector<std::string>>> levels;
  for (const plan::Cell& cell : plan.cells) {
    for (const auto& [name, value] : cell.params) {
      const auto* text = std::get_if<std::string>(&value);
      if (name != "durability" || text == nullptr || *text == "durable" || *text == "fsync") {
        continue;
      }
      auto level = std::find_if(levels.begin(), levels.end(),
                                [&](const auto& known) { return known.first == *text; });
      if (level == levels.end()) level = levels.insert(levels.end(), {*text, {}});
      if (std::find(level->second.begin(), level->second.end(), cell.engine) ==
          level->second.end()) {
        level->second.push_back(cell.engine);
      }
    }
  }
  if (levels.empty()) return "durable";
  std::vector<std::string> parts;
  parts.reserve(levels.size());
  for (const auto& [level, engines] : levels) {
    parts.push_back(fmt::format("{}: {}", level, fmt::join(engines, ", ")));
  }
  return fmt::format("{}", fmt::join(parts, "; "));
}

}  // namespace

std::vector<result::Metric> aggregate_metrics(const plan::Plan& plan,
                                              const std::vector<CellRuns>& runs) {
  std::vector<result::Metric> metrics;
  for (std::size_t c = 0; c < plan.cells.size() && c < runs.size(); ++c) {
    const plan::Cell& cell = plan.cells[c];
    for (const OperationSpec& op : cell.operations) {
      result::Metric metric;
      metric.key = plan::metric_key(cell, op.name);
      metric.engine = cell.engine;
      metric.operation = op.name;
      metric.dataset = cell.dataset;
      metric.params = cell.params;
      metric.unit = op.unit;
      metric.direction = result::metric_direction(op.direction);
      if (cell.load) {
        if (aggregate_load(cell, runs[c], metric)) {
          metric.engine_counters =
              summarize_engine_counters(runs[c], op.name, &metric.engine_counter_repeats);
          metrics.push_back(std::move(metric));
        }
        continue;
      }
      stats::LatencyHistogram latency;
      for (const CellRun& run : runs[c]) {
        for (const OperationSample& sample : run.samples) {
          if (sample.operation != op.name) continue;
          metric.samples.push_back({sample.seconds, sample.items, sample.calls});
          if (sample.latency.is_null()) continue;
          // A histogram the host cannot read is dropped, never guessed at.
          Expected<stats::LatencyHistogram> histogram =
              stats::LatencyHistogram::from_json(sample.latency);
          if (histogram) latency.merge(*histogram);
        }
      }
      if (metric.samples.empty()) continue;
      summarize_metric(metric);
      metric.latency = stats::latency_summary(latency);
      metric.engine_counters =
          summarize_engine_counters(runs[c], op.name, &metric.engine_counter_repeats);
      metrics.push_back(std::move(metric));
    }
  }
  std::sort(metrics.begin(), metrics.end(), [](const result::Metric& a, const result::Metric& b) {
    return natural_less(a.key, b.key);  // transactions=50 before 200
  });
  return metrics;
}

void add_samples(result::ResultFile& result, const result::ResultFile& extra) {
  for (const result::Metric& more : extra.metrics) {
    auto it = std::find_if(result.metrics.begin(), result.metrics.end(),
                           [&](const result::Metric& m) { return m.key == more.key; });
    if (it == result.metrics.end()) continue;
    it->samples.insert(it->samples.end(), more.samples.begin(), more.samples.end());
    summarize_metric(*it);
    // The counters of the re-run's repeats join the first run's, as its samples do.
    merge_engine_counters(*it, more);
    // An adaptive run's record says how many repeats the cell took: the re-run's too.
    if (result.experiment.repeat_until) {
      add_to_record(*it, static_cast<std::uint32_t>(more.samples.size()),
                    *result.experiment.repeat_until);
    }
  }
  stats::judge_run_spread(result);
  result.runs.insert(result.runs.end(), extra.runs.begin(), extra.runs.end());
  result.failures.insert(result.failures.end(), extra.failures.begin(), extra.failures.end());
}

result::Experiment describe_experiment(const plan::Plan& plan,
                                       const std::filesystem::path& work_root) {
  result::Experiment e;
  e.suite = plan.suite.name;
  e.suite_file = plan.suite.file.string();
  e.fingerprint = plan.fingerprint;
  e.datasets = plan.suite.datasets;
  e.repeat = plan.repeat;
  if (plan.repeat_until) {
    e.repeat_until = result::RepeatBounds{plan.repeat_until->min, plan.repeat_until->max,
                                          plan.repeat_until->until};
  }
  e.warmup = plan.warmup;
  e.memory_limit_bytes = plan.memory_limit_bytes;
  e.timeout_seconds = plan.timeout_seconds;
  e.min_time_seconds = plan.min_time_seconds;
  e.host_version = STORH_VERSION;
  e.work_dir = work_root.string();
  for (const plan::Cell& cell : plan.cells) {
    auto engine =
        std::find_if(e.engines.begin(), e.engines.end(),
                     [&](const result::EngineRecord& r) { return r.name == cell.engine; });
    if (engine == e.engines.end()) {
      e.engines.push_back({cell.engine, cell.engine_version, cell.plugin.string(),
                           cell.operation_names(), cell.build});
      e.params.emplace_back(cell.engine,
                            std::vector<std::pair<std::string, std::vector<ParamValue>>>{});
    } else {
      add_operations(engine->operations, cell.operation_names());
    }
    auto& params = std::find_if(e.params.begin(), e.params.end(), [&](const auto& p) {
                     return p.first == cell.engine;
                   })->second;
    for (const auto& [name, value] : cell.params) {
      auto it = std::find_if(params.begin(), params.end(),
                             // A copy: clang 14 cannot capture a structured binding.
                             [&name = name](const auto& p) { return p.first == name; });
      if (it == params.end()) it = params.insert(params.end(), {name, {}});
      if (std::find(it->second.begin(), it->second.end(), value) == it->second.end()) {
        it->second.push_back(value);
      }
    }
  }
  e.durability = durability_of(plan);
  e.load_benches = plan.suite.load_benches;
  return e;
}

}  // namespace storh::run
