// The A/B verdict with fixed samples, and its confirmation set: no processes, no
// clocks, so every expectation is exact.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "ab/ab_runner.h"
#include "ab/verdict.h"
#include "ab_test_util.h"
#include "test_support.h"

TEST_CASE("ab: a 10% slowdown in every pair is a regression", "[ab]") {
  auto outcome = storh::ab::judge(result_with({metric("kv.put", 12, 1.10)}), {});
  REQUIRE(outcome);
  const auto& check = only_check(*outcome);
  CHECK(check.state == AbState::regression);
  CHECK(check.failed);
  CHECK_FALSE(outcome->passed());
  CHECK(check.summary.slowdown_percent == Approx(10).margin(0.6));
  CHECK(check.summary.test.ci_low > 1.0);
  CHECK(check.summary.test.ci_low <= 1.10);
  CHECK(check.summary.test.ci_high >= 1.09);
}

TEST_CASE("ab: equal sides are no change", "[ab]") {
  auto outcome = storh::ab::judge(result_with({metric("kv.put", 12, 1.0)}), {});
  REQUIRE(outcome);
  CHECK(only_check(*outcome).state == AbState::no_change);
  CHECK(outcome->passed());
}

TEST_CASE("ab: a significant slowdown under the threshold passes, with a note", "[ab]") {
  storh::ab::AbGateOptions options;
  options.threshold_percent = 20;
  auto outcome = storh::ab::judge(result_with({metric("kv.put", 12, 1.10)}), options);
  REQUIRE(outcome);
  const auto& check = only_check(*outcome);
  CHECK(check.state == AbState::no_change);
  CHECK_FALSE(check.failed);
  REQUIRE(check.notes.size() == 1);
  CHECK(storh::test::contains(check.notes[0], "significant but within the threshold 20.00%"));
}

TEST_CASE("ab: a faster head is an improvement, never a failure", "[ab]") {
  auto outcome = storh::ab::judge(result_with({metric("kv.put", 12, 0.8)}), {});
  REQUIRE(outcome);
  CHECK(only_check(*outcome).state == AbState::improvement);
  CHECK(outcome->passed());
}

TEST_CASE("ab: a higher-is-better value that drops is a slowdown", "[ab]") {
  auto outcome = storh::ab::judge(
      result_with({metric("kv.score", 12, 0.8, 0.004, MetricDirection::higher_is_better)}), {});
  REQUIRE(outcome);
  const auto& check = only_check(*outcome);
  CHECK(check.state == AbState::regression);
  CHECK(check.summary.slowdown_percent == Approx(25).margin(1));
}

TEST_CASE("ab: too few pairs fail unless lenient, and say how many are needed", "[ab]") {
  const AbResult few = result_with({metric("kv.put", 4, 2.0)});
  auto outcome = storh::ab::judge(few, {});
  REQUIRE(outcome);
  CHECK(only_check(*outcome).state == AbState::too_few_pairs);
  CHECK(only_check(*outcome).failed);
  CHECK(storh::test::contains(only_check(*outcome).notes.at(0), "need >= 8"));
  storh::ab::AbGateOptions lenient;
  lenient.lenient_too_few = true;
  outcome = storh::ab::judge(few, lenient);
  REQUIRE(outcome);
  CHECK(outcome->passed());
  CHECK(outcome->warnings.size() == 1);
}

TEST_CASE("ab: calibrated noise raises a metric's threshold above the configured one", "[ab]") {
  storh::ab::AbGateOptions options;
  options.calibrated_noise["kv.put"] = 0.2;  // 20% noise per pair
  auto outcome = storh::ab::judge(result_with({metric("kv.put", 12, 1.10)}), options);
  REQUIRE(outcome);
  const auto& check = only_check(*outcome);
  CHECK(check.threshold_from == "calibration");
  CHECK(check.threshold_percent > 10);
  CHECK(check.state == AbState::no_change);  // 10% is inside what 20% noise supports

  // A run noisier than its calibration: the floor is the run's own, and says so.
  options.calibrated_noise["kv.put"] = 0.001;
  outcome = storh::ab::judge(result_with({metric("kv.put", 12, 1.10, 0.2)}), options);
  REQUIRE(outcome);
  CHECK(only_check(*outcome).threshold_from == "noise floor");
  CHECK(only_check(*outcome).threshold_percent > 3);
}

