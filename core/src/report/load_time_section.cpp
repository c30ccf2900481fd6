#include "report/load_time_section.h"

#include <algorithm>
#include <numeric>

#include <fmt/format.h>

#include "report/format.h"
#include "report/report_parts.h"
#include "report/table.h"

namespace storh::report {
namespace {

using result::LoadIntervals;
using result::LoadResult;
using result::Metric;

struct Cell {
  const Metric* metric = nullptr;
  std::size_t repeat = 0;
  const LoadIntervals* series = nullptr;
  double run_seconds = 0;
};

std::vector<Cell> cells_of(const std::vector<const Metric*>& metrics) {
  std::vector<Cell> cells;
  for (const Metric* metric : metrics) {
    if (!metric->load || metric->load->repeats.empty()) continue;
    const std::size_t repeat = median_repeat(*metric->load);
    const result::LoadRepeat& r = metric->load->repeats[repeat];
    if (!r.intervals || r.intervals->size() == 0) continue;
    cells.push_back({metric, repeat, &*r.intervals, r.run_seconds});
  }
  return cells;
}

std::string cell_label(const Metric& metric) {
  const std::string prefix = metric.engine + ".";
  return metric.key.starts_with(prefix) ? metric.key.substr(prefix.size()) : metric.key;
}

// Interval i's end and length: the last one ends with the run.
double interval_end(const LoadIntervals& s, std::size_t i, double run_seconds) {
  const double end = s.seconds * static_cast<double>(i + 1);
  if (i + 1 == s.size() && run_seconds > s.seconds * static_cast<double>(i)) {
    return std::min(end, run_seconds);
  }
  return end;
}

double interval_tps(const LoadIntervals& s, std::size_t i, double run_seconds) {
  const double length = interval_end(s, i, run_seconds) - s.seconds * static_cast<double>(i);
  return length > 0 ? static_cast<double>(s.transactions[i]) / length : 0;
}

}  // namespace

std::size_t median_repeat(const LoadResult& load) {
  if (load.repeats.empty()) return 0;
  std::vector<std::size_t> order(load.repeats.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return load.repeats[a].tps_excluding_setup < load.repeats[b].tps_excluding_setup;
  });
  return order[(order.size() - 1) / 2];
}

std::string progress_lines(const LoadIntervals& s, double run_seconds, bool rate,
                           bool latency_limit) {
  const bool retries =
      std::any_of(s.retries.begin(), s.retries.end(), [](std::uint64_t r) { return r != 0; });
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    out += fmt::format("progress: {:.1f} s, {:.1f} tps, lat {:.3f} ms stddev {:.3f}, {} failed",
                       interval_end(s, i, run_seconds), interval_tps(s, i, run_seconds),
                       s.latency_mean[i] * 1e3, s.latency_stddev[i] * 1e3, s.failed[i]);
    if (rate && i < s.lag_mean.size()) {
      out += fmt::format(", lag {:.3f} ms", s.lag_mean[i] * 1e3);
      if (latency_limit) out += fmt::format(", {} skipped", s.skipped[i]);
    }
    if (retries) out += fmt::format(", {} retries", s.retries[i]);
    out += '\n';
  }
  return out;
}

std::string load_time_section(const std::vector<const Metric*>& metrics, ReportFormat format) {
  const std::vector<Cell> cells = cells_of(metrics);
  if (cells.empty()) return "";
  std::string out;
  std::size_t printed = 0, left = 0;
  for (const Cell& cell : cells) {
    const std::size_t n = cell.series->size();
    if (n > kMaxProgressLines || printed + n > kMaxProgressTotal) {
      ++left;
      continue;
    }
    printed += n;
    const LoadResult& load = *cell.metric->load;
    const std::string title =
        fmt::format("over time: {} (repeat {}, the median tps; every {}s)",
                    cell_label(*cell.metric), cell.repeat, cell.series->seconds);
    const std::string lines =
        progress_lines(*cell.series, cell.run_seconds, load.target_rate.has_value(),
                       load.latency_limit.has_value());
    if (format == ReportFormat::text) {
      out += fmt::format("  {}\n", title);
      out += indent_lines(lines, 4);
    } else {
      out += fmt::format("**{}**\n\n```\n{}```\n\n", markdown_cell(title), lines);
    }
  }
  if (left > 0) {
    const std::string note = fmt::format(
        "over time: {} more cell(s) have interval series too long to print here; the "
        "result file and the HTML report hold them",
        left);
    out += format == ReportFormat::text ? fmt::format("  {}\n", note) : note + "\n\n";
  }
  return out;
}

std::string load_time_html(const std::vector<const Metric*>& metrics, HtmlCharts& charts) {
  const std::vector<Cell> cells = cells_of(metrics);
  if (cells.empty()) return "";
  std::string out = "<h3>over time</h3>\n";
  std::size_t drawn = 0;
  for (const Cell& cell : cells) {
    if (drawn == kMaxTimeCharts) break;
    ++drawn;
    const LoadIntervals& s = *cell.series;
    nlohmann::json labels = nlohmann::json::array(), tps = nlohmann::json::array();
    for (std::size_t i = 0; i < s.size(); ++i) {
      labels.push_back(interval_end(s, i, cell.run_seconds));
      tps.push_back(interval_tps(s, i, cell.run_seconds));
    }
    nlohmann::json spec = {{"kind", "timeline"},
                           {"labels", std::move(labels)},
                           {"tps", std::move(tps)},
                           {"p99", s.latency_p99}};
    out += charts.figure(
        std::move(spec),
        fmt::format("{}: tps and latency p99 per {}s interval (repeat {}, the median tps)",
                    cell_label(*cell.metric), s.seconds, cell.repeat));
  }
  if (cells.size() > drawn) {
    out += fmt::format("<p>{} more cell(s) have interval series; the result file holds them.</p>\n",
                       cells.size() - drawn);
  }
  return out;
}

}  // namespace storh::report
