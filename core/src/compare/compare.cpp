#include "compare/compare.h"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "compare/differences.h"

namespace storh::compare {
namespace {

// `same` inside the noise band, and without one (too few samples to measure noise).
Verdict verdict_of(result::MetricDirection direction, double base, double next,
                   const std::optional<double>& noise_percent) {
  if (base == next || !noise_percent) return Verdict::same;
  // A zero base has no relative change (the storh delta reads 0): its direction decides.
  if (base != 0 && std::fabs(delta_percent(base, next)) <= *noise_percent) return Verdict::same;
  const bool larger = next > base;
  return (direction == result::MetricDirection::lower_is_better) == larger ? Verdict::slower
                                                                           : Verdict::faster;
}

// Keys of all files: the first file's in order, then new ones in order of appearance.
std::vector<std::string> union_of_keys(const std::vector<const ComparableFile*>& files) {
  std::vector<std::string> keys;
  std::set<std::string> seen;
  for (const ComparableFile* file : files) {
    for (const ComparableMetric& metric : file->metrics) {
      if (seen.insert(metric.key).second) keys.push_back(metric.key);
    }
  }
  return keys;
}

// Accumulates log ratios; a zero median cannot enter a geometric mean.
class GeomeanBuilder {
 public:
  void add(result::MetricDirection direction, double base, double next) {
    const std::optional<double> ratio = slowdown_ratio(direction, base, next);
    if (!ratio || !(*ratio > 0) || !std::isfinite(*ratio)) {
      ++result_.skipped;
      return;
    }
    log_sum_ += std::log(*ratio);
    ++result_.metrics;
  }
  Geomean result() const {
    Geomean g = result_;
    if (g.metrics > 0) g.ratio = std::exp(log_sum_ / static_cast<double>(g.metrics));
    return g;
  }

 private:
  Geomean result_;
  double log_sum_ = 0;
};

}  // namespace

std::string_view verdict_name(Verdict verdict) {
  switch (verdict) {
    case Verdict::slower:
      return "slower";
    case Verdict::faster:
      return "faster";
    case Verdict::same:
      return "same";
    case Verdict::added:
      return "new";
    case Verdict::missing:
      return "missing";
  }
  return "?";
}

double delta_percent(double base, double next) {
  return base == 0 ? 0.0 : (next - base) / base * 100.0;
}

std::optional<double> slowdown_ratio(result::MetricDirection direction, double base, double next) {
  const double numerator = direction == result::MetricDirection::lower_is_better ? next : base;
  const double denominator = direction == result::MetricDirection::lower_is_better ? base : next;
  if (denominator == 0) return std::nullopt;
  return numerator / denominator;
}

std::optional<double> spread_percent(const ComparableMetric& metric) {
  const std::vector<double>& values = metric.samples;
  if (values.size() >= 2) {
    const auto n = static_cast<double>(values.size());
    double sum = 0;
    for (double v : values) sum += v;
    const double mean = sum / n;
    if (!(mean > 0)) return std::nullopt;
    double squares = 0;
    for (double v : values) squares += (v - mean) * (v - mean);
    return std::sqrt(squares / (n - 1)) / mean * 100.0;
  }
  // A repeat.php summary: for a handful of runs half the range is about one stddev.
  if (values.empty() && metric.runs >= 2 && metric.median > 0) {
    return (metric.max - metric.min) / 2 / metric.median * 100.0;
  }
  return std::nullopt;
}

std::optional<double> noise_band_percent(const ComparableMetric& base,
                                         const ComparableMetric& next) {
  const std::optional<double> a = spread_percent(base), b = spread_percent(next);
  if (!a && !b) return std::nullopt;
  return std::max({kNoiseFloorPercent, a.value_or(0), b.value_or(0)});
}

Significance test_significance(const ComparableMetric& base, const ComparableMetric& next,
                               double alpha) {
  Significance s;
  // A repeat.php summary has a median of several runs but not the runs themselves.
  if (base.samples.empty() || next.samples.empty()) {
    s.text = "no samples in file (summary only)";
    return s;
  }
  s.test = mann_whitney(base.samples, next.samples, alpha);
  if (!s.test) {
    s.text = too_few_samples_text(alpha);
    return s;
  }
  s.significant = s.test->p_value < alpha;
  const std::string p =
      s.test->p_value < 0.001 ? std::string("p<0.001") : fmt::format("p={:.3f}", s.test->p_value);
  s.text = fmt::format("{} {}", p, s.significant ? "significant" : "not significant");
  return s;
}

PairComparison compare_pair(const ComparableFile& base, const ComparableFile& next,
                            const CompareOptions& options) {
  PairComparison c;
  c.base_name = base.name;
  c.new_name = next.name;
  c.base_kind = base.kind;
  c.new_kind = next.kind;
  c.alpha = options.alpha;
  c.warnings = difference_warnings({&base, &next});
  GeomeanBuilder geomean;
  for (const std::string& key : union_of_keys({&base, &next})) {
    PairRow row;
    row.key = key;
    const ComparableMetric* b = base.find(key);
    const ComparableMetric* n = next.find(key);
    if (b != nullptr) row.base = *b;
    if (n != nullptr) row.next = *n;
    if (b == nullptr) {
      row.status = RowStatus::only_new;
      row.verdict = Verdict::added;
    } else if (n == nullptr) {
      row.status = RowStatus::only_base;
      row.verdict = Verdict::missing;
    } else {
      row.delta_percent = delta_percent(b->median, n->median);
      row.noise_percent = noise_band_percent(*b, *n);
      row.verdict = verdict_of(b->direction, b->median, n->median, row.noise_percent);
      row.significance = test_significance(*b, *n, options.alpha);
      geomean.add(b->direction, b->median, n->median);
    }
    c.rows.push_back(std::move(row));
  }
  c.geomean = geomean.result();
  return c;
}

MatrixComparison compare_matrix(const std::vector<const ComparableFile*>& files) {
  MatrixComparison m;
  for (const ComparableFile* file : files) {
    m.names.push_back(file->name);
    m.kinds.push_back(file->kind);
  }
  m.warnings = difference_warnings(files);
  std::vector<GeomeanBuilder> geomeans(files.size());
  for (const std::string& key : union_of_keys(files)) {
    MatrixRow row;
    row.key = key;
    const ComparableMetric* first = files.front()->find(key);
    bool described = false;
    for (std::size_t i = 0; i < files.size(); ++i) {
      const ComparableMetric* metric = files[i]->find(key);
      MatrixCell cell;
      if (metric != nullptr) {
        if (!described) {
          row.unit = metric->unit;
          row.direction = metric->direction;
          described = true;
        }
        cell.median = metric->median;
        if (i > 0 && first != nullptr) {
          if (first->median != 0) cell.ratio = metric->median / first->median;
          geomeans[i].add(first->direction, first->median, metric->median);
        }
      }
      row.cells.push_back(cell);
    }
    m.rows.push_back(std::move(row));
  }
  for (std::size_t i = 0; i < files.size(); ++i) {
    m.geomeans.push_back(i == 0 ? Geomean{} : geomeans[i].result());
  }
  return m;
}

}  // namespace storh::compare
