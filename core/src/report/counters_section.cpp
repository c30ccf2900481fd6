#include "report/counters_section.h"

#include <cctype>

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "count/counters.h"
#include "report/report_parts.h"

namespace storh::report {

bool has_counted(const std::vector<const result::Metric*>& metrics) {
  return std::any_of(metrics.begin(), metrics.end(), [](const result::Metric* m) {
    return !m->counters.empty() || !m->not_counted.empty();
  });
}

bool has_engine_counters(const std::vector<const result::Metric*>& metrics) {
  return std::any_of(metrics.begin(), metrics.end(),
                     [](const result::Metric* m) { return !m->engine_counters.empty(); });
}

std::string counter_value_text(double value) {
  if (std::fabs(value) >= 1e6) return fmt::format("{:.0f}", value);
  return fmt::format("{:.6g}", value);
}

std::string counters_text(const result::Metric& metric) {
  if (!metric.not_counted.empty()) return fmt::format("not counted ({})", metric.not_counted);
  if (metric.counters.empty()) return kAbsent;
  std::vector<std::string> names;
  for (const auto& [counter, value] : metric.counters) names.push_back(counter);
  std::vector<std::string> shown;
  for (const std::string& name : count::in_counter_order(names)) {
    const auto found = std::find_if(metric.counters.begin(), metric.counters.end(),
                                    [&](const auto& c) { return c.first == name; });
    if (found->second != 0) {
      shown.push_back(fmt::format("{} {}", name, counter_value_text(found->second)));
    }
  }
  if (shown.empty()) return "none nonzero";
  return fmt::format("{}", fmt::join(shown, ", "));
}

std::string engine_counters_text(const result::Metric& metric) {
  if (metric.engine_counters.empty()) return kAbsent;
  std::vector<std::string> shown;
  for (const result::EngineCounterValue& c : metric.engine_counters) {
    if (c.per_item == 0) continue;
    shown.push_back(fmt::format("{} {}{} {}", c.name, c.repeats ? "" : "~",
                                counter_value_text(c.per_item), c.unit));
  }
  if (shown.empty()) return "none nonzero";
  return fmt::format("{}", fmt::join(shown, ", "));
}

std::pair<std::vector<Column>, Rows> counters_table(
    const std::vector<const result::Metric*>& metrics) {
  std::vector<Column> columns = {{"operation", Align::left}, {"counters per item", Align::left}};
  const bool engine = has_engine_counters(metrics);
  if (engine) columns.push_back({"engine's counters per item", Align::left});
  Rows rows;
  rows.reserve(metrics.size());
  for (const result::Metric* metric : metrics) {
    rows.push_back({label_of(*metric), counters_text(*metric)});
    if (engine) rows.back().push_back(engine_counters_text(*metric));
  }
  return {std::move(columns), std::move(rows)};
}

std::string counters_title(const result::ResultFile& result) {
  // A storh-host run names the instruments of its counting pass; a file that carries
  // counters without any came with them (Google Benchmark's user and rate counters).
  if (!result.experiment.counters.empty()) return "counters per item (counting pass)";
  const bool file_counters =
      std::any_of(result.metrics.begin(), result.metrics.end(),
                  [](const result::Metric& m) { return !m.counters.empty(); });
  // Only the engine's own counters: per item of a step, per transaction of a load cell.
  return file_counters ? "counters from the file (rates per second, others as reported)"
                       : "counters per item (the engine's own)";
}

std::string counters_section(const std::vector<const result::Metric*>& metrics, ReportFormat format,
                             const std::string& title) {
  if (!has_counted(metrics) && !has_engine_counters(metrics)) return "";
  const auto [columns, rows] = counters_table(metrics);
  if (format == ReportFormat::markdown) {
    std::string heading = title;
    if (!heading.empty()) heading[0] = static_cast<char>(std::toupper(heading[0]));
    return heading + ":\n\n" + markdown_table(columns, rows) + "\n";
  }
  return "  " + title + ":\n" + indent_lines(text_table(columns, rows), 4);
}

}  // namespace storh::report
