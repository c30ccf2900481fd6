// report/html.h: the building blocks of the HTML pages (report, compare): escaping,
// tables, the page's charts and its inline data.
//
// A page is static HTML (every number is in a table, readable without JavaScript)
// plus charts: each <canvas data-chart="K"> is drawn by the page's script from
// charts[K] of the JSON in <script type="application/json" id="storh-data">. The
// chart kinds and their fields are documented in docs/html-report.md.
//
// Pure functions, like the rest of the report: the same input gives the same bytes.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/table.h"

namespace storh::report {

// Text safe in HTML content and in quoted attribute values: & < > " ' escaped.
std::string html_escape(std::string_view text);

// Every table of a page sits in this box (report.css): its text cells wrap so it fits
// the page, and on a screen too narrow even for that, the box scrolls sideways rather
// than the page.
inline constexpr const char* kTableBoxOpen = "<div class=\"table-box\">";
inline constexpr const char* kTableBoxClose = "</div>\n";

// A <table> with a header row, in a table box; right-aligned columns get class "num".
// Cells are escaped text.
std::string html_table(const std::vector<Column>& columns, const Rows& rows);

// JSON text safe inside a <script> element: every '<' (which JSON allows only inside
// strings) is written as \u003c, so no value can close the element or open a comment.
std::string script_json(const nlohmann::json& value);

// The canvas height (CSS pixels) of a horizontal bar chart with `bars` bars: room for
// the axis and legend, plus one row per bar.
inline int bar_chart_height(std::size_t bars) {
  return 70 + 26 * static_cast<int>(bars);
}

// The charts of one page, in the order their figures appear.
class HtmlCharts {
 public:
  // Adds a chart (its "kind" and data) and returns the <figure> that shows it: a
  // canvas with data-chart set to the chart's index and the caption below it.
  // The canvas box is `height` CSS pixels high.
  std::string figure(nlohmann::json spec, std::string_view caption, int height = 320);

  // charts[], for the page's data.
  const nlohmann::json& specs() const { return specs_; }

 private:
  nlohmann::json specs_ = nlohmann::json::array();
};

// One bar of a "ratios" chart (compare, A/B): a metric's ratio (1 = unchanged) on its
// confidence interval, when there is one.
struct RatioBar {
  std::string label;
  double ratio = 1;
  std::optional<double> low, high;
  bool significant = false;
  std::string verdict;  // "slower", "faster", "same" or "failed": the bar's colour
};

// What the ratio is, for the chart's axis and legend; empty: compare's "new / base of
// the median".
struct RatioAxis {
  std::string axis;
  std::string legend;
};

// The figure of a "ratios" chart of `bars`, or "" when there are none.
std::string ratio_bars_figure(const std::vector<RatioBar>& bars, std::string_view caption,
                              HtmlCharts& charts, const RatioAxis& axis = {});

struct HtmlAssets;

// The whole page: doctype, <title>, the style sheet, `body` (HTML), then the data
// ({"charts": [...]}), the charting library and the page's script, all inline, so
// the file opens offline and from any directory.
std::string html_page(std::string_view title, std::string_view body, const HtmlCharts& charts,
                      const HtmlAssets& assets);

}  // namespace storh::report
