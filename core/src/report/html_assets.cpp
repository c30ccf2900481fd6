#include "report/html_assets.h"

#include <cstdlib>
#include <filesystem>
#include <regex>
#include <system_error>

#include <fmt/format.h>

#include "report/html_page_sources.h"  // generated: the contents of report/html/
#include "util/files.h"

namespace storh::report {
namespace {

// "</script" cannot occur in the minified library, but if some build had it inside a
// string, this keeps the element open; "<\/" means the same in JavaScript strings.
std::string safe_in_script(std::string text) {
  static const std::regex kClosing("</(script)", std::regex::icase);
  return std::regex_replace(text, kClosing, "<\\/$1");
}

}  // namespace

Expected<HtmlAssets> load_html_assets() {
  const char* from_env = std::getenv("STORH_CHARTJS");
  const std::filesystem::path path = from_env != nullptr && *from_env != '\0'
                                         ? std::filesystem::path(from_env)
                                         : std::filesystem::path(kDefaultChartJsPath);
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    return Error{fmt::format(
        "{}: Chart.js not found: HTML reports inline it; install Debian's libjs-chart.js "
        "(scripts/setup.sh does) or set STORH_CHARTJS to a Chart.js 3 chart.min.js",
        path.string())};
  }
  Expected<std::string> text = read_input_file(path, std::uintmax_t{16} << 20);
  if (!text) return Error{text.error()};
  static const std::regex kBanner(R"(Chart\.js v(\d+)\.(\d+)\.(\d+))");
  std::smatch banner;
  const std::string head = text->substr(0, 512);
  if (!std::regex_search(head, banner, kBanner)) {
    return Error{fmt::format("{}: not Chart.js: its first lines have no \"Chart.js vX.Y.Z\" banner",
                             path.string())};
  }
  if (banner[1] != "3") {
    return Error{fmt::format(
        "{}: Chart.js {}.{}.{}, but the report's charts are written for Chart.js 3 (Debian 12's "
        "libjs-chart.js 3.9.1)",
        path.string(), banner[1].str(), banner[2].str(), banner[3].str())};
  }
  return HtmlAssets{safe_in_script(std::move(*text)),
                    fmt::format("{}.{}.{}", banner[1].str(), banner[2].str(), banner[3].str())};
}

std::string_view html_page_script() {
  return kHtmlPageScript;
}

std::string_view html_page_style() {
  return kHtmlPageStyle;
}

}  // namespace storh::report
