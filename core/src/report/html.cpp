#include "report/html.h"

#include <fmt/format.h>

#include "report/html_assets.h"

namespace storh::report {

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

namespace {

// Escaped cell text with a line break allowed (<wbr>) after each ',' and '/' and before
// each '[': a long metric key or path then wraps between its parts to fit the page,
// while words and numbers stay whole.
std::string breakable_cell(std::string_view text) {
  std::string out;
  for (const char c : text) {
    if (c == '[') out += "<wbr>";
    out += html_escape(std::string_view(&c, 1));
    if (c == ',' || c == '/') out += "<wbr>";
  }
  return out;
}

}  // namespace

std::string html_table(const std::vector<Column>& columns, const Rows& rows) {
  auto is_number = [&](std::size_t column) {
    return column < columns.size() && columns[column].align == Align::right;
  };
  auto open_cell = [&](std::string_view tag, std::size_t column) {
    return fmt::format("<{}{}>", tag, is_number(column) ? " class=\"num\"" : "");
  };
  // A number with its unit stays on one line (<wbr> would break it even there);
  // headers, file names among them, may break.
  auto cell_text = [&](std::string_view text, std::size_t column) {
    return is_number(column) ? html_escape(text) : breakable_cell(text);
  };
  std::string out = std::string(kTableBoxOpen) + "<table>\n<thead><tr>";
  for (std::size_t c = 0; c < columns.size(); ++c) {
    out += open_cell("th", c) + breakable_cell(columns[c].header) + "</th>";
  }
  out += "</tr></thead>\n<tbody>\n";
  for (const auto& row : rows) {
    out += "<tr>";
    for (std::size_t c = 0; c < columns.size(); ++c) {
      out += open_cell("td", c) + (c < row.size() ? cell_text(row[c], c) : "") + "</td>";
    }
    out += "</tr>\n";
  }
  return out + "</tbody>\n</table>" + kTableBoxClose;
}

std::string script_json(const nlohmann::json& value) {
  const std::string text = value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    if (c == '<') {
      out += "\\u003c";
    } else {
      out += c;
    }
  }
  return out;
}

std::string HtmlCharts::figure(nlohmann::json spec, std::string_view caption, int height) {
  const std::size_t index = specs_.size();
  specs_.push_back(std::move(spec));
  return fmt::format(
      "<figure class=\"chart\"><div class=\"chart-box\" style=\"height:{}px\"><canvas "
      "data-chart=\"{}\" role=\"img\" aria-label=\"{}\"></canvas></div><figcaption>{}"
      "</figcaption></figure>\n",
      height, index, html_escape(caption), html_escape(caption));
}

std::string html_page(std::string_view title, std::string_view body, const HtmlCharts& charts,
                      const HtmlAssets& assets) {
  const nlohmann::json data = {{"charts", charts.specs()}};
  return fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<meta name=\"generator\" content=\"storh-host\">\n<title>{}</title>\n<style>\n{}</style>\n"
      "</head>\n<body>\n{}"
      "<footer>Written by storh-host. Charts drawn by Chart.js {} (MIT License), "
      "inlined.</footer>\n"
      "<script type=\"application/json\" id=\"storh-data\">{}</script>\n"
      "<script>\n{}\n</script>\n<script>\n{}</script>\n</body>\n</html>\n",
      html_escape(title), html_page_style(), body, html_escape(assets.chart_js_version),
      script_json(data), assets.chart_js, html_page_script());
}

std::string ratio_bars_figure(const std::vector<RatioBar>& bars, std::string_view caption,
                              HtmlCharts& charts, const RatioAxis& axis) {
  if (bars.empty()) return "";
  nlohmann::json labels = nlohmann::json::array(), ratio = nlohmann::json::array(),
                 low = nlohmann::json::array(), high = nlohmann::json::array(),
                 significant = nlohmann::json::array(), verdict = nlohmann::json::array();
  auto optional_value = [](const std::optional<double>& value) {
    return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
  };
  for (const RatioBar& bar : bars) {
    labels.push_back(bar.label);
    ratio.push_back(bar.ratio);
    low.push_back(optional_value(bar.low));
    high.push_back(optional_value(bar.high));
    significant.push_back(bar.significant);
    verdict.push_back(bar.verdict);
  }
  nlohmann::json spec = {{"kind", "ratios"},
                         {"labels", std::move(labels)},
                         {"ratio", std::move(ratio)},
                         {"low", std::move(low)},
                         {"high", std::move(high)},
                         {"significant", std::move(significant)},
                         {"verdict", std::move(verdict)}};
  if (!axis.axis.empty()) spec["axis"] = axis.axis;
  if (!axis.legend.empty()) spec["legend"] = axis.legend;
  return charts.figure(std::move(spec), caption, bar_chart_height(bars.size()));
}

}  // namespace storh::report
