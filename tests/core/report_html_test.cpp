// report --format=html as a library: the data each chart is drawn from (golden files
// tests/fixtures/golden/report-html-*.json; STORH_UPDATE_GOLDEN=1 rewrites them), the
// page's structure, escaping, and where Chart.js comes from. That the charts draw is
// tested in a real browser (tests/browser/html_browser_test.sh).
#include <cstdlib>
#include <regex>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "compare_fixtures.h"
#include "html_page.h"
#include "report/html.h"
#include "report/html_assets.h"
#include "report/report.h"
#include "result/json.h"
#include "test_support.h"

using namespace storh;
using storh::test::contains;
using storh::test::kFakeHtmlAssets;
using storh::test::matches_golden;
using storh::test::page_data;
using storh::test::result_fixture;

namespace {

std::size_t count(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

// Each chart index appears on exactly one canvas of the body (the scripts follow it).
void check_canvases(const std::string& whole_page, const nlohmann::json& data) {
  REQUIRE(data["charts"].is_array());
  const std::string page = whole_page.substr(0, whole_page.find("<script"));
  CHECK(count(page, "<canvas data-chart=") == data["charts"].size());
  for (std::size_t i = 0; i < data["charts"].size(); ++i) {
    CHECK(count(page, "data-chart=\"" + std::to_string(i) + "\"") == 1);
  }
}

}  // namespace

TEST_CASE("html report: the chart data of a single-size, a range and a load run are pinned",
          "[report][html]") {
  for (const auto& [fixture_name, golden] :
       {std::pair{"golden/result-v1.json", "report-html-result.json"},
        std::pair{"html/range.json", "report-html-range.json"},
        std::pair{"html/load.json", "report-html-load.json"}}) {
    INFO(fixture_name);
    const std::string page = report::render_report(result_fixture(fixture_name),
                                                   report::ReportFormat::html, kFakeHtmlAssets);
    const nlohmann::json data = page_data(page);
    check_canvases(page, data);
    CHECK(matches_golden(golden, data.dump(2) + "\n"));
  }
}

TEST_CASE("html report: each kind of run gets its charts and tables", "[report][html]") {
  const std::string range = report::render_report(result_fixture("html/range.json"),
                                                  report::ReportFormat::html, kFakeHtmlAssets);
  const nlohmann::json range_data = page_data(range);
  std::vector<std::string> kinds;
  for (const auto& chart : range_data["charts"]) kinds.push_back(chart["kind"]);
  // Per engine (filter, uuid): its metrics, then time by dataset size.
  CHECK(kinds == std::vector<std::string>{"metrics", "range", "metrics", "range"});
  for (const auto& series : range_data["charts"][1]["series"]) {
    CHECK(series["points"].size() == 3);  // 1000, 10000, 100000
    CHECK(series["fit"].get<std::string>().starts_with("O("));
    CHECK(series["fitted"].size() == 9);  // 4 per interval and the last size
  }
  CHECK(contains(range, "<h3>Time by dataset size</h3>"));
  CHECK(contains(range, "<th class=\"num\">n=100000</th>"));

  const std::string load = report::render_report(result_fixture("html/load.json"),
                                                 report::ReportFormat::html, kFakeHtmlAssets);
  const nlohmann::json load_data = page_data(load);
  REQUIRE(load_data["charts"].size() == 1);
  CHECK(load_data["charts"][0]["kind"] == "latency");
  CHECK(load_data["charts"][0]["labels"].size() == 6);  // 3 client counts x 2 amounts
  CHECK(count(load, "class=\"num heat\"") == 6);
  // The group's highest tps is the strongest colour, its lowest the palest.
  CHECK(contains(load, "hsl(212,70%,45%)"));
  CHECK(contains(load, "hsl(212,70%,95%)"));

  // Tables fit the page: each in a box that scrolls on a narrow screen, a key may
  // break between its parts, a number never.
  CHECK(count(load, "<div class=\"table-box\"><table") == count(load, "<table"));
  CHECK(contains(load, "<td>get<wbr>[clients=1,<wbr>transactions=50]</td>"));
  CHECK(contains(load, "<td class=\"num\">27.2 k transactions/s</td>"));

  // min_time sizes a repeated step's batches; a load run has none, so its header leaves
  // it out, while a run of steps keeps it.
  CHECK_FALSE(contains(load, "<dt>min_time</dt>"));
  const std::string steps = report::render_report(result_fixture("golden/result-v1.json"),
                                                  report::ReportFormat::html, kFakeHtmlAssets);
  CHECK(contains(steps, "<dt>min_time</dt><dd>20.00 ms</dd>"));

  // The page inlines the library and its version, and needs nothing from the network.
  CHECK(contains(load, kFakeHtmlAssets.chart_js));
  CHECK(contains(load, "Chart.js 3.9.1"));
  CHECK_FALSE(std::regex_search(load, std::regex(R"((src|href)=["']?(https?:)?//)")));
}

TEST_CASE("html report: warnings, failures and the interrupted mark are in plain view",
          "[report][html]") {
  result::ResultFile result = result_fixture("golden/result-v1.json");
  result.interrupted = true;
  result.environment.warnings = {"CPU frequency scaling is on"};
  result::Failure failure;
  failure.engine = result.metrics.front().engine;
  failure.dataset = 1000;
  failure.kind = storh::result::Failure::Kind::crashed;
  failure.signal = 11;
  failure.message = "worker died";
  failure.stderr_tail = "line one\nsegfault here\n";
  result.failures = {failure};
  const std::string page =
      report::render_report(result, report::ReportFormat::html, kFakeHtmlAssets);
  CHECK(contains(page, "<strong>Interrupted:</strong>"));
  CHECK(contains(page, "<strong>1 failure:</strong>"));
  CHECK(contains(page, "<li>CPU frequency scaling is on</li>"));
  CHECK(contains(page, "<h2>Failures (1)</h2>"));
  CHECK(contains(page, "<td>signal 11</td>"));
  CHECK(contains(page, "<pre>line one\nsegfault here</pre>"));
  CHECK(contains(page, "<h2>Environment</h2>"));
}

TEST_CASE("html report: an adaptive repeat shows its bounds, not its min", "[report][html]") {
  result::ResultFile result = result_fixture("golden/result-v1.json");
  result.experiment.warmup = 1;
  result.experiment.repeat = 5;
  result.experiment.repeat_until = result::RepeatBounds{5, 30, 0.02};
  const std::string page =
      report::render_report(result, report::ReportFormat::html, kFakeHtmlAssets);
  CHECK(contains(page, "5..30@2% (warm-up 1)"));
  result.experiment.repeat_until.reset();
  CHECK(contains(report::render_report(result, report::ReportFormat::html, kFakeHtmlAssets),
                 "5 (warm-up 1)"));
}

TEST_CASE("html report: text from the result cannot close an element or run a script",
          "[report][html]") {
  result::ResultFile result = result_fixture("golden/result-v1.json");
  const std::string hostile = "</script><script>alert(1)</script><b>";
  result.experiment.suite = hostile;
  result.metrics.front().key = result.metrics.front().engine + "." + hostile;
  result.metrics.front().warnings = {hostile};
  const std::string page =
      report::render_report(result, report::ReportFormat::html, kFakeHtmlAssets);
  CHECK_FALSE(contains(page, "<script>alert"));
  CHECK_FALSE(contains(page, "<b>"));
  CHECK(contains(page, "&lt;/script&gt;&lt;script&gt;alert(1)"));
  // The chart data still carries the label exactly.
  const nlohmann::json data = page_data(page);
  CHECK(data["charts"][0]["labels"][0] == hostile);
  CHECK(report::script_json(nlohmann::json("</script>")) == "\"\\u003c/script>\"");
}

TEST_CASE("html assets: Chart.js 3 from STORH_CHARTJS or Debian's path, or a clear error",
          "[report][html]") {
  storh::test::ScratchDir dir;
  auto load_from = [&](const std::string& text) {
    const auto file = dir / "chart.min.js";
    storh::test::write_text(file, text);
    ::setenv("STORH_CHARTJS", file.c_str(), 1);
    auto assets = report::load_html_assets();
    ::unsetenv("STORH_CHARTJS");
    return assets;
  };
  const auto ok = load_from("/*!\n * Chart.js v3.9.1\n */\nvar x = \"</script>\";");
  REQUIRE(ok.ok());
  CHECK(ok->chart_js_version == "3.9.1");
  CHECK_FALSE(contains(ok->chart_js, "</script>"));  // kept inside its element
  CHECK(contains(ok->chart_js, "<\\/script>"));

  const auto v4 = load_from("/*!\n * Chart.js v4.4.0\n */");
  REQUIRE_FALSE(v4.ok());
  CHECK(contains(v4.error(), "Chart.js 4.4.0, but the report's charts are written for Chart.js 3"));

  const auto other = load_from("console.log('not a chart library');");
  REQUIRE_FALSE(other.ok());
  CHECK(contains(other.error(), "not Chart.js"));

  ::setenv("STORH_CHARTJS", (dir / "missing.js").c_str(), 1);
  const auto missing = report::load_html_assets();
  ::unsetenv("STORH_CHARTJS");
  REQUIRE_FALSE(missing.ok());
  CHECK(contains(missing.error(), "missing.js: Chart.js not found"));
  CHECK(contains(missing.error(), "libjs-chart.js"));

  ::setenv("STORH_CHARTJS", dir.path().c_str(), 1);
  const auto directory = report::load_html_assets();
  ::unsetenv("STORH_CHARTJS");
  REQUIRE_FALSE(directory.ok());
  CHECK(contains(directory.error(), "not a regular file"));
}
