// gate: the storh harness's rules (engine-spec.md 12.5) and the additions, on the library
// (run_gate), with the output pinned in golden files (tests/fixtures/golden/gate-*).
// Exit codes through the CLI are in gate_cli_test.cpp.
#include <catch2/catch.hpp>

#include "compare_fixtures.h"
#include "gate/gate.h"
#include "gate/render_gate.h"

using namespace storh;
using namespace storh::gate;
using compare::ComparableFile;
using storh::test::make_comparable;
using storh::test::matches_golden;

namespace {

GateOutcome gate_of(const ComparableFile& base, const ComparableFile& current,
                    const GateOptions& options = {}) {
  auto outcome = run_gate(base, current, options);
  REQUIRE(outcome.ok());
  return std::move(outcome).value();
}

std::string both_streams(const GateReport& report) {
  return report.out + "--- stderr ---\n" + report.err;
}

const std::vector<double> five_steady = {1.00, 1.01, 0.99, 1.02, 0.98};
const std::vector<double> five_slower = {1.30, 1.31, 1.29, 1.32, 1.28};

// Base and current for the golden tests: each metric exercises one rule.
ComparableFile options_base() {
  return make_comparable(
      {{"doc.put", {0.400, 0.401, 0.402, 0.403, 0.404}},    // +20%, own threshold 25
       {"doc.noisy", {0.010, 0.020, 0.011, 0.019, 0.015}},  // +13%, not significant
       {"doc.tiny", {10e-6, 11e-6, 9e-6, 10e-6}},           // +50%, below min effect
       {"log.append", {0.100, 0.101, 0.099}},               // +20%, too few samples
       {"log.recover", {0.0025, 0.0026, 0.0024}},           // missing in current
       {"uuid.rate",
        {1000, 1010, 990, 1005, 995},
        result::MetricDirection::higher_is_better,
        "ids"}},
      "base.json");
}

ComparableFile options_current() {
  test::RunSpec run;
  run.cpu_model = "Other CPU";
  return make_comparable(
      {{"doc.put", {0.480, 0.481, 0.482, 0.483, 0.484}},
       {"doc.noisy", {0.012, 0.022, 0.013, 0.021, 0.017}},
       {"doc.tiny", {15e-6, 16e-6, 14e-6, 15e-6}},
       {"log.append", {0.120, 0.121, 0.119}},
       {"uuid.rate", {800, 810, 790, 805, 795}, result::MetricDirection::higher_is_better, "ids"},
       {"queue.enqueue", {0.15}}},
      "current.json", run);
}

GateOptions all_additions() {
  GateOptions options;
  options.metric_thresholds = {{"doc.put", 25}};
  options.require_significance = true;
  options.min_effect_seconds = 0.0005;
  options.lenient_missing = true;
  return options;
}

}  // namespace

TEST_CASE("gate: slower by strictly more than the threshold fails, faster never does", "[gate]") {
  const ComparableFile base = make_comparable({{"doc.put", {1.0}}, {"doc.get", {1.0}}}, "b");
  // 1.25 is exactly 25% slower (exact in binary): at threshold 25 it passes.
  const ComparableFile at = make_comparable({{"doc.put", {1.25}}, {"doc.get", {0.1}}}, "c");
  GateOptions options;
  options.threshold_percent = 25;
  CHECK(gate_of(base, at, options).passed());
  options.threshold_percent = 24.99;
  CHECK_FALSE(gate_of(base, at, options).passed());

  const ComparableFile over = make_comparable({{"doc.put", {1.2}}, {"doc.get", {0.1}}}, "c");
  const GateOutcome outcome = gate_of(base, over);
  CHECK_FALSE(outcome.passed());
  CHECK(outcome.failures == 1);
  REQUIRE(outcome.checks.size() == 2);
  CHECK(outcome.checks[0].key == "doc.get");  // every baseline metric, sorted
  CHECK(outcome.checks[0].state == CheckState::pass);
  CHECK(outcome.checks[1].state == CheckState::regression);
  CHECK(verdict_line(outcome) == "Benchmark regression gate failed at threshold +10.00%.");
}

