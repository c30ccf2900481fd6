#include "gate/gate.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "compare/differences.h"
#include "report/format.h"
#include "util/did_you_mean.h"

namespace storh::gate {
namespace {

using compare::ComparableFile;
using compare::ComparableMetric;

// "cache.cold[validation=hash]" -> "cache.cold"
std::string without_qualifiers(const std::string& key) {
  return key.substr(0, key.find('['));
}

bool valid_percent(double value) {
  return std::isfinite(value) && value >= 0;
}

// The storh delta for times; for higher_is_better values the slowdown their inverse
// (a time per unit) would show.
double slowdown_percent(Direction direction, double base, double current) {
  if (direction == Direction::lower_is_better) return compare::delta_percent(base, current);
  if (current == 0) return base == 0 ? 0.0 : std::numeric_limits<double>::infinity();
  return (base / current - 1) * 100.0;
}

// Decides an over-threshold metric under the additions; storh alone fails it.
void judge_over_threshold(const ComparableMetric& b, const ComparableMetric& c,
                          const GateOptions& options, GateCheck& check,
                          std::vector<std::string>& fallbacks) {
  check.state = CheckState::regression;
  check.failed = true;
  const double difference = std::fabs(c.median - b.median);
  if (options.min_effect_seconds > 0 && difference < options.min_effect_seconds) {
    check.state = CheckState::excused;
    check.failed = false;
    check.notes.push_back(fmt::format("difference {} below --min-effect {}: not a failure",
                                      report::format_seconds(difference),
                                      report::format_seconds(options.min_effect_seconds)));
    return;
  }
  if (!options.require_significance) return;
  check.significance = compare::test_significance(b, c, options.alpha);
  const compare::Significance& s = *check.significance;
  if (!s.test) {
    fallbacks.push_back(fmt::format("{} ({})", check.key, s.text));
    check.notes.push_back(s.text + ": threshold alone");
  } else if (!s.significant) {
    check.state = CheckState::excused;
    check.failed = false;
    check.notes.push_back(s.text + ": not a failure");
  } else {
    check.notes.push_back(s.text);
  }
}

// One metric under every rule: storh's first, then the additions.
GateCheck check_metric(const std::string& key, const ComparableFile& base,
                       const ComparableFile& current, const GateOptions& options,
                       std::vector<std::string>& fallbacks) {
  GateCheck check;
  check.key = key;
  std::tie(check.threshold_percent, check.custom_threshold) = threshold_for(options, key);
  if (check.custom_threshold) {
    check.notes.push_back(fmt::format("threshold {:+.2f}%", check.threshold_percent));
  }
  const ComparableMetric* b = base.find(key);
  const ComparableMetric* c = current.find(key);
  if (b != nullptr) check.base_median = b->median;
  if (c != nullptr) check.current_median = c->median;
  if (b == nullptr || c == nullptr) {
    check.state = b == nullptr ? CheckState::missing_in_baseline : CheckState::missing_in_current;
    check.failed = !options.lenient_missing;
    if (options.lenient_missing) check.notes.push_back("lenient: not a failure");
    return check;
  }
  check.direction = b->direction;
  check.delta_percent = compare::delta_percent(b->median, c->median);
  check.slowdown_percent = slowdown_percent(b->direction, b->median, c->median);
  if (b->direction == Direction::higher_is_better && check.slowdown_percent > 0) {
    // The storh line prints the raw delta, which is negative for a dropping rate.
    check.notes.push_back(fmt::format("higher is better: {:.2f}% slower", check.slowdown_percent));
  }
  if (check.slowdown_percent > check.threshold_percent) {
    judge_over_threshold(*b, *c, options, check, fallbacks);
  }
  return check;
}

// A named metric that neither file has is a typo, not a regression: the error names
// both files and the closest key either of them has.
std::string unknown_metric_error(const std::string& key, const ComparableFile& base,
                                 const ComparableFile& current) {
  std::vector<std::string> known;
  for (const ComparableFile* file : {&base, &current}) {
    for (const ComparableMetric& metric : file->metrics) {
      if (std::find(known.begin(), known.end(), metric.key) == known.end()) {
        known.push_back(metric.key);
      }
    }
  }
  return fmt::format("--metric: unknown metric \"{}\": neither {} nor {} has it{}", key, base.name,
                     current.name, did_you_mean(key, known));
}

}  // namespace

std::string validate(const GateOptions& options) {
  if (!valid_percent(options.threshold_percent)) {
    return fmt::format("--threshold: {} is not a percentage >= 0 (e.g. 10 allows 10% slower)",
                       options.threshold_percent);
  }
  for (const MetricThreshold& t : options.metric_thresholds) {
    if (t.key.empty())
      return "--threshold: a per-metric threshold needs a metric name (doc.put=20)";
    if (!valid_percent(t.percent)) {
      return fmt::format("--threshold: {} for {} is not a percentage >= 0", t.percent, t.key);
    }
  }
  if (!(options.alpha > 0 && options.alpha < 1)) {
    return fmt::format("--alpha: {} is not a significance level in (0, 1), e.g. 0.05",
                       options.alpha);
  }
  if (!valid_percent(options.min_effect_seconds)) {
    return fmt::format("--min-effect: {} is not a duration >= 0 in seconds (e.g. 0.001)",
                       options.min_effect_seconds);
  }
  return "";
}

std::pair<double, bool> threshold_for(const GateOptions& options, const std::string& key) {
  const std::string operation = without_qualifiers(key);
  std::optional<double> exact, general;
  for (const MetricThreshold& t : options.metric_thresholds) {
    const std::string mapped = compare::map_storh_php_key(t.key);
    if (mapped == key) exact = t.percent;
    if (mapped == operation) general = t.percent;
  }
  if (exact) return {*exact, true};
  if (general) return {*general, true};
  return {options.threshold_percent, false};
}

Expected<GateOutcome> run_gate(const ComparableFile& base, const ComparableFile& current,
                               const GateOptions& options) {
  if (std::string problem = validate(options); !problem.empty()) return Error{problem};
  GateOutcome outcome;
  outcome.base_name = base.name;
  outcome.current_name = current.name;
  outcome.threshold_percent = options.threshold_percent;
  outcome.warnings = compare::difference_warnings({&base, &current});

  std::vector<std::string> keys;
  for (const std::string& name : options.metrics) {
    std::string key = compare::map_storh_php_key(name);
    if (base.find(key) == nullptr && current.find(key) == nullptr) {
      return Error{unknown_metric_error(key, base, current)};
    }
    keys.push_back(std::move(key));
  }
  if (options.metrics.empty()) {
    for (const ComparableMetric& metric : base.metrics) keys.push_back(metric.key);
    std::sort(keys.begin(), keys.end());
  }

  std::vector<std::string> fallbacks;  // "doc.put (too few samples ...)"
  std::vector<std::string> lenient;    // "log.x (missing in current)"
  for (const std::string& key : keys) {
    GateCheck check = check_metric(key, base, current, options, fallbacks);
    const bool missing = check.state == CheckState::missing_in_baseline ||
                         check.state == CheckState::missing_in_current;
    if (missing && options.lenient_missing) {
      lenient.push_back(
          fmt::format("{} (missing in {})", key, check.base_median ? "current" : "baseline"));
    }
    outcome.failures += check.failed ? 1 : 0;
    outcome.checks.push_back(std::move(check));
  }

  if (!lenient.empty()) {
    outcome.warnings.push_back(
        fmt::format("--lenient-missing: not failing on {} missing metric{}: {}", lenient.size(),
                    lenient.size() == 1 ? "" : "s", fmt::join(lenient, ", ")));
  }
  if (!fallbacks.empty()) {
    outcome.warnings.push_back(fmt::format(
        "--significant: could not test {} metric{} over the threshold, so the threshold alone "
        "decided: {}",
        fallbacks.size(), fallbacks.size() == 1 ? "" : "s", fmt::join(fallbacks, ", ")));
  }
  return outcome;
}

std::string verdict_line(const GateOutcome& outcome) {
  return fmt::format("Benchmark regression gate {} at threshold {:+.2f}%.",
                     outcome.passed() ? "passed" : "failed", outcome.threshold_percent);
}

}  // namespace storh::gate
