// gate/gate.h: the regression gate: does CURRENT regress against BASE?
//
// The storh harness's semantics (engine-spec.md 12.5) are kept exactly:
//   - the threshold is a percentage: 10 allows up to 10% slower;
//   - a metric regresses when it is slower by strictly more than the threshold;
//     faster never fails; a base of 0 gives a delta of 0 (never fails);
//   - with no metric list, every baseline metric is checked, sorted by key (metrics
//     only in CURRENT are never checked);
//   - a metric missing on either side fails ("missing in baseline" / "missing in
//     current"); a listed metric that neither file has is bad input instead (a
//     typo: run_gate's error, with the closest key either file has);
//   - every checked metric is reported, failures included, before the verdict.
// "Slower" is direction-aware: for a time, slowdown = (current - base) / base, the
// storh delta; for a higher_is_better value, slowdown = base / current - 1 (a rate
// that halves is 100% slower, as its time would be).
//
// Additions, each off by default so the defaults are exactly storh's:
//   - per-metric thresholds;
//   - require_significance: an over-threshold metric fails only if the two-sided
//     Mann-Whitney test also finds the difference significant at alpha. When the
//     samples are too few for the test (compare/mann_whitney.h: >= 4 per side at
//     0.05) or are not in the file, the threshold alone decides, and the outcome
//     says so;
//   - min_effect_seconds: an over-threshold metric whose medians differ by less
//     than this (absolute) does not fail: 20% of 5 us is not worth a red build;
//   - lenient_missing: a missing metric is reported and warned about, not failed;
//   - counter tolerances (docs/counters.md): a checked metric whose counter per item
//     grows beyond its tolerance fails, whatever its time did: current >
//     base * (1 + percent/100), beyond a relative 1e-9 for floating-point noise. A
//     counter present on one side only is a warning, never a failure.
//
// `ci` and the suite's [gate] table build a GateOptions and call run_gate; the CLI's
// `gate` command is a thin wrapper. Pure: no I/O, deterministic.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "compare/comparable.h"
#include "compare/compare.h"
#include "util/expected.h"

namespace storh::gate {

inline constexpr double kDefaultThresholdPercent = 10.0;  // as the storh harness

struct MetricThreshold {
  // A full key ("cache.cold[validation=hash]"), or a key without qualifiers
  // ("cache.cold") that applies to every cell of that operation. For one metric, an
  // exact key wins over an unqualified one; among equal keys the last entry wins.
  std::string key;
  double percent = kDefaultThresholdPercent;  // >= 0
};

// "fsync" = 0: fsyncs per item must not grow; "instructions" = 2: up to +2%.
struct CounterTolerance {
  std::string counter;  // a count::CounterInfo name
  double percent = 0;   // >= 0
};

struct GateOptions {
  double threshold_percent = kDefaultThresholdPercent;  // >= 0; for every metric
  std::vector<MetricThreshold> metric_thresholds;       // overrides per metric
  // Metrics to check, in this order; empty means every baseline metric, sorted.
  std::vector<std::string> metrics;
  bool require_significance = false;
  double alpha = compare::kDefaultAlpha;  // in (0, 1)
  double min_effect_seconds = 0;          // >= 0; 0 disables
  bool lenient_missing = false;
  std::vector<CounterTolerance> counter_tolerances;  // checked on every checked metric
};
// Metric names in `metrics` and `metric_thresholds` go through
// compare::map_storh_php_key, so storh-era names (recovery.recover) keep working.

enum class CheckState {
  pass,                 // not slower than its threshold allows
  regression,           // slower by more than its threshold, and not excused
  excused,              // over the threshold, but an addition excused it (see notes)
  missing_in_baseline,  // failed unless lenient_missing
  missing_in_current,
};

struct GateCheck {
  std::string key;
  CheckState state = CheckState::pass;
  bool failed = false;  // counts against the verdict
  std::optional<double> base_median;
  std::optional<double> current_median;
  result::MetricDirection direction = result::MetricDirection::lower_is_better;
  double delta_percent = 0;       // the storh delta, printed
  double slowdown_percent = 0;    // direction-normalised; compared with the threshold
  double threshold_percent = 0;   // the one that applied
  bool custom_threshold = false;  // from metric_thresholds
  std::optional<compare::Significance> significance;  // tested when over the threshold
  // Why the outcome is what it is, beyond the storh line: "threshold +20.00%",
  // "higher is better: 25.00% slower", "p=0.310 not significant: not a failure",
  // "lenient: not a failure", ...
  std::vector<std::string> notes;
};

// One counter of one checked metric against its tolerance.
struct CounterCheck {
  std::string key;      // the metric
  std::string counter;  // "fsync"
  double base = 0;      // per item
  double current = 0;
  double tolerance_percent = 0;
  double growth_percent = 0;  // (current - base) / base; infinite from a base of 0
  bool failed = false;
};

struct GateOutcome {
  std::string base_name;
  std::string current_name;
  double threshold_percent = kDefaultThresholdPercent;
  std::vector<GateCheck> checks;  // in checked order
  // For every checked metric present on both sides, each tolerance's counter when
  // both files have it; in checked order, then tolerance order. Failures count.
  std::vector<CounterCheck> counter_checks;
  std::size_t failures = 0;
  // File differences (compare::difference_warnings) and what an option changed:
  // lenient missing metrics, significance fallbacks.
  std::vector<std::string> warnings;

  bool passed() const { return failures == 0; }
};

// Empty when valid, else what is wrong: "--threshold: -5 is negative (a percentage
// >= 0, e.g. 10)".
std::string validate(const GateOptions& options);

// Runs the gate. Errors: invalid options (validate's message), and a metric in
// options.metrics that neither file has: `--metric: unknown metric "uuid.montonic":
// neither base.json nor new.json has it; did you mean "uuid.monotonic"?`.
Expected<GateOutcome> run_gate(const compare::ComparableFile& base,
                               const compare::ComparableFile& current, const GateOptions& options);

// The threshold that applies to `key` (see MetricThreshold), and whether it came from
// metric_thresholds. Keys are compared after map_storh_php_key.
std::pair<double, bool> threshold_for(const GateOptions& options, const std::string& key);

// "Benchmark regression gate passed at threshold +10.00%." (or "failed"), as storh.
std::string verdict_line(const GateOutcome& outcome);

}  // namespace storh::gate
