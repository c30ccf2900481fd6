#include "foreign/github_action_benchmark.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "foreign/exported_value.h"

namespace storh::foreign {

std::string github_action_benchmark_json(const result::ResultFile& result, ActionTool tool) {
  const bool bigger = tool == ActionTool::bigger_is_better;
  nlohmann::ordered_json benches = nlohmann::ordered_json::array();
  for (const ExportedValue& value : exported_values(result)) {
    if (value.higher_is_better != bigger) continue;
    benches.push_back({{"name", value.name},
                       {"unit", value.unit},
                       {"value", value.value},
                       {"range", fmt::format("± {:.6g}", value.stddev)},
                       {"extra", fmt::format("runs: {}\nmin .. max: {:.6g} .. {:.6g} {}",
                                             value.runs, value.lower, value.upper, value.unit)}});
  }
  return benches.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace storh::foreign
