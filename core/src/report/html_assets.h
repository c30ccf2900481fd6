// report/html_assets.h: what an HTML page inlines besides its data, so that it opens
// offline: the charting library (Chart.js 3, from Debian's libjs-chart.js, read at
// report time) and the page's own script and style (built into storh-host).
#pragma once

#include <string>
#include <string_view>

#include "util/expected.h"

namespace storh::report {

// Where Debian's libjs-chart.js puts the minified UMD build.
inline constexpr std::string_view kDefaultChartJsPath =
    "/usr/share/javascript/chart.js/chart.min.js";

struct HtmlAssets {
  std::string chart_js;          // the library's text, safe inside <script>
  std::string chart_js_version;  // "3.9.1", from its banner
};

// Reads Chart.js from $STORH_CHARTJS, else kDefaultChartJsPath. Errors, as values:
// the file is missing ("install Debian's libjs-chart.js: scripts/setup.sh"), is not
// a regular file, or its banner is not Chart.js 3.x (the version the page's script
// is written against).
Expected<HtmlAssets> load_html_assets();

// The page's script (drawing the charts of report/html.h) and style sheet.
std::string_view html_page_script();
std::string_view html_page_style();

}  // namespace storh::report