TEST_CASE("ab: a metric on one side only is missing, and --metric typos are errors", "[ab]") {
  AbResult r = result_with({metric("kv.put", 12, 1.0)});
  storh::result::Metric only_head;
  only_head.key = "kv.get";
  r.head.metrics.push_back(only_head);
  auto outcome = storh::ab::judge(r, {});
  REQUIRE(outcome);
  REQUIRE(outcome->checks.size() == 2);
  CHECK(outcome->checks[0].key == "kv.get");
  CHECK(outcome->checks[0].state == AbState::missing);
  CHECK_FALSE(outcome->passed());

  storh::ab::AbGateOptions options;
  options.metrics = {"kv.pot"};
  outcome = storh::ab::judge(r, options);
  REQUIRE_FALSE(outcome);
  CHECK(storh::test::contains(outcome.error(), "no metric \"kv.pot\""));
  CHECK(storh::test::contains(outcome.error(), "did you mean \"kv.put\"?"));
}

TEST_CASE("ab: bad options are refused with the valid range", "[ab]") {
  storh::ab::AbGateOptions options;
  options.alpha = 1.5;
  CHECK(storh::test::contains(storh::ab::validate(options), "--alpha: 1.5 is outside (0, 1)"));
  options = {};
  options.threshold_percent = -1;
  CHECK(storh::test::contains(storh::ab::validate(options), "--threshold: -1 is negative"));
}

TEST_CASE("ab: a wall-time regression fails only when the confirmation set agrees", "[ab]") {
  AbResult r = result_with({metric("kv.put", 12, 1.10)});
  auto outcome = storh::ab::judge(r, {});
  REQUIRE(outcome);
  CHECK(only_check(*outcome).state == AbState::regression);
  CHECK(storh::ab::unconfirmed_regressions(*outcome) == std::set<std::string>{"kv.put"});

  r.confirmation = {metric("kv.put", 12, 1.10)};
  outcome = storh::ab::judge(r, {});
  REQUIRE(outcome);
  const auto& confirmed = only_check(*outcome);
  CHECK(confirmed.state == AbState::regression);
  CHECK(confirmed.failed);
  REQUIRE(confirmed.confirmation);
  CHECK(confirmed.confirmation->agreed);
  CHECK(storh::test::contains(confirmed.notes.at(0), "confirmed: the confirmation set regressed"));
  CHECK(storh::ab::unconfirmed_regressions(*outcome).empty());
  auto report = storh::ab::render(r, *outcome, storh::compare::OutputFormat::text, 0.01);
  CHECK(storh::test::contains(report.out, "REGRESSION confirmed FAIL"));

  r.confirmation = {metric("kv.put", 12, 1.0)};
  outcome = storh::ab::judge(r, {});
  REQUIRE(outcome);
  const auto& unconfirmed = only_check(*outcome);
  CHECK(unconfirmed.state == AbState::unconfirmed);
  CHECK_FALSE(unconfirmed.failed);
  CHECK(outcome->passed());
  CHECK(storh::test::contains(unconfirmed.notes.at(0),
                              "not confirmed: the confirmation set did "
                              "not regress (12 fresh pair(s)"));
  report = storh::ab::render(r, *outcome, storh::compare::OutputFormat::markdown, 0.01);
  CHECK(storh::test::contains(report.out, "| not confirmed |"));
  CHECK(storh::test::contains(report.out, "Confirmation:\n\n- `kv.put`: not confirmed"));
  report = storh::ab::render(r, *outcome, storh::compare::OutputFormat::json, 0.01);
  const auto verdict = nlohmann::json::parse(report.out.substr(0, report.out.rfind("A/B gate")));
  CHECK(verdict["checks"][0]["state"] == "not confirmed");
  CHECK(verdict["checks"][0]["confirmation"]["agreed"] == false);
  CHECK(verdict["checks"][0]["confirmation"]["pairs"] == 12);
}

