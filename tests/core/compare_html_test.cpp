// compare --format=html as a library, and the ratio interval its charts draw: the
// chart data of a pair and a matrix of real runs (golden files
// tests/fixtures/golden/compare-html-*.json; STORH_UPDATE_GOLDEN=1 rewrites them),
// verdict colours and significance marks, and the interval's order statistics. The
// pages are drawn in a real browser by tests/browser/html_browser_test.sh.
#include <cmath>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "compare/ratio_interval.h"
#include "compare/render.h"
#include "compare_fixtures.h"
#include "html_page.h"

using namespace storh;
using storh::test::contains;
using storh::test::kFakeHtmlAssets;
using storh::test::make_comparable;
using storh::test::matches_golden;
using storh::test::page_data;

namespace {

compare::ComparableFile fixture(const std::string& name) {
  auto file =
      compare::read_comparable(std::string(STORH_TEST_SOURCE_DIR) + "/tests/fixtures/html/" + name);
  if (!file) throw std::runtime_error(file.error());
  file->name = name;
  return std::move(file).value();
}

}  // namespace

TEST_CASE("ratio interval: the order statistics of the log differences that invert the test",
          "[compare][html]") {
  // 5 and 5 at alpha 0.05: P(U <= 2) = 4/252 = 0.0159 <= 0.025 < P(U <= 3) = 7/252, so
  // k = 3 (R: qwilcox(0.025, 5, 5) = 3): [d_(3), d_(23)] of the 25 sorted differences,
  // at confidence 1 - 2 * 4/252.
  const std::vector<double> base = {1.00, 1.02, 1.05, 1.10, 1.20};
  const std::vector<double> next = {1.30, 1.31, 1.40, 1.45, 1.60};
  std::vector<double> d;
  for (double b : base) {
    for (double x : next) d.push_back(std::log(x) - std::log(b));
  }
  std::sort(d.begin(), d.end());
  const auto interval = compare::ratio_interval(base, next, 0.05);
  REQUIRE(interval.has_value());
  CHECK(interval->low == Approx(std::exp(d[2])));
  CHECK(interval->high == Approx(std::exp(d[22])));
  CHECK(interval->estimate == Approx(std::exp(d[12])));
  CHECK(interval->confidence == Approx(1 - 8.0 / 252));
  CHECK(interval->low > 1);  // every new value is slower: the interval excludes 1

  // The same values on both sides: the interval holds 1.
  const auto same = compare::ratio_interval(base, base, 0.05);
  REQUIRE(same.has_value());
  CHECK(same->low < 1);
  CHECK(same->high > 1);
  CHECK(same->estimate == Approx(1));

  // Times that all took 10% longer: the estimate is 1.10.
  std::vector<double> slower;
  for (double b : base) slower.push_back(b * 1.10);
  CHECK(compare::ratio_interval(base, slower, 0.05)->estimate == Approx(1.10));

  // 3 and 3 cannot reach 0.05 (smallest p 0.1); zeros and NaNs have no logarithm.
  const std::vector<double> three = {1, 2, 3};
  CHECK_FALSE(compare::ratio_interval(three, three, 0.05).has_value());
  const std::vector<double> zero = {0, 1, 2, 3, 4};
  CHECK_FALSE(compare::ratio_interval(zero, next, 0.05).has_value());
  const std::vector<double> nan = {NAN, 1, 2, 3, 4};
  CHECK_FALSE(compare::ratio_interval(base, nan, 0.05).has_value());

  // 60 per side: the normal approximation, still an interval around the shift.
  std::vector<double> many_base, many_next;
  for (int i = 0; i < 60; ++i) {
    many_base.push_back(1 + 0.01 * i);
    many_next.push_back(2 * (1 + 0.01 * i));
  }
  const auto large = compare::ratio_interval(many_base, many_next, 0.05);
  REQUIRE(large.has_value());
  CHECK(large->low < 2);
  CHECK(large->high > 2);
  CHECK(large->estimate == Approx(2));
  CHECK(large->confidence == Approx(0.95));
}

TEST_CASE("compare html: the chart data of a pair and a matrix of real runs are pinned",
          "[compare][html]") {
  const compare::ComparableFile base = fixture("compare-base.json");
  const compare::ComparableFile next = fixture("compare-new.json");
  const std::string pair =
      compare::render_pair_html(compare::compare_pair(base, next), kFakeHtmlAssets);
  const nlohmann::json pair_data = page_data(pair);
  CHECK(matches_golden("compare-html-pair.json", pair_data.dump(2) + "\n"));
  REQUIRE(pair_data["charts"].size() == 2);  // filter, uuid
  for (const auto& chart : pair_data["charts"]) CHECK(chart["kind"] == "ratios");
  CHECK(contains(pair, "<h2>Every metric</h2>"));
  CHECK(contains(pair, "<td>geomean (7)</td>"));

  const compare::MatrixComparison matrix = compare::compare_matrix({&base, &next, &base});
  const std::string page = compare::render_matrix_html(matrix, kFakeHtmlAssets);
  const nlohmann::json matrix_data = page_data(page);
  CHECK(matches_golden("compare-html-matrix.json", matrix_data.dump(2) + "\n"));
  REQUIRE(matrix_data["charts"].size() == 2);
  CHECK(matrix_data["charts"][0]["kind"] == "matrix");
  CHECK(matrix_data["charts"][0]["series"].size() == 2);  // the 2nd and 3rd files
  for (const auto& ratio : matrix_data["charts"][0]["series"][1]["values"]) CHECK(ratio == 1.0);
}

TEST_CASE("compare html: verdicts, significance marks and metrics on one side only",
          "[compare][html]") {
  using storh::test::MetricSpec;
  const auto base = make_comparable({{"doc.put", {1.0, 1.01, 1.02, 1.03, 1.04}},
                                     {"doc.get", {2.0, 2.01, 2.02, 2.03, 2.04}},
                                     {"doc.old", {1, 1, 1, 1, 1}}},
                                    "base.json");
  const auto next = make_comparable({{"doc.put", {1.5, 1.51, 1.52, 1.53, 1.54}},
                                     {"doc.get", {2.0, 2.01, 2.02, 2.03, 2.04}},
                                     {"doc.fresh", {1, 1, 1, 1, 1}}},
                                    "new.json");
  const std::string page =
      compare::render_pair_html(compare::compare_pair(base, next), kFakeHtmlAssets);
  const nlohmann::json chart = page_data(page)["charts"][0];
  // Only metrics on both sides are drawn; every row is in the table.
  CHECK(chart["labels"] == nlohmann::json::array({"doc.put", "doc.get"}));
  CHECK(chart["verdict"] == nlohmann::json::array({"slower", "same"}));
  CHECK(chart["significant"] == nlohmann::json::array({true, false}));
  CHECK(chart["ratio"][0].get<double>() == Approx(1.52 / 1.02));
  CHECK(chart["low"][0].get<double>() > 1);
  CHECK(chart["low"][1].get<double>() < 1);
  CHECK(contains(page, "<td>doc.old</td>"));
  CHECK(contains(page, "<td>doc.fresh</td>"));
  CHECK(contains(page, "<td>missing</td>"));
}
