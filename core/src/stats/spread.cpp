#include "stats/spread.h"

#include <algorithm>

#include <fmt/format.h>

#include "stats/stats.h"

namespace storh::stats {
namespace {

constexpr std::string_view kRunSpreadWarning = "this run's metrics vary by";

double variation(const result::Metric& metric) {
  return metric.seconds.runs >= 2 && metric.seconds.mean > 0
             ? metric.seconds.stddev / metric.seconds.mean
             : 0;
}

bool is_floor(const std::string& operation) {
  return operation == "floor" || operation.ends_with("_floor");
}

// The median cv over the metrics of two or more samples, or nullopt when there are
// fewer than kMinMetricsForTypical of them.
std::optional<double> typical_variation(const std::vector<result::Metric>& metrics,
                                        std::size_t* counted = nullptr) {
  std::vector<double> cvs;
  for (const result::Metric& metric : metrics) {
    if (metric.seconds.runs >= 2 && metric.seconds.mean > 0) cvs.push_back(variation(metric));
  }
  if (counted != nullptr) *counted = cvs.size();
  if (cvs.size() < kMinMetricsForTypical) return std::nullopt;
  std::sort(cvs.begin(), cvs.end());
  const std::size_t n = cvs.size();
  return n % 2 == 1 ? cvs[n / 2] : (cvs[n / 2 - 1] + cvs[n / 2]) / 2;
}

// The floor of `metric`'s cell named after the operation's first word (put_many ->
// put_floor), else the engine's plain `floor`; nullptr when there is none.
const result::Metric* floor_of(const result::Metric& metric,
                               const std::vector<result::Metric>& metrics) {
  if (is_floor(metric.operation)) return nullptr;
  const std::string word = metric.operation.substr(0, metric.operation.find('_'));
  const result::Metric* plain = nullptr;
  for (const result::Metric& other : metrics) {
    if (!is_floor(other.operation) || other.engine != metric.engine ||
        other.dataset != metric.dataset || other.params != metric.params) {
      continue;
    }
    if (other.operation.starts_with(word + "_")) return &other;
    if (other.operation == "floor") plain = &other;
  }
  return plain;
}

std::string narrowing_advice(std::size_t runs) {
  return fmt::format("narrow it with {}min_time (for a step that can repeat) or a quieter machine",
                     runs < kRepeatsToNarrow
                         ? fmt::format("more repeats (--repeat={}), ", kRepeatsToNarrow)
                         : std::string());
}

}  // namespace

void judge_spread(std::vector<result::Metric>& metrics) {
  const std::optional<double> typical = typical_variation(metrics);
  std::vector<std::string> judged(metrics.size());
  for (std::size_t i = 0; i < metrics.size(); ++i) {
    const result::Metric& metric = metrics[i];
    const double cv = variation(metric);
    if (!(cv > kMaxTrustedVariation)) continue;
    const result::Metric* floor = floor_of(metric, metrics);
    std::string against;
    if (floor != nullptr && floor->seconds.runs >= 2) {
      const double floor_cv = variation(*floor);
      if (cv <= kOutlierSpreadFactor * floor_cv) continue;
      against = fmt::format(
          " and over {:g} times its in-run floor {}.{}'s {:.1f}%, so the "
          "engine's own work varies",
          kOutlierSpreadFactor, floor->engine, floor->operation, floor_cv * 100);
    } else if (typical) {
      if (cv <= kOutlierSpreadFactor * *typical) continue;
      against = fmt::format(" and over {:g} times this run's typical {:.1f}%", kOutlierSpreadFactor,
                            *typical * 100);
    }
    judged[i] =
        fmt::format("{} {:.1f}% > {:.0f}%{}: {}", kSpreadWarning, cv * 100,
                    kMaxTrustedVariation * 100, against, narrowing_advice(metric.seconds.runs));
  }
  for (std::size_t i = 0; i < metrics.size(); ++i) {
    std::vector<std::string>& warnings = metrics[i].warnings;
    std::erase_if(warnings, [](const std::string& w) { return w.starts_with(kSpreadWarning); });
    if (!judged[i].empty()) warnings.insert(warnings.begin(), std::move(judged[i]));
  }
}

std::optional<std::string> run_spread_warning(const std::vector<result::Metric>& metrics) {
  std::size_t counted = 0;
  const std::optional<double> typical = typical_variation(metrics, &counted);
  if (!typical || !(*typical > kMaxTrustedVariation)) return std::nullopt;
  std::size_t fewest = 0;
  for (const result::Metric& metric : metrics) {
    if (metric.seconds.runs >= 2 && (fewest == 0 || metric.seconds.runs < fewest)) {
      fewest = metric.seconds.runs;
    }
  }
  return fmt::format(
      "{} {:.1f}% (the median coefficient of variation of {} metrics) "
      "> {:.0f}%: that is this machine's noise, and each median may move about that much "
      "between runs; {}; metrics marked ! vary over {:g} times as much",
      kRunSpreadWarning, *typical * 100, counted, kMaxTrustedVariation * 100,
      narrowing_advice(fewest), kOutlierSpreadFactor);
}

void judge_run_spread(result::ResultFile& result) {
  judge_spread(result.metrics);
  std::vector<std::string>& warnings = result.environment.warnings;
  std::erase_if(warnings, [](const std::string& w) { return w.starts_with(kRunSpreadWarning); });
  if (std::optional<std::string> run = run_spread_warning(result.metrics)) {
    warnings.push_back(std::move(*run));
  }
}

}  // namespace storh::stats
