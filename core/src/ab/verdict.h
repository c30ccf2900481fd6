// ab/verdict.h: from the pairs of an A/B run to a verdict per metric.
//
// Why pairs: a shared 2-core runner drifts by 10-20% between two runs minutes apart,
// and that drift is invisible in the samples of either run, so a test of two separate
// runs calls it an effect. In an A/B run each base sample has a head sample that ran
// back to back with it, alternating who goes first (ABBA), so drift cancels in the
// per-pair ratio head/base. The verdict tests those ratios (stats/paired.h):
//
//   slowdown    = ratio - 1, in percent; ratio is the Hodges-Lehmann estimate of the
//                 head/base ratio (direction-normalised: a higher_is_better value is
//                 inverted first, so > 0 is always slower);
//   threshold   = max(the configured threshold, the noise floor), where the noise
//                 floor is the smallest slowdown this metric's pairs can tell from
//                 zero at alpha (critical value x noise / sqrt(0.955 pairs)), with
//                 the noise from a calibration file when given (a quiet run must not
//                 lower a floor that calibration measured), else from the run itself;
//   regression  = the signed-rank test finds the ratios significant at alpha AND the
//                 slowdown exceeds the threshold;
//   improvement = the same, faster;
//   otherwise "no change", with the interval shown. Too few pairs for the test to
//   reach alpha at all is "too few pairs", a failure unless lenient.
// Confirmation: a regression on wall time alone (no gated counter of the metric rose
// beyond its tolerance) is judged again on a fresh set of pairs of its cell
// (AbResult::confirmation, run by ab::confirm) and fails only when that set regresses
// too; when it does not, the verdict is "not confirmed", which passes. A metric whose
// counter rose fails at once: counters do not vary, so there is nothing to confirm. A
// regression with no confirmation set (none ran, e.g. a file judged again) fails.
// `detectable` (reported per metric) is the slowdown found with 80% power.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ab/ab_result.h"
#include "compare/render.h"
#include "gate/gate.h"
#include "report/html_assets.h"
#include "stats/paired.h"
#include "util/expected.h"

namespace storh::ab {

inline constexpr double kDefaultAbThresholdPercent = 3.0;
inline constexpr double kDefaultAbAlpha = 0.01;
inline constexpr double kDetectablePower = 0.8;

// A metric's paired statistics, direction-normalised.
struct PairedSummary {
  stats::PairedTest test;
  double slowdown_percent = 0;          // (ratio - 1) * 100
  double detectable_percent = 0;        // found with 80% power at alpha by these pairs
  double noise_floor_percent = 0;       // smallest slowdown significant at alpha
  bool noise_from_calibration = false;  // the floor used the calibrated noise (the run's
                                        // own was no larger)
};
PairedSummary summarize(const PairedMetric& metric, double alpha,
                        std::optional<double> calibrated_noise = std::nullopt);

struct AbGateOptions {
  double threshold_percent = kDefaultAbThresholdPercent;  // >= 0
  std::vector<gate::MetricThreshold> metric_thresholds;   // as gate's
  std::vector<std::string> metrics;                       // empty: every paired metric
  double alpha = kDefaultAbAlpha;                         // in (0, 1)
  bool lenient_too_few = false;                           // too few pairs: a warning, not a failure
  // Log-ratio noise per metric key from a calibration file (ab/calibration.h).
  std::map<std::string, double> calibrated_noise;
  // Counters per item (docs/counters.md), base side against head side, when the
  // suite ran a counting pass: deterministic, so compared as gate compares them.
  std::vector<gate::CounterTolerance> counter_tolerances;
};

enum class AbState { no_change, regression, improvement, too_few_pairs, missing, unconfirmed };
const char* ab_state_name(AbState state);  // "no change", "REGRESSION", ...

// The confirmation set's verdict on a metric that regressed in the first set.
struct AbConfirmation {
  PairedSummary summary;
  double threshold_percent = 0;
  std::string threshold_from;
  bool agreed = false;  // this set also regressed beyond its threshold
};

struct AbCheck {
  std::string key;
  std::string unit;
  PairedSummary summary;
  double threshold_percent = 0;  // the one that applied
  std::string threshold_from;    // "threshold", "noise floor", "calibration"
  AbState state = AbState::no_change;
  bool failed = false;
  bool counters_rose = false;                  // a gated counter of this metric failed
  std::optional<AbConfirmation> confirmation;  // when a confirmation set has the metric
  std::vector<std::string> notes;
};

struct AbOutcome {
  std::vector<AbCheck> checks;                     // in checked order
  std::vector<gate::CounterCheck> counter_checks;  // failures count
  std::size_t failures = 0;
  std::vector<std::string> warnings;  // failed runs, unequal builds, too few pairs...
  bool passed() const { return failures == 0; }
};

// Empty when valid, else what is wrong (as gate::validate).
std::string validate(const AbGateOptions& options);

// Judges every metric (or options.metrics, each of which must exist on both sides:
// a name in neither is an error with did-you-mean).
Expected<AbOutcome> judge(const AbResult& result, const AbGateOptions& options);

// The metrics to confirm before they fail: regressions on wall time alone that no
// confirmation set has judged yet, sorted.
std::set<std::string> unconfirmed_regressions(const AbOutcome& outcome);

// Text (aligned), Markdown (a pull-request comment) or JSON; the verdict line last.
struct AbReport {
  std::string out;
  std::string err;
};
AbReport render(const AbResult& result, const AbOutcome& outcome, compare::OutputFormat format,
                double alpha);

// One self-contained HTML page (docs/html-report.md): the header, the verdict and the
// warnings, per engine each metric's head/base ratio on its confidence interval
// (chart kind "ratios"), then the table and the counters. `out` is the page; the
// warnings and the verdict line go to `err`.
AbReport render_html(const AbResult& result, const AbOutcome& outcome, double alpha,
                     const report::HtmlAssets& assets);

}  // namespace storh::ab