TEST_CASE("gate: a zero base never fails, a threshold of 0 fails any slowdown", "[gate]") {
  const ComparableFile base = make_comparable({{"doc.zero", {0.0}}, {"doc.put", {1.0}}}, "b");
  const ComparableFile current = make_comparable({{"doc.zero", {5.0}}, {"doc.put", {1.0001}}}, "c");
  GateOptions options;
  options.threshold_percent = 0;
  const GateOutcome outcome = gate_of(base, current, options);
  CHECK(outcome.checks[1].key == "doc.zero");
  CHECK(outcome.checks[1].state == CheckState::pass);
  CHECK(outcome.checks[0].state == CheckState::regression);
}

TEST_CASE("gate: a metric missing on either side fails unless lenient", "[gate]") {
  const ComparableFile base = make_comparable({{"doc.put", {1.0}}, {"log.gone", {1.0}}}, "b");
  const ComparableFile current = make_comparable({{"doc.put", {1.0}}, {"doc.extra", {9.0}}}, "c");
  GateOptions options;
  options.metrics = {"doc.put", "log.gone", "doc.extra"};
  GateOutcome outcome = gate_of(base, current, options);
  CHECK(outcome.failures == 2);
  CHECK(outcome.checks[1].state == CheckState::missing_in_current);
  CHECK(outcome.checks[2].state == CheckState::missing_in_baseline);
  // Without --metric, metrics only in current are never checked.
  CHECK(gate_of(base, current).checks.size() == 2);

  options.lenient_missing = true;
  outcome = gate_of(base, current, options);
  CHECK(outcome.passed());
  CHECK(outcome.checks[1].notes == std::vector<std::string>{"lenient: not a failure"});
  CHECK(outcome.warnings.back() ==
        "--lenient-missing: not failing on 2 missing metrics: log.gone (missing in current), "
        "doc.extra (missing in baseline)");
}

TEST_CASE("gate: a listed metric that neither file has is bad input, with a suggestion", "[gate]") {
  // Regression: `--metric=uuid.montonic` read "missing in baseline", a failed gate.
  const ComparableFile base = make_comparable({{"uuid.monotonic", {1.0}}}, "b.json");
  const ComparableFile current = make_comparable({{"uuid.monotonic", {1.0}}}, "c.json");
  GateOptions options;
  options.metrics = {"uuid.monotonic", "uuid.montonic"};
  auto outcome = run_gate(base, current, options);
  REQUIRE_FALSE(outcome.ok());
  CHECK(outcome.error() ==
        "--metric: unknown metric \"uuid.montonic\": neither b.json nor c.json has it; did you "
        "mean \"uuid.monotonic\"?");
  options.metrics = {"zzz"};
  CHECK(run_gate(base, current, options).error() ==
        "--metric: unknown metric \"zzz\": neither b.json nor c.json has it");
}

TEST_CASE("gate: per-metric thresholds, exact key before operation", "[gate]") {
  GateOptions options;
  options.threshold_percent = 5;
  options.metric_thresholds = {
      {"cache.cold", 20}, {"cache.cold[validation=hash]", 40}, {"recovery.recover", 30}};
  CHECK(threshold_for(options, "cache.cold[validation=hash]") == std::pair{40.0, true});
  CHECK(threshold_for(options, "cache.cold[validation=stat]") == std::pair{20.0, true});
  CHECK(threshold_for(options, "log.recover") == std::pair{30.0, true});  // storh name maps
  CHECK(threshold_for(options, "doc.put") == std::pair{5.0, false});
}

TEST_CASE("gate: --significant excuses a noisy slowdown and falls back with few samples",
          "[gate]") {
  const ComparableFile base =
      make_comparable({{"doc.put", five_steady}, {"doc.few", {1.0, 1.0, 1.0}}}, "b");
  const ComparableFile current =
      make_comparable({{"doc.put", five_slower}, {"doc.few", {2.0, 2.0, 2.0}}}, "c");
  GateOptions options;
  options.require_significance = true;
  GateOutcome outcome = gate_of(base, current, options);
  CHECK(outcome.checks[1].key == "doc.put");
  CHECK(outcome.checks[1].failed);  // 5 v 5 fully separated: p = 2/252 = 0.008
  CHECK(outcome.checks[1].notes == std::vector<std::string>{"p=0.008 significant"});
  CHECK(outcome.checks[0].failed);  // 3 v 3: untestable, the threshold decides
  CHECK(outcome.checks[0].notes ==
        std::vector<std::string>{"too few samples (need >= 4 per side): threshold alone"});

  const ComparableFile noisy = make_comparable(
      {{"doc.put", {1.30, 0.99, 1.35, 1.01, 1.4}}, {"doc.few", {1.0, 1.0, 1.0}}}, "c");
  outcome = gate_of(base, noisy, options);
  CHECK(outcome.checks[1].state == CheckState::excused);
  CHECK(outcome.passed());
}

