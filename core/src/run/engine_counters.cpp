#include "run/engine_counters.h"

#include <algorithm>
#include <map>
#include <string>

#include "stats/stats.h"

namespace storh::run {

std::vector<result::EngineCounterValue> summarize_engine_counters(const CellRuns& runs,
                                                                  std::string_view operation) {
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
  }
  return values;
}

}  // namespace storh::run
