// The machine-readable report formats: CSV (one row per metric) and JSON (the result
// file as this host reads it).
#include <fmt/format.h>

#include "report/report.h"
#include "report/table.h"
#include "result/engine_values.h"
#include "result/json.h"
#include "suite/parse.h"  // param_value_text

namespace storh::report {
namespace {

// Shortest text that reads back to the same double, as the result file has it.
std::string number(double value) {
  return fmt::format("{}", value);
}

std::string optional_number(const std::optional<double>& value) {
  return value ? number(*value) : "";
}

}  // namespace

std::string metrics_csv(const result::ResultFile& result) {
  std::string out = csv_line({"key",
                              "engine",
                              "operation",
                              "dataset",
                              "params",
                              "unit",
                              "direction",
                              "runs",
                              "median_seconds",
                              "min_seconds",
                              "max_seconds",
                              "mean_seconds",
                              "stddev_seconds",
                              "mad_seconds",
                              "cv_percent",
                              "per_item_seconds",
                              "rate_per_second",
                              "p50_seconds",
                              "p99_seconds",
                              "warnings"});
  for (const result::Metric& m : result.metrics) {
    std::vector<std::string> params;
    for (const auto& [name, value] : m.params) {
      params.push_back(name + "=" + suite::param_value_text(value));
    }
    const bool spread = m.seconds.runs >= 2 && m.seconds.mean > 0;
    // 1 / rate = median / items; a load metric's rate is transactions per second.
    const std::string per_item = !m.load && m.rate > 0 ? number(1 / m.rate) : "";
    out += csv_line({m.key,
                     m.engine,
                     m.operation,
                     std::to_string(m.dataset),
                     fmt::format("{}", fmt::join(params, " ")),
                     m.unit,
                     result::direction_name(m.direction),
                     std::to_string(m.seconds.runs),
                     number(m.seconds.median),
                     number(m.seconds.min),
                     number(m.seconds.max),
                     number(m.seconds.mean),
                     number(m.seconds.stddev),
                     number(m.seconds.mad),
                     spread ? number(m.seconds.stddev / m.seconds.mean * 100) : "",
                     per_item,
                     number(m.rate),
                     m.latency ? optional_number(m.latency->p50) : "",
                     m.latency ? optional_number(m.latency->p99) : "",
                     fmt::format("{}", fmt::join(m.warnings, "; "))});
  }
  return out;
}

}  // namespace storh::report
