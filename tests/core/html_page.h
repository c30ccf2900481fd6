// What the HTML page tests share: assets that stand in for Chart.js (the library tests
// do not need it; the browser test uses the real one) and the page's chart data.
#pragma once

#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "report/html_assets.h"

namespace storh::test {

inline const report::HtmlAssets kFakeHtmlAssets{"/* Chart.js stand-in */", "3.9.1"};

// The page's data element (report/html.h), parsed.
inline nlohmann::json page_data(const std::string& page) {
  const std::string open = "<script type=\"application/json\" id=\"storh-data\">";
  const std::size_t start = page.find(open);
  REQUIRE(start != std::string::npos);
  const std::size_t end = page.find("</script>", start);
  REQUIRE(end != std::string::npos);
  return nlohmann::json::parse(page.substr(start + open.size(), end - start - open.size()));
}

}  // namespace storh::test
