#include "run/engine_counters.h"

#include <algorithm>
#include <array>
#include <map>
#include <string>

#include "stats/stats.h"

namespace storh::run {

std::vector<result::EngineCounterValue> summarize_engine_counters(
    const CellRuns& runs, std::string_view operation,
    std::map<std::string, std::vector<double>>* per_repeat) {
  struct Gathered {
    std::string unit;
    std::vector<double> per_item;  // one per repeat
    bool repeats = true;
  };
  std::map<std::string, Gathered> by_name;
  for (const CellRun& run : runs) {
    std::map<std::string, const worker::EngineCounterEvent*> last;
    for (const worker::EngineCounterEvent& sample : run.engine_counters) {
      if (sample.op == operation && sample.items > 0) last[sample.name] = &sample;
    }
    for (const auto& [name, sample] : last) {
      Gathered& gathered = by_name[name];
      if (gathered.unit.empty()) gathered.unit = sample->unit;
      gathered.per_item.push_back(sample->total / static_cast<double>(sample->items));
      gathered.repeats = gathered.repeats && sample->repeats;
    }
  }
  std::vector<result::EngineCounterValue> values;
  values.reserve(by_name.size());
  for (auto& [name, gathered] : by_name) {
    values.push_back(
        {name, gathered.unit, stats::summarize(gathered.per_item).median, gathered.repeats});
    if (per_repeat != nullptr) (*per_repeat)[name] = std::move(gathered.per_item);
  }
  return values;
}

void merge_engine_counters(result::Metric& metric, const result::Metric& more) {
  // Each side's figures per repeat; a side read from a file has only its median.
  const auto figures = [](const result::Metric& m, const result::EngineCounterValue& value) {
    const auto found = m.engine_counter_repeats.find(value.name);
    return found == m.engine_counter_repeats.end() ? std::vector<double>{value.per_item}
                                                   : found->second;
  };
  std::map<std::string, result::EngineCounterValue> by_name;
  std::map<std::string, std::vector<double>> repeats;
  const std::array<const result::Metric*, 2> sides = {&metric, &more};
  for (const result::Metric* side : sides) {
    for (const result::EngineCounterValue& value : side->engine_counters) {
      const std::vector<double> add = figures(*side, value);
      std::vector<double>& all = repeats[value.name];
      all.insert(all.end(), add.begin(), add.end());
      auto [it, added] = by_name.try_emplace(value.name, value);
      if (!added) it->second.repeats = it->second.repeats && value.repeats;
    }
  }
  metric.engine_counters.clear();
  for (auto& [name, value] : by_name) {
    value.per_item = stats::summarize(repeats[name]).median;
    metric.engine_counters.push_back(std::move(value));
  }
  metric.engine_counter_repeats = std::move(repeats);
}

}  // namespace storh::run
