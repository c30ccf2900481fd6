#include "ab/verdict.h"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "compare/comparable.h"
#include "suite/suite_internal.h"

namespace storh::ab {
namespace {

// Pairs as values where larger is slower: a higher_is_better value is inverted.
std::pair<std::vector<double>, std::vector<double>> normalised(const PairedMetric& metric) {
  std::vector<double> base, head;
  for (const Pair& p : metric.pairs) {
    const bool invert = metric.direction == result::MetricDirection::higher_is_better;
    base.push_back(invert ? (p.base != 0 ? 1 / p.base : 0) : p.base);
    head.push_back(invert ? (p.head != 0 ? 1 / p.head : 0) : p.head);
  }
  return {std::move(base), std::move(head)};
}

double percent_of_log(double log_ratio) {
  return (std::exp(log_ratio) - 1) * 100;
}

std::vector<std::string> all_keys(const AbResult& result) {
  std::set<std::string> keys;
  for (const PairedMetric& m : result.metrics) keys.insert(m.key);
  for (const result::Metric& m : result.head.metrics) keys.insert(m.key);
  for (const result::Metric& m : result.base.metrics) keys.insert(m.key);
  return {keys.begin(), keys.end()};
}

const PairedMetric* find_in(const std::vector<PairedMetric>& metrics, const std::string& key) {
  for (const PairedMetric& m : metrics) {
    if (m.key == key) return &m;
  }
  return nullptr;
}

// One set of pairs judged: its summary, the threshold that applied and the state
// (no_change, regression, improvement or too_few_pairs).
struct PairsVerdict {
  PairedSummary summary;
  double threshold_percent = 0;
  std::string threshold_from;
  AbState state = AbState::no_change;
};

// The configured threshold of `key` and where it came from.
std::pair<double, std::string> configured_threshold(const std::string& key,
                                                    const AbGateOptions& options) {
  gate::GateOptions thresholds;
  thresholds.threshold_percent = options.threshold_percent;
  thresholds.metric_thresholds = options.metric_thresholds;
  const auto [percent, custom] = gate::threshold_for(thresholds, key);
  return {percent, custom ? "metric threshold" : "threshold"};
}

PairsVerdict judge_pairs(const PairedMetric& paired, const AbGateOptions& options) {
  PairsVerdict v;
  std::tie(v.threshold_percent, v.threshold_from) = configured_threshold(paired.key, options);
  std::optional<double> calibrated;
  if (auto it = options.calibrated_noise.find(paired.key); it != options.calibrated_noise.end()) {
    calibrated = it->second;
  }
  v.summary = summarize(paired, options.alpha, calibrated);
  const PairedSummary& s = v.summary;
  if (s.noise_floor_percent > v.threshold_percent) {
    v.threshold_percent = s.noise_floor_percent;
    v.threshold_from = s.noise_from_calibration ? "calibration" : "noise floor";
  }
  if (!s.test.p_value) {
    v.state = AbState::too_few_pairs;
    return v;
  }
  const bool significant = *s.test.p_value < options.alpha;
  if (significant && s.slowdown_percent > v.threshold_percent) {
    v.state = AbState::regression;
  } else if (significant && -s.slowdown_percent > v.threshold_percent) {
    v.state = AbState::improvement;
  }
  return v;
}

// A first-set regression against its confirmation set: fails only when both agree.
void apply_confirmation(AbCheck& check, const PairedMetric& again, const AbGateOptions& options) {
  const PairsVerdict v = judge_pairs(again, options);
  check.confirmation = AbConfirmation{v.summary, v.threshold_percent, v.threshold_from,
                                      v.state == AbState::regression};
  const std::string figures =
      fmt::format("{} fresh pair(s) {:+.2f}%, p {}, threshold {:.2f}%", v.summary.test.pairs,
                  v.summary.slowdown_percent,
                  v.summary.test.p_value ? fmt::format("{:.3g}", *v.summary.test.p_value) : "-",
                  v.threshold_percent);
  if (check.confirmation->agreed) {
    check.notes.push_back("confirmed: the confirmation set regressed too (" + figures + ")");
    return;
  }
  check.state = AbState::unconfirmed;
  check.failed = false;
  check.notes.push_back("not confirmed: the confirmation set did not regress (" + figures +
                        "): not a failure");
}

AbCheck check_metric(const AbResult& result, const std::string& key, const AbGateOptions& options,
                     bool counters_rose) {
  AbCheck check;
  check.key = key;
  check.counters_rose = counters_rose;
  const PairedMetric* paired = find_paired(result, key);
  if (paired == nullptr || paired->pairs.empty()) {
    std::tie(check.threshold_percent, check.threshold_from) = configured_threshold(key, options);
    check.state = AbState::missing;
    check.failed = !options.lenient_too_few;
    check.notes.push_back("no pair: the metric is missing on one side or every pair failed");
    return check;
  }
  check.unit = paired->unit;
  const PairsVerdict v = judge_pairs(*paired, options);
  check.summary = v.summary;
  check.threshold_percent = v.threshold_percent;
  check.threshold_from = v.threshold_from;
  check.state = v.state;
  const PairedSummary& s = check.summary;
  if (v.state == AbState::too_few_pairs) {
    check.failed = !options.lenient_too_few;
    check.notes.push_back(s.test.note);
  } else if (v.state == AbState::regression) {
    check.failed = true;
    const PairedMetric* again = find_confirmation(result, key);
    if (counters_rose) {
      check.notes.push_back("a counter rose: failed without a confirmation set");
    } else if (again != nullptr && !again->pairs.empty()) {
      apply_confirmation(check, *again, options);
    }
  } else if (v.state == AbState::no_change && s.test.p_value && *s.test.p_value < options.alpha &&
             s.slowdown_percent > 0) {
    check.notes.push_back(fmt::format("significant but within the threshold {:.2f}% ({})",
                                      check.threshold_percent, check.threshold_from));
  }
  return check;
}

}  // namespace

const PairedMetric* find_paired(const AbResult& result, const std::string& key) {
  return find_in(result.metrics, key);
}

const PairedMetric* find_confirmation(const AbResult& result, const std::string& key) {
  return find_in(result.confirmation, key);
}

PairedSummary summarize(const PairedMetric& metric, double alpha,
                        std::optional<double> calibrated_noise) {
  PairedSummary summary;
  const auto [base, head] = normalised(metric);
  summary.test = stats::paired_test(base, head, alpha);
  summary.slowdown_percent = (summary.test.ratio - 1) * 100;
  const std::size_t n = summary.test.pairs;
  // A calibration measured over many pairs; a quiet run must not lower its floor.
  const double noise = std::max(calibrated_noise.value_or(0.0), summary.test.noise);
  summary.noise_from_calibration = calibrated_noise && *calibrated_noise >= summary.test.noise;
  if (n > 0) {
    summary.detectable_percent = stats::detectable_percent(noise, n, alpha, kDetectablePower);
    summary.noise_floor_percent = percent_of_log(stats::normal_quantile(1 - alpha / 2) * noise /
                                                 std::sqrt(0.955 * static_cast<double>(n)));
  }
  return summary;
}

const char* ab_state_name(AbState state) {
  switch (state) {
    case AbState::no_change:
      return "no change";
    case AbState::regression:
      return "REGRESSION";
    case AbState::improvement:
      return "improvement";
    case AbState::too_few_pairs:
      return "too few pairs";
    case AbState::missing:
      return "missing";
    case AbState::unconfirmed:
      return "not confirmed";
  }
  return "?";
}

std::string validate(const AbGateOptions& options) {
  if (!std::isfinite(options.threshold_percent) || options.threshold_percent < 0) {
    return fmt::format("--threshold: {} is negative (a percentage >= 0, e.g. 3)",
                       options.threshold_percent);
  }
  if (!(options.alpha > 0 && options.alpha < 1)) {
    return fmt::format("--alpha: {} is outside (0, 1) (e.g. 0.01)", options.alpha);
  }
  for (const gate::MetricThreshold& t : options.metric_thresholds) {
    if (!std::isfinite(t.percent) || t.percent < 0) {
      return fmt::format("--threshold: {}={} is negative", t.key, t.percent);
    }
  }
  return {};
}

std::set<std::string> unconfirmed_regressions(const AbOutcome& outcome) {
  std::set<std::string> keys;
  for (const AbCheck& check : outcome.checks) {
    if (check.state == AbState::regression && !check.counters_rose && !check.confirmation) {
      keys.insert(check.key);
    }
  }
  return keys;
}

Expected<AbOutcome> judge(const AbResult& result, const AbGateOptions& options) {
  if (std::string error = validate(options); !error.empty()) return Error{error};
  const std::vector<std::string> known = all_keys(result);
  std::vector<std::string> keys = options.metrics.empty() ? known : options.metrics;
  for (const std::string& key : options.metrics) {
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      return Error{fmt::format("--metric: no metric \"{}\" on either side{}", key,
                               suite::detail::did_you_mean(key, known))};
    }
  }
  AbOutcome outcome;
  std::set<std::string> counters_rose;
  if (!options.counter_tolerances.empty()) {
    // Only the counters: wall time is judged from the pairs below.
    gate::GateOptions counters;
    counters.threshold_percent = 1e12;
    counters.metrics = keys;
    counters.lenient_missing = true;
    counters.counter_tolerances = options.counter_tolerances;
    Expected<gate::GateOutcome> counted =
        gate::run_gate(compare::comparable_from_result(result.base, "base"),
                       compare::comparable_from_result(result.head, "head"), counters);
    if (!counted) return Error{counted.error()};
    for (const gate::CounterCheck& check : counted->counter_checks) {
      if (check.failed) {
        ++outcome.failures;
        counters_rose.insert(check.key);
      }
      outcome.counter_checks.push_back(check);
    }
    for (const std::string& warning : counted->warnings) {
      if (warning.find("counter") != std::string::npos) outcome.warnings.push_back(warning);
    }
  }
  for (const std::string& key : keys) {
    AbCheck check = check_metric(result, key, options, counters_rose.count(key) > 0);
    if (check.failed) ++outcome.failures;
    if (check.state == AbState::too_few_pairs && options.lenient_too_few) {
      outcome.warnings.push_back(fmt::format("{}: {}: not gated", key, check.summary.test.note));
    }
    outcome.checks.push_back(std::move(check));
  }
  for (const auto* side : {&result.base, &result.head}) {
    const char* name = side == &result.base ? "base" : "head";
    if (!side->failures.empty()) {
      outcome.warnings.push_back(fmt::format(
          "{}: {} worker run(s) failed; their pairs are left out", name, side->failures.size()));
    }
    for (const std::string& warning : side->environment.warnings) {
      outcome.warnings.push_back(fmt::format("{}: {}", name, warning));
    }
  }
  if (result.head.interrupted || result.base.interrupted) {
    outcome.warnings.push_back("the run was interrupted: the pairs are incomplete");
  }
  return outcome;
}

}  // namespace storh::ab