TEST_CASE("ab: the reports show both sets of a confirmed metric, each with its own change",
          "[ab]") {
  AbResult r = result_with({metric("kv.put", 12, 1.10)});
  r.confirmation = {metric("kv.put", 12, 1.0)};
  const auto outcome = storh::ab::judge(r, {});
  REQUIRE(outcome);
  const auto text = storh::ab::render(r, *outcome, storh::compare::OutputFormat::text, 0.01);
  const auto first = text.out.find("\nkv.put ");
  const auto second = text.out.find("\nkv.put (confirmation) ");
  REQUIRE(first != std::string::npos);
  REQUIRE(second != std::string::npos);
  CHECK(first < second);
  // Each row its own set's change: about +10% for the first, about 0 for the second.
  const std::string first_row = text.out.substr(first + 1, text.out.find('\n', first + 1) - first);
  const std::string second_row =
      text.out.substr(second + 1, text.out.find('\n', second + 1) - second);
  CHECK(storh::test::contains(first_row, "+10."));
  CHECK(storh::test::contains(second_row, "did not regress"));
  CHECK_FALSE(storh::test::contains(second_row, "+10."));

  const storh::report::HtmlAssets assets{"/* chart.js */", "3.9.1"};
  const auto html = storh::ab::render_html(r, *outcome, 0.01, assets);
  // The chart's labels: one bar per set, the confirmation's right after its metric's;
  // and a table row for each.
  CHECK(storh::test::contains(html.out, R"x("labels":["kv.put","kv.put (confirmation)"])x"));
  const auto body = html.out.substr(html.out.find("<tbody>"));
  CHECK(storh::test::contains(body, "(confirmation)</td>"));
  CHECK(storh::test::contains(body, "did not regress</td>"));

  // Without a confirmation set, no such row or bar.
  r.confirmation.clear();
  const auto plain = storh::ab::judge(r, {});
  REQUIRE(plain);
  CHECK_FALSE(
      storh::test::contains(storh::ab::render_html(r, *plain, 0.01, assets).out, "(confirmation)"));
}

TEST_CASE("ab: a metric whose counter rose fails at once, without confirmation", "[ab]") {
  AbResult r = result_with({metric("kv.put", 12, 1.10)});
  storh::result::Metric put;
  put.key = "kv.put";
  put.engine = "kv";
  put.operation = "put";
  put.counters = {{"fsync", 1}};
  r.base.metrics.push_back(put);
  put.counters = {{"fsync", 2}};
  r.head.metrics.push_back(put);
  storh::ab::AbGateOptions options;
  options.counter_tolerances = {{"fsync", 0}};
  auto outcome = storh::ab::judge(r, options);
  REQUIRE(outcome);
  const auto& check = only_check(*outcome);
  CHECK(check.state == AbState::regression);
  CHECK(check.counters_rose);
  CHECK(check.failed);
  CHECK(outcome->failures == 2);  // the time and the counter
  CHECK(storh::ab::unconfirmed_regressions(*outcome).empty());
  CHECK(storh::test::contains(check.notes.at(0), "a counter rose: failed without a confirmation"));
  // A set that would not confirm changes nothing: the counter decided.
  r.confirmation = {metric("kv.put", 12, 1.0)};
  outcome = storh::ab::judge(r, options);
  REQUIRE(outcome);
  CHECK(only_check(*outcome).failed);
  CHECK_FALSE(only_check(*outcome).confirmation);
}

TEST_CASE("ab: the confirmation set round-trips through the file, and older files read", "[ab]") {
  AbResult r = result_with({metric("kv.put", 8, 1.1)});
  const nlohmann::json without = storh::ab::to_json(r, 0.01);
  CHECK_FALSE(without["ab"].contains("confirmation"));  // an older file looks the same
  auto read = storh::ab::ab_from_json(without, "ab.json");
  REQUIRE(read);
  CHECK(read->confirmation.empty());
  r.confirmation = {metric("kv.put", 8, 1.0)};
  nlohmann::json with = storh::ab::to_json(r, 0.01);
  CHECK(with["ab"]["confirmation"][0]["key"] == "kv.put");
  CHECK(with["ab"]["confirmation"][0]["analysis"]["pairs"] == 8);
  read = storh::ab::ab_from_json(with, "ab.json");
  REQUIRE(read);
  REQUIRE(read->confirmation.size() == 1);
  CHECK(read->confirmation[0].pairs[5].head == r.confirmation[0].pairs[5].head);
  with["ab"]["confirmation"] = 3;
  read = storh::ab::ab_from_json(with, "ab.json");
  REQUIRE_FALSE(read);
  CHECK(storh::test::contains(read.error(), "/ab/confirmation: expected an array"));
}
