// history show --format=html as a library: one trend chart per metric with one line per
// environment and the change points marked; the chart data is pinned (golden file
// tests/fixtures/golden/history-html.json; STORH_UPDATE_GOLDEN=1 rewrites it). The
// browser test draws the same kind of page in Chromium.
#include <catch2/catch.hpp>

#include "compare_fixtures.h"
#include "history/record.h"
#include "history/render.h"
#include "history/series.h"
#include "html_page.h"
#include "scratch_dir.h"
#include "stepped_results.h"

using namespace storh;
using storh::test::kFakeHtmlAssets;
using storh::test::matches_golden;
using storh::test::page_data;

TEST_CASE("history html: trend charts per metric, one line per environment, changes marked",
          "[history][html]") {
  test::ScratchDir dir;
  Expected<std::unique_ptr<history::HistoryStore>> store =
      history::HistoryStore::open(dir / "h.db", history::HistoryStore::Mode::create);
  REQUIRE(store.ok());
  test::SteppedSeries spec;
  spec.base =
      std::filesystem::path(STORH_TEST_SOURCE_DIR) / "tests/fixtures/html/compare-base.json";
  auto results = test::stepped_results(spec);
  // The last 5 runs again, on another machine.
  for (std::size_t i = 15; i < 20; ++i) {
    result::ResultFile other = results[i];
    other.environment.cpu_model = "Other CPU";
    results.push_back(other);
  }
  for (const auto& result : results) {
    Expected<history::NewRun> run = history::new_run(result, "r", {}, "2026-12-02T00:00:00Z");
    REQUIRE(run.ok());
    REQUIRE((*store)->add(run->run, run->points, run->result_json).ok());
  }
  Expected<history::HistoryView> view = history::read_view(**store, {});
  REQUIRE(view.ok());
  const std::string page = history::history_html(
      view->series, view->changes, history::environments(view->runs), kFakeHtmlAssets);
  const nlohmann::json data = page_data(page);
  CHECK(matches_golden("history-html.json", data.dump(2) + "\n"));
  REQUIRE(data["charts"].size() == 7);  // one per metric
  for (const auto& chart : data["charts"]) {
    CHECK(chart["kind"] == "trend");
    CHECK(chart["labels"].size() == 20);  // the other machine ran the same commits
    REQUIRE(chart["series"].size() == 2);
    CHECK(chart["series"][0]["label"] == "E1");
    CHECK(chart["series"][1]["label"] == "E2");
    CHECK(chart["series"][1]["values"][0].is_null());  // E2 has no run at the first commit
    CHECK(chart["series"][1]["values"][19].is_number());
  }
  // uuid.monotonic's chart marks its change at run 11 (index 10), in E1 only.
  const auto monotonic =
      std::find_if(data["charts"].begin(), data["charts"].end(),
                   [](const auto& chart) { return chart["series"][0]["changes"].size() > 0; });
  REQUIRE(monotonic != data["charts"].end());
  CHECK((*monotonic)["series"][0]["changes"] == nlohmann::json::array({10}));
  CHECK((*monotonic)["series"][1]["changes"].empty());
  // The y axis starts at zero (report.js), and each caption says so.
  CHECK_THAT(page, Catch::Contains("oldest first, on an axis from zero"));
  CHECK_THAT(page, Catch::Contains("<h2>Change points (1)</h2>"));
  CHECK_THAT(page, Catch::Contains("<dt>E2</dt><dd>Other CPU | 2 CPUs"));
}
