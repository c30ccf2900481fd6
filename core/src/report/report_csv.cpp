// The machine-readable report formats: CSV (one row per metric, or one per interval of
// a load repeat) and JSON (the result file as this host reads it).
#include <algorithm>

#include <fmt/format.h>

#include "count/counters.h"
#include "report/counters_section.h"
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

// The counters some metric has, in the stable counter order (count::in_counter_order).
std::vector<std::string> counted_names(const result::ResultFile& result) {
  std::vector<std::string> names;
  for (const result::Metric& m : result.metrics) {
    for (const auto& [name, value] : m.counters) names.push_back(name);
  }
  return count::in_counter_order(names);
}

// A metric's counter cells: the value per item, empty when absent, "not counted" for
// every counter of a metric whose work the counters could not see.
std::vector<std::string> counter_cells(const result::Metric& m,
                                       const std::vector<std::string>& names) {
  std::vector<std::string> cells;
  cells.reserve(names.size() + 1);
  for (const std::string& name : names) {
    const auto found = std::find_if(m.counters.begin(), m.counters.end(),
                                    [&](const auto& c) { return c.first == name; });
    cells.push_back(!m.not_counted.empty()      ? std::string("not counted")
                    : found != m.counters.end() ? number(found->second)
                                                : std::string());
  }
  cells.push_back(m.not_counted);
  return cells;
}

}  // namespace

std::string metrics_csv(const result::ResultFile& result) {
  std::vector<const result::Metric*> all;
  for (const result::Metric& m : result.metrics) all.push_back(&m);
  // Counter columns only when the run counted something, so other files keep their form.
  const bool counted = has_counted(all);
  const std::vector<std::string> names =
      counted ? counted_names(result) : std::vector<std::string>{};
  std::vector<std::string> header = {"key",
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
                                     "warnings"};
  if (counted) {
    for (const std::string& name : names) header.push_back(name + "_per_item");
    header.emplace_back("not_counted");
  }
  std::string out = csv_line(header);
  for (const result::Metric& m : result.metrics) {
    std::vector<std::string> params;
    for (const auto& [name, value] : m.params) {
      params.push_back(name + "=" + suite::param_value_text(value));
    }
    const bool spread = m.seconds.runs >= 2 && m.seconds.mean > 0;
    // 1 / rate = median / items; a load metric's rate is transactions per second.
    const std::string per_item = !m.load && m.rate > 0 ? number(1 / m.rate) : "";
    std::vector<std::string> fields = {
        m.key,
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
        fmt::format("{}", fmt::join(m.warnings, "; "))};
    if (counted) {
      const std::vector<std::string> cells = counter_cells(m, names);
      fields.insert(fields.end(), cells.begin(), cells.end());
    }
    out += csv_line(fields);
  }
  return out;
}

std::string intervals_csv(const result::ResultFile& result) {
  std::string out = csv_line({"key",
                              "engine",
                              "operation",
                              "repeat",
                              "interval",
                              "start_seconds",
                              "end_seconds",
                              "transactions",
                              "tps",
                              "failed",
                              "retries",
                              "skipped",
                              "late",
                              "latency_mean_seconds",
                              "latency_stddev_seconds",
                              "latency_p50_seconds",
                              "latency_p90_seconds",
                              "latency_p99_seconds",
                              "latency_max_seconds",
                              "lag_mean_seconds",
                              "lag_max_seconds"});
  // A column the result leaves out (skipped, late: none happened) is 0 in every row.
  const auto count_at = [](const std::vector<std::uint64_t>& column, std::size_t i) {
    return std::to_string(i < column.size() ? column[i] : 0);
  };
  const auto seconds_at = [](const std::vector<double>& column, std::size_t i) {
    return i < column.size() ? number(column[i]) : std::string();
  };
  for (const result::Metric& m : result.metrics) {
    if (!m.load) continue;
    for (std::size_t r = 0; r < m.load->repeats.size(); ++r) {
      const result::LoadRepeat& repeat = m.load->repeats[r];
      if (!repeat.intervals) continue;
      const result::LoadIntervals& in = *repeat.intervals;
      for (std::size_t i = 0; i < in.size(); ++i) {
        const double start = static_cast<double>(i) * in.seconds;
        // The last interval ends with the timed phase, as the text report's last line.
        const double end = i + 1 == in.size() && repeat.run_seconds > start
                               ? repeat.run_seconds
                               : static_cast<double>(i + 1) * in.seconds;
        out += csv_line({m.key,
                         m.engine,
                         m.operation,
                         std::to_string(r),
                         std::to_string(i),
                         number(start),
                         number(end),
                         count_at(in.transactions, i),
                         number(static_cast<double>(in.transactions[i]) / (end - start)),
                         count_at(in.failed, i),
                         count_at(in.retries, i),
                         count_at(in.skipped, i),
                         count_at(in.late, i),
                         seconds_at(in.latency_mean, i),
                         seconds_at(in.latency_stddev, i),
                         seconds_at(in.latency_p50, i),
                         seconds_at(in.latency_p90, i),
                         seconds_at(in.latency_p99, i),
                         seconds_at(in.latency_max, i),
                         seconds_at(in.lag_mean, i),
                         seconds_at(in.lag_max, i)});
      }
    }
  }
  return out;
}

}  // namespace storh::report
