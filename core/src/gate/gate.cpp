#include "gate/gate.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include <fmt/format.h>

#include "compare/differences.h"
#include "count/counters.h"
#include "report/format.h"
#include "result/metric_key.h"
#include "util/did_you_mean.h"
#include "util/natural_order.h"

namespace storh::gate {
namespace {

using compare::ComparableFile;
using compare::ComparableMetric;

bool valid_percent(double value) {
  return std::isfinite(value) && value >= 0;
}

// The storh delta for times; for higher_is_better values the slowdown their inverse
// (a time per unit) would show.
double slowdown_percent(result::MetricDirection direction, double base, double current) {
  if (direction == result::MetricDirection::lower_is_better)
    return compare::delta_percent(base, current);
  if (current == 0) return base == 0 ? 0.0 : std::numeric_limits<double>::infinity();
  return (base / current - 1) * 100.0;
}

// Decides an over-threshold metric under the additions; storh alone fails it.
void judge_over_threshold(const ComparableMetric& b, const ComparableMetric& c,
                          const GateOptions& options, GateCheck& check,
                          std::vector<std::string>& fallbacks) {
  check.state = CheckState::regression;
  check.failed = true;
  // One rule with compare: a change no larger than the two files' own noise band is
  // what compare calls "same", so it is not a regression either.
  if (const std::optional<double> noise = compare::noise_band_percent(b, c);
      noise && check.slowdown_percent <= *noise) {
    check.state = CheckState::excused;
    check.failed = false;
    check.notes.push_back(fmt::format(
        "{:+.2f}% is within these files' noise band ±{:.2f}% (compare calls it same): not a "
        "failure; more repeats narrow the band",
        check.slowdown_percent, *noise));
    return;
  }
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
  if (b->direction == result::MetricDirection::higher_is_better && check.slowdown_percent > 0) {
    // The storh line prints the raw delta, which is negative for a dropping rate.
    check.notes.push_back(fmt::format("higher is better: {:.2f}% slower", check.slowdown_percent));
  }
  if (check.slowdown_percent > check.threshold_percent) {
    judge_over_threshold(*b, *c, options, check, fallbacks);
  }
  return check;
}

std::optional<double> counter_value(const ComparableMetric& metric, const std::string& name) {
  for (const auto& [counter, value] : metric.counters) {
    if (counter == name) return value;
  }
  return std::nullopt;
}

// Every tolerance on one metric; a counter on one side only goes to `one_sided`.
void check_counters(const ComparableMetric& b, const ComparableMetric& c,
                    const GateOptions& options, GateOutcome& outcome,
                    std::vector<std::string>& one_sided) {
  // Absorbs the last bits of a per-item division; far below one call in a billion items.
  constexpr double kRelativeEpsilon = 1e-9;
  for (const CounterTolerance& tolerance : options.counter_tolerances) {
    const std::optional<double> base = counter_value(b, tolerance.counter);
    const std::optional<double> current = counter_value(c, tolerance.counter);
    if (!base || !current) {
      if (base || current) {
        one_sided.push_back(fmt::format("{} {} (missing in {})", b.key, tolerance.counter,
                                        base ? "current" : "baseline"));
      }
      continue;
    }
    CounterCheck check{b.key, tolerance.counter, *base, *current, tolerance.percent, 0, false};
    check.growth_percent = *base != 0      ? (*current - *base) / *base * 100.0
                           : *current == 0 ? 0.0
                                           : std::numeric_limits<double>::infinity();
    const double limit = *base * (1 + tolerance.percent / 100.0);
    check.failed = *current - limit > kRelativeEpsilon * std::max(std::fabs(limit), *current);
    outcome.failures += check.failed ? 1 : 0;
    outcome.counter_checks.push_back(std::move(check));
  }
}

// A stored baseline from another machine or build can hide a regression or invent
// one: say so once, and what to do instead.
std::string machine_difference(const ComparableFile& base, const ComparableFile& current) {
  std::vector<std::string> differ;
  for (const char* name : {"CPU model", "kernel", "compiler", "build type", "build flags"}) {
    auto value = [&](const ComparableFile& file) -> std::optional<std::string> {
      for (const auto& [fact, text] : file.facts) {
        if (fact == name) return text;
      }
      return std::nullopt;
    };
    const auto b = value(base);
    const auto c = value(current);
    if (b && c && *b != *c) differ.emplace_back(name);
  }
  if (differ.empty()) return {};
  return fmt::format(
      "the files were measured on different machines or builds ({} {}): wall-time "
      "verdicts between them can hide a regression or invent one; gate two builds on one "
      "machine in pairs instead (storh-host ci --base=BASE_BUILD/plugins, A/B mode)",
      fmt::join(differ, ", "), differ.size() == 1 ? "differs" : "differ");
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
  for (const CounterTolerance& t : options.counter_tolerances) {
    if (count::find_counter(t.counter) == nullptr && !count::is_engine_counter_name(t.counter)) {
      return "--counter: " + count::unknown_counter_message(t.counter);
    }
    if (!valid_percent(t.percent)) {
      return fmt::format("--counter: {} for {} is not a percentage >= 0 (0: must not grow)",
                         t.percent, t.counter);
    }
  }
  if (!valid_percent(options.min_effect_seconds)) {
    return fmt::format("--min-effect: {} is not a duration >= 0 in seconds (e.g. 0.001)",
                       options.min_effect_seconds);
  }
  return "";
}

std::pair<double, bool> threshold_for(const GateOptions& options, const std::string& key) {
  const std::string operation = result::MetricKey::parse(key).base();
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
  if (std::string machine = machine_difference(base, current); !machine.empty()) {
    outcome.warnings.push_back(machine);
  }

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
    std::sort(keys.begin(), keys.end(),
              [](const std::string& a, const std::string& b) { return natural_less(a, b); });
  }

  std::vector<std::string> fallbacks;  // "doc.put (too few samples ...)"
  std::vector<std::string> lenient;    // "log.x (missing in current)"
  std::vector<std::string> one_sided;  // "doc.put fsync (missing in baseline)"
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
    const ComparableMetric* b = base.find(key);
    const ComparableMetric* c = current.find(key);
    if (b != nullptr && c != nullptr) check_counters(*b, *c, options, outcome, one_sided);
  }

  if (!lenient.empty()) {
    outcome.warnings.push_back(
        fmt::format("--lenient-missing: not failing on {} missing metric{}: {}", lenient.size(),
                    lenient.size() == 1 ? "" : "s", fmt::join(lenient, ", ")));
  }
  if (!one_sided.empty()) {
    outcome.warnings.push_back(
        fmt::format("counters: {} counter{} on one side only, not checked: {}", one_sided.size(),
                    one_sided.size() == 1 ? " is" : "s are", fmt::join(one_sided, ", ")));
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