TEST_CASE("gate: --min-effect ignores slowdowns too small to matter", "[gate]") {
  const ComparableFile base = make_comparable({{"doc.tiny", {10e-6}}, {"doc.big", {1.0}}}, "b");
  const ComparableFile current = make_comparable({{"doc.tiny", {20e-6}}, {"doc.big", {2.0}}}, "c");
  GateOptions options;
  options.min_effect_seconds = 0.001;
  const GateOutcome outcome = gate_of(base, current, options);
  CHECK(outcome.checks[1].key == "doc.tiny");
  CHECK(outcome.checks[1].state == CheckState::excused);
  CHECK(outcome.checks[0].state == CheckState::regression);
}

TEST_CASE("gate: a rate that drops fails like the time it stands for", "[gate]") {
  const ComparableFile base =
      make_comparable({{"uuid.rate", {100}, result::MetricDirection::higher_is_better}}, "b");
  const ComparableFile current =
      make_comparable({{"uuid.rate", {90}, result::MetricDirection::higher_is_better}}, "c");
  const GateOutcome outcome = gate_of(base, current);
  CHECK(outcome.checks[0].delta_percent == Approx(-10));
  CHECK(outcome.checks[0].slowdown_percent == Approx(11.111).margin(0.001));
  CHECK_FALSE(outcome.passed());
}

TEST_CASE("gate: invalid options are errors, not outcomes", "[gate]") {
  const ComparableFile file = make_comparable({{"doc.put", {1.0}}}, "b");
  GateOptions options;
  options.threshold_percent = -1;
  auto outcome = run_gate(file, file, options);
  REQUIRE_FALSE(outcome.ok());
  CHECK(outcome.error() == "--threshold: -1 is not a percentage >= 0 (e.g. 10 allows 10% slower)");
  options = {};
  options.metric_thresholds = {{"doc.put", -3}};
  CHECK_FALSE(run_gate(file, file, options).ok());
  options = {};
  options.alpha = 1.5;
  CHECK_FALSE(run_gate(file, file, options).ok());
}

TEST_CASE("gate golden: storh defaults print storh's lines", "[gate][golden]") {
  const GateOutcome outcome = gate_of(options_base(), options_current());
  CHECK(matches_golden("gate-storh.txt",
                       both_streams(render_gate(outcome, compare::OutputFormat::text))));
}

TEST_CASE("gate golden: every addition, in text, md and json", "[gate][golden]") {
  const GateOutcome outcome = gate_of(options_base(), options_current(), all_additions());
  CHECK(outcome.failures == 2);  // uuid.rate (significant) and log.append (untestable)
  CHECK(matches_golden("gate-options.txt",
                       both_streams(render_gate(outcome, compare::OutputFormat::text))));
  CHECK(matches_golden("gate-options.md",
                       both_streams(render_gate(outcome, compare::OutputFormat::markdown))));
  CHECK(matches_golden("gate-options.json",
                       both_streams(render_gate(outcome, compare::OutputFormat::json))));
}

TEST_CASE("gate golden: storh's ci metric list on the PHP reference files", "[gate][golden]") {
  // engine-spec.md 12.6: ci.php's 17 metrics at its default threshold of 3000%.
  GateOptions options;
  options.threshold_percent = 3000;
  options.metrics = {"doc.put",       "doc.index_build", "doc.bulk_put",       "doc.jsonl_import",
                     "log.append",    "log.compact",     "log.bulk_append",    "queue.enqueue",
                     "queue.claim",   "queue.complete",  "queue.bulk_enqueue", "recovery.recover",
                     "cache.cold",    "cache.warm",      "uuid.monotonic",     "mirror.push",
                     "mirror.rebuild"};
  const GateOutcome outcome = gate_of(test::load_storh_php("storh-php82-1k.json"),
                                      test::load_storh_php("storh-php82-1k-repeat3.json"), options);
  CHECK(outcome.passed());
  CHECK(matches_golden("gate-storh-php-ci.txt",
                       both_streams(render_gate(outcome, compare::OutputFormat::text))));
}
