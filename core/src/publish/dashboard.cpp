#include "publish/dashboard.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "publish/exported_value.h"

namespace storh::publish {
namespace {

using nlohmann::ordered_json;

ordered_json bmf(const std::vector<ExportedValue>& values) {
  ordered_json root = ordered_json::object();
  for (const ExportedValue& value : values) {
    const bool throughput = value.direction == result::MetricDirection::higher_is_better;
    root[value.name][throughput ? "throughput" : "latency"] = {
        {"value", value.value}, {"lower_value", value.lower}, {"upper_value", value.upper}};
  }
  return root;
}

ordered_json github_action(const std::vector<ExportedValue>& values, bool bigger) {
  ordered_json benches = ordered_json::array();
  for (const ExportedValue& value : values) {
    if ((value.direction == result::MetricDirection::higher_is_better) != bigger) continue;
    benches.push_back({{"name", value.name},
                       {"unit", value.unit},
                       {"value", value.value},
                       {"range", fmt::format("± {:.6g}", value.stddev)},
                       {"extra", fmt::format("runs: {}\nmin .. max: {:.6g} .. {:.6g} {}",
                                             value.runs, value.lower, value.upper, value.unit)}});
  }
  return benches;
}

}  // namespace

std::optional<DashboardFormat> parse_dashboard_format(std::string_view name) {
  if (name == "bmf") return DashboardFormat::bmf;
  if (name == "github-action-benchmark") return DashboardFormat::github_action_smaller;
  if (name == "github-action-benchmark-bigger") return DashboardFormat::github_action_bigger;
  return std::nullopt;
}

std::string dashboard_json(const result::ResultFile& result, DashboardFormat format) {
  const std::vector<ExportedValue> values = exported_values(result);
  const ordered_json json =
      format == DashboardFormat::bmf
          ? bmf(values)
          : github_action(values, format == DashboardFormat::github_action_bigger);
  // Keys come from result files and plugin parameters: replace what is not UTF-8
  // rather than fail, as result/json.h does.
  return json.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace storh::publish
