#include "report/range_section.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <string_view>

#include <fmt/format.h>

#include "report/format.h"
#include "report/html.h"
#include "report/report_parts.h"
#include "report/table.h"
#include "stats/complexity.h"

namespace storh::report {
namespace {

using result::Metric;

// One operation and parameter combination across the dataset sizes.
struct RangeRow {
  std::string label;
  const Metric* first = nullptr;     // identifies the row: operation and params
  std::vector<const Metric*> cells;  // one per metric, any size order
};

std::string row_label(const Metric& metric) {
  return label_of(metric, {fmt::format("n={}", metric.dataset)});
}

// Rows in order of first appearance, so the engine block's order carries over.
std::vector<RangeRow> rows_of(const std::vector<const Metric*>& metrics) {
  std::vector<RangeRow> rows;
  for (const Metric* metric : metrics) {
    auto same = [&](const RangeRow& row) {
      return row.first->operation == metric->operation && row.first->params == metric->params;
    };
    auto row = std::find_if(rows.begin(), rows.end(), same);
    if (row == rows.end()) row = rows.insert(rows.end(), RangeRow{row_label(*metric), metric, {}});
    row->cells.push_back(metric);
  }
  return rows;
}

// The row's (size, median) points in size order; a zero median carries no information
// for a fit of relative errors, so it is left out.
std::vector<stats::SizeTime> points_of(const RangeRow& row) {
  std::vector<stats::SizeTime> points;
  for (const Metric* metric : row.cells) {
    if (metric->seconds.median > 0) points.push_back({metric->dataset, metric->seconds.median});
  }
  std::sort(points.begin(), points.end(),
            [](const stats::SizeTime& a, const stats::SizeTime& b) { return a.n < b.n; });
  return points;
}

std::string fit_text(const RangeRow& row) {
  const std::vector<stats::SizeTime> points = points_of(row);
  if (points.size() < stats::kMinComplexitySizes) return "too few sizes";
  const Expected<stats::ComplexityFit> fit = stats::fit_complexity(points);
  return fit ? stats::complexity_text(fit.value()) : "no fit: " + fit.error();
}

// The fitted curve c * f(n) at each measured size and at 3 sizes evenly spaced (on a
// log axis) between neighbours, so that it draws as a curve; empty without a fit.
nlohmann::json fitted_curve(const std::vector<stats::SizeTime>& points) {
  nlohmann::json curve = nlohmann::json::array();
  if (points.size() < stats::kMinComplexitySizes) return curve;
  const Expected<stats::ComplexityFit> fit = stats::fit_complexity(points);
  if (!fit) return curve;
  auto add = [&](double n) {
    curve.push_back({n, fit->coefficient * stats::complexity_term(fit->model, n)});
  };
  constexpr int kSteps = 4;
  for (std::size_t i = 0; i + 1 < points.size(); ++i) {
    const double low = std::log(static_cast<double>(points[i].n));
    const double high = std::log(static_cast<double>(points[i + 1].n));
    for (int step = 0; step < kSteps; ++step) add(std::exp(low + (high - low) * step / kSteps));
  }
  add(static_cast<double>(points.back().n));
  return curve;
}

// The cells of the "rate by dataset size" table, one row per operation.
std::pair<std::vector<Column>, Rows> range_table(const std::vector<const Metric*>& metrics) {
  std::set<std::uint64_t> sizes;
  for (const Metric* metric : metrics) sizes.insert(metric->dataset);
  std::vector<Column> columns = {{"operation", Align::left}};
  for (std::uint64_t n : sizes) columns.push_back({fmt::format("n={}", n), Align::right});
  columns.push_back({"complexity", Align::left});
  Rows table;
  for (const RangeRow& row : rows_of(metrics)) {
    std::vector<std::string> cells = {row.label};
    for (std::uint64_t n : sizes) {
      const auto at = std::find_if(row.cells.begin(), row.cells.end(),
                                   [n](const Metric* m) { return m->dataset == n; });
      const bool rated = at != row.cells.end() && (*at)->rate > 0;
      cells.push_back(rated ? format_rate((*at)->rate, (*at)->unit) : "-");
    }
    cells.push_back(fit_text(row));
    table.push_back(std::move(cells));
  }
  return {std::move(columns), std::move(table)};
}

}  // namespace

bool has_several_datasets(const result::ResultFile& result) {
  return std::any_of(result.metrics.begin(), result.metrics.end(), [&](const Metric& metric) {
    return metric.dataset != result.metrics.front().dataset;
  });
}

std::string range_section(const std::string& engine, const std::vector<const Metric*>& metrics,
                          ReportFormat format) {
  if (metrics.empty()) return {};
  const auto [columns, table] = range_table(metrics);

  if (format == ReportFormat::markdown) {
    return fmt::format("### {}: rate by dataset size\n\n{}\n", markdown_cell(engine),
                       markdown_table(columns, table));
  }
  std::string out = "  rate by dataset size:\n";
  const std::string text = text_table(columns, table);
  const std::string_view lines = text;
  for (std::size_t start = 0; start < lines.size();) {
    const std::size_t end = std::min(lines.find('\n', start), lines.size() - 1);
    (out += "    ") += lines.substr(start, end - start + 1);
    start = end + 1;
  }
  return out;
}

std::string range_section_html(const std::vector<const Metric*>& metrics, HtmlCharts& charts) {
  if (metrics.empty()) return {};
  nlohmann::json series = nlohmann::json::array();
  for (const RangeRow& row : rows_of(metrics)) {
    if (row.first->load) continue;  // load cells are drawn by the load section
    const std::vector<stats::SizeTime> points = points_of(row);
    nlohmann::json measured = nlohmann::json::array();
    for (const stats::SizeTime& point : points) measured.push_back({point.n, point.seconds});
    series.push_back({{"label", row.label},
                      {"fit", fit_text(row)},
                      {"points", std::move(measured)},
                      {"fitted", fitted_curve(points)}});
  }
  std::string out = "<h3>Time by dataset size</h3>\n";
  if (!series.empty()) {
    out += charts.figure({{"kind", "range"}, {"series", std::move(series)}},
                         "median time of one step against the dataset size, both on log "
                         "axes; dashed: the fitted complexity");
  }
  const auto [columns, table] = range_table(metrics);
  return out + html_table(columns, table);
}

}  // namespace storh::report
