// compare --format=html: a comparison as one self-contained page (report/html.h).
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "compare/counter_changes.h"
#include "compare/explain.h"
#include "compare/ratio_interval.h"
#include "compare/render.h"
#include "report/html.h"
#include "result/metric_key.h"

namespace storh::compare {
namespace {

using report::html_escape;

// Rows grouped by engine, engines in order of first appearance.
template <typename Row>
std::vector<std::pair<std::string, std::vector<const Row*>>> by_engine(
    const std::vector<Row>& rows) {
  std::vector<std::pair<std::string, std::vector<const Row*>>> groups;
  for (const Row& row : rows) {
    const std::string engine = result::MetricKey::parse(row.key).engine;
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const auto& group) { return group.first == engine; });
    if (it == groups.end()) it = groups.insert(groups.end(), {engine, {}});
    it->second.push_back(&row);
  }
  return groups;
}

std::string files_list(const std::vector<std::string>& names, const std::vector<FileKind>& kinds) {
  std::string out = "<ol class=\"files\">\n";
  for (std::size_t i = 0; i < names.size(); ++i) {
    out += fmt::format("<li><code>{}</code> ({}){}</li>\n", html_escape(names[i]),
                       html_escape(file_kind_name(kinds[i])), i == 0 ? ": the base" : "");
  }
  return out + "</ol>\n";
}

std::string warnings_list(const std::vector<std::string>& warnings) {
  if (warnings.empty()) return "";
  std::string out = "<section class=\"warnings\"><h2>Warnings</h2>\n<ul>\n";
  for (const std::string& warning : warnings) {
    out += fmt::format("<li>{}</li>\n", html_escape(warning));
  }
  return out + "</ul>\n</section>\n";
}

// One engine's metrics on both sides as ratio bars (kind "ratios").
std::string ratio_figure(const std::vector<const PairRow*>& rows, double alpha,
                         report::HtmlCharts& charts) {
  std::vector<report::RatioBar> bars;
  for (const PairRow* row : rows) {
    if (row->status != RowStatus::both || !(row->base->median > 0) || !(row->next->median > 0)) {
      continue;  // new, missing, or a zero that a log axis cannot show
    }
    report::RatioBar bar;
    bar.label = row->key;
    bar.ratio = row->next->median / row->base->median;
    if (const auto interval = ratio_interval(row->base->samples, row->next->samples, alpha)) {
      bar.low = interval->low;
      bar.high = interval->high;
    }
    bar.significant = row->significance && row->significance->significant;
    bar.verdict = verdict_name(row->verdict);
    bars.push_back(std::move(bar));
  }
  return report::ratio_bars_figure(
      bars,
      fmt::format("new / base of each median (point) on its {:.0f}% confidence interval (bar), "
                  "log axis; red slower, green faster, grey same; * significant",
                  (1 - alpha) * 100),
      charts);
}

// One engine's later files as ratios to the first (kind "matrix").
std::string matrix_figure(const MatrixComparison& m, const std::vector<const MatrixRow*>& rows,
                          report::HtmlCharts& charts) {
  nlohmann::json labels = nlohmann::json::array(), series = nlohmann::json::array();
  for (std::size_t file = 1; file < m.names.size(); ++file) {
    series.push_back({{"label", m.names[file]}, {"values", nlohmann::json::array()}});
  }
  for (const MatrixRow* row : rows) {
    labels.push_back(row->key);
    for (std::size_t file = 1; file < row->cells.size(); ++file) {
      const auto& ratio = row->cells[file].ratio;
      series[file - 1]["values"].push_back(ratio && *ratio > 0 ? nlohmann::json(*ratio)
                                                               : nlohmann::json(nullptr));
    }
  }
  if (labels.empty()) return "";
  const std::size_t bars = labels.size() * series.size();
  return charts.figure(
      {{"kind", "matrix"}, {"labels", std::move(labels)}, {"series", std::move(series)}},
      "each file's median as a ratio to the first file's (bars from 1), log axis",
      report::bar_chart_height(bars));
}

}  // namespace

std::string render_pair_html(const PairComparison& c, const report::HtmlAssets& assets) {
  report::HtmlCharts charts;
  std::string body = "<header>\n<h1>storh-host compare</h1>\n";
  body += files_list({c.base_name, c.new_name}, {c.base_kind, c.new_kind});
  if (c.geomean.ratio) {
    body += fmt::format("<p class=\"summary\">Geomean over {} metrics: {} ({}).</p>\n",
                        c.geomean.metrics, html_escape(format_ratio(*c.geomean.ratio)),
                        *c.geomean.ratio > 1   ? "slower"
                        : *c.geomean.ratio < 1 ? "faster"
                                               : "same");
  }
  body += "</header>\n" + warnings_list(c.warnings) + "<main>\n";
  for (const auto& [engine, rows] : by_engine(c.rows)) {
    body += fmt::format("<section class=\"engine\"><h2>{}</h2>\n", html_escape(engine));
    body += ratio_figure(rows, c.alpha, charts) + "</section>\n";
  }
  const auto [columns, rows] = pair_table(c);
  body += "<section><h2>Every metric</h2>\n" + report::html_table(columns, rows);
  body += fmt::format(
      "<p class=\"legend\">{} The interval is the confidence interval of "
      "new / base that goes with that test (Hodges-Lehmann).</p>\n</section>\n",
      html_escape(pair_explanation(c)));
  if (const auto changes = counter_changes(c); !changes.empty()) {
    const auto [counter_columns, counter_rows] = counter_changes_table(changes);
    body += "<section><h2>" + html_escape(counter_changes_title(c, changes, true)) + "</h2>\n" +
            report::html_table(counter_columns, counter_rows) + "</section>\n";
  }
  if (const auto lines = engine_counter_explanations(c); !lines.empty()) {
    body +=
        "<section class=\"engine-explanations\"><h2>Engine counters that changed with "
        "it</h2>\n<ul>\n";
    for (const std::string& line : lines) body += "<li>" + html_escape(line) + "</li>\n";
    body += "</ul></section>\n";
  }
  body += "</main>\n";
  return report::html_page("storh-host compare: " + c.new_name + " vs " + c.base_name, body, charts,
                           assets);
}

std::string render_matrix_html(const MatrixComparison& m, const report::HtmlAssets& assets) {
  report::HtmlCharts charts;
  std::string body = "<header>\n<h1>storh-host compare</h1>\n" + files_list(m.names, m.kinds);
  body += "</header>\n" + warnings_list(m.warnings) + "<main>\n";
  for (const auto& [engine, rows] : by_engine(m.rows)) {
    body += fmt::format("<section class=\"engine\"><h2>{}</h2>\n", html_escape(engine));
    body += matrix_figure(m, rows, charts) + "</section>\n";
  }
  const auto [columns, rows] = matrix_table(m);
  body += "<section><h2>Every metric</h2>\n" + report::html_table(columns, rows);
  body += fmt::format("<p class=\"legend\">{}</p>\n</section>\n</main>\n",
                      html_escape(matrix_explanation()));
  return report::html_page("storh-host compare: " + std::to_string(m.names.size()) + " files", body,
                           charts, assets);
}

}  // namespace storh::compare
