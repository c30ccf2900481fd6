#include "stats/spread.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <optional>

#include <fmt/format.h>

#include "stats/stats.h"

namespace storh::stats {
namespace {

constexpr std::string_view kRunSpreadWarning = "this run's metrics vary by";
constexpr std::string_view kFloorSpreadWarning = "the in-run floors vary by";
constexpr std::string_view kOutlierWarning = "one repeat far from the rest";

double variation(const result::Metric& metric) {
  return metric.seconds.runs >= 2 && metric.seconds.mean > 0
             ? metric.seconds.stddev / metric.seconds.mean
             : 0;
}

// stddev / mean of `values` (two or more).
double variation_of(const std::vector<double>& values) {
  const result::Summary summary = summarize(values);
  return summary.mean > 0 ? summary.stddev / summary.mean : 0;
}

bool is_floor(const std::string& operation) {
  return operation == "floor" || operation.ends_with("_floor");
}

bool same_cell(const result::Metric& a, const result::Metric& b) {
  return a.engine == b.engine && a.dataset == b.dataset && a.params == b.params;
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
  return median_of(std::move(cvs));
}

// The yardstick floor of `metric` (spread.h): the cell's floor named after the
// operation's first word (put_many -> put_floor), else the plain `floor`, else the
// floor nearest in median within kNearestFloorRatio; nullptr when there is none.
const result::Metric* floor_of(const result::Metric& metric,
                               const std::vector<result::Metric>& metrics) {
  if (is_floor(metric.operation)) return nullptr;
  const std::string word = metric.operation.substr(0, metric.operation.find('_'));
  const result::Metric* plain = nullptr;
  const result::Metric* nearest = nullptr;
  double nearest_distance = std::log(kNearestFloorRatio);
  for (const result::Metric& other : metrics) {
    if (!is_floor(other.operation) || !same_cell(other, metric) || other.seconds.runs < 2) {
      continue;
    }
    if (other.operation.starts_with(word + "_")) return &other;
    if (other.operation == "floor") plain = &other;
    if (other.seconds.median > 0 && metric.seconds.median > 0) {
      const double distance = std::abs(std::log(other.seconds.median / metric.seconds.median));
      if (distance <= nearest_distance) {
        nearest_distance = distance;
        nearest = &other;
      }
    }
  }
  return plain != nullptr ? plain : nearest;
}

// The sample farthest from the median, as a multiple of the median, when leaving it
// out brings the metric's cv within `bar`; nullopt otherwise (or too few samples).
std::optional<double> lone_outlier(const result::Metric& metric, double bar) {
  if (metric.samples.size() < kMinSamplesForOutlier || !(metric.seconds.median > 0)) {
    return std::nullopt;
  }
  std::vector<double> seconds;
  for (const result::Sample& sample : metric.samples) seconds.push_back(sample.seconds);
  const double median = metric.seconds.median;
  const auto farthest = std::max_element(seconds.begin(), seconds.end(), [&](double a, double b) {
    return std::abs(a - median) < std::abs(b - median);
  });
  const double ratio = *farthest / median;
  seconds.erase(farthest);
  if (variation_of(seconds) > bar) return std::nullopt;
  return ratio;
}

std::string narrowing_advice(std::size_t runs, const NarrowingAdvice& advice) {
  return fmt::format("narrow it with {}{} or a quieter machine",
                     runs < kRepeatsToNarrow ? fmt::format("more repeats ({}={}), ",
                                                           advice.repeat_flag, kRepeatsToNarrow)
                                             : std::string(),
                     advice.min_time);
}

// The fewest samples of a metric that has two or more.
std::size_t fewest_runs(const std::vector<result::Metric>& metrics) {
  std::size_t fewest = 0;
  for (const result::Metric& metric : metrics) {
    if (metric.seconds.runs >= 2 && (fewest == 0 || metric.seconds.runs < fewest)) {
      fewest = metric.seconds.runs;
    }
  }
  return fewest;
}

struct Outlier {
  std::string metric;
  double ratio = 0;
};

// The flag of each metric (empty: trusted), and the outliers judged not to be spread.
struct Judgement {
  std::vector<std::string> flags;
  std::vector<Outlier> outliers;
};

Judgement judge(const std::vector<result::Metric>& metrics, const NarrowingAdvice& advice) {
  const std::optional<double> typical = typical_variation(metrics);
  Judgement judgement{std::vector<std::string>(metrics.size()), {}};
  for (std::size_t i = 0; i < metrics.size(); ++i) {
    const result::Metric& metric = metrics[i];
    const double cv = variation(metric);
    if (!(cv > kMaxTrustedVariation) || is_floor(metric.operation)) continue;
    double bar = kMaxTrustedVariation;
    std::string against;
    std::string yardstick;  // what varied, for a spread it would excuse
    if (const result::Metric* floor = floor_of(metric, metrics)) {
      const double floor_cv = variation(*floor);
      bar = std::max(bar, kOutlierSpreadFactor * floor_cv);
      against = fmt::format(
          " and over {:g} times its in-run floor {}.{}'s {:.1f}%, so the "
          "engine's own work varies",
          kOutlierSpreadFactor, floor->engine, floor->operation, floor_cv * 100);
      yardstick = fmt::format("its in-run floor {}.{} varies {:.1f}%", floor->engine,
                              floor->operation, floor_cv * 100);
    } else if (typical) {
      bar = std::max(bar, kOutlierSpreadFactor * *typical);
      against = fmt::format(" and over {:g} times this run's typical {:.1f}%", kOutlierSpreadFactor,
                            *typical * 100);
      yardstick = fmt::format("this run's metrics vary {:.1f}%", *typical * 100);
    }
    // A yardstick that varies this much would excuse any spread: past
    // kMaxExcusedVariation a median is not to be trusted, whoever is to blame.
    const double excused = bar;
    bar = std::min(bar, kMaxExcusedVariation);
    if (cv <= bar) continue;
    if (const std::optional<double> ratio = lone_outlier(metric, bar)) {
      judgement.outliers.push_back({metric.engine + "." + metric.operation, *ratio});
      continue;
    }
    if (cv <= excused) {
      against = fmt::format(
          " and over {:.0f}%, which no yardstick excuses ({} too, so part of it may be the "
          "machine's; either way its median may move that much between runs)",
          kMaxExcusedVariation * 100, yardstick);
    }
    judgement.flags[i] = fmt::format("{} {:.1f}% > {:.0f}%{}: {}", kSpreadWarning, cv * 100,
                                     kMaxTrustedVariation * 100, against,
                                     narrowing_advice(metric.seconds.runs, advice));
  }
  return judgement;
}

std::optional<std::string> typical_warning(const std::vector<result::Metric>& metrics,
                                           const NarrowingAdvice& advice) {
  std::size_t counted = 0;
  const std::optional<double> typical = typical_variation(metrics, &counted);
  if (!typical || !(*typical > kMaxTrustedVariation)) return std::nullopt;
  return fmt::format(
      "{} {:.1f}% (the median coefficient of variation of {} metrics) "
      "> {:.0f}%: that is this machine's noise, and each median may move about that much "
      "between runs; {}; metrics marked ! vary over {:g} times as much",
      kRunSpreadWarning, *typical * 100, counted, kMaxTrustedVariation * 100,
      narrowing_advice(fewest_runs(metrics), advice), kOutlierSpreadFactor);
}

std::optional<std::string> floor_warning(const std::vector<result::Metric>& metrics) {
  const result::Metric* widest = nullptr;
  std::size_t floors = 0;
  std::size_t wide = 0;
  for (const result::Metric& metric : metrics) {
    if (!is_floor(metric.operation) || metric.seconds.runs < 2) continue;
    ++floors;
    if (!(variation(metric) > kMaxTrustedVariation)) continue;
    ++wide;
    if (widest == nullptr || variation(metric) > variation(*widest)) widest = &metric;
  }
  if (widest == nullptr) return std::nullopt;
  const std::size_t runs = fewest_runs(metrics);
  return fmt::format(
      "{} up to {:.1f}% ({}.{}; {} of {} floors over {:.0f}%): a floor makes only the calls its "
      "operation must make (fsync, stat, read), so that is how much this machine's own calls "
      "vary between repeats; an operation measured against a floor is marked ! only beyond {:g} "
      "times the floor's spread; {}a quieter machine and disk narrow it",
      kFloorSpreadWarning, variation(*widest) * 100, widest->engine, widest->operation, wide,
      floors, kMaxTrustedVariation * 100, kOutlierSpreadFactor,
      runs < kRepeatsToNarrow ? fmt::format("more repeats (--repeat={}) or ", kRepeatsToNarrow)
                              : std::string());
}

std::optional<std::string> outlier_warning(const std::vector<Outlier>& outliers) {
  if (outliers.empty()) return std::nullopt;
  const auto farthest =
      std::max_element(outliers.begin(), outliers.end(), [](const Outlier& a, const Outlier& b) {
        return std::abs(std::log(a.ratio)) < std::abs(std::log(b.ratio));
      });
  return fmt::format(
      "{} in {} metric(s) (the farthest: {}, {:.2f}x its median): the rest of each metric's "
      "repeats agree, so this is a pause of the machine, not the engine's work, and the "
      "median shown barely moves with it; they are not marked !; a metric that has one again "
      "in the next run is worth a look",
      kOutlierWarning, outliers.size(), farthest->metric, farthest->ratio);
}

}  // namespace

void judge_run_spread(result::ResultFile& result, const NarrowingAdvice& advice) {
  Judgement judgement = judge(result.metrics, advice);
  for (std::size_t i = 0; i < result.metrics.size(); ++i) {
    std::vector<std::string>& warnings = result.metrics[i].warnings;
    std::erase_if(warnings, [](const std::string& w) { return w.starts_with(kSpreadWarning); });
    if (!judgement.flags[i].empty()) {
      warnings.insert(warnings.begin(), std::move(judgement.flags[i]));
    }
  }
  std::vector<std::string>& warnings = result.environment.warnings;
  std::erase_if(warnings, [](const std::string& w) {
    return w.starts_with(kRunSpreadWarning) || w.starts_with(kFloorSpreadWarning) ||
           w.starts_with(kOutlierWarning);
  });
  for (std::optional<std::string> warning :
       {typical_warning(result.metrics, advice), floor_warning(result.metrics),
        outlier_warning(judgement.outliers)}) {
    if (warning) warnings.push_back(std::move(*warning));
  }
}

}  // namespace storh::stats
