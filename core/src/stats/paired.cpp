#include "stats/paired.h"

#include <algorithm>
#include <array>
#include <cfloat>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include <fmt/format.h>

#include "stats/stats.h"

namespace storh::stats {
namespace {

// 1.4826 = 1 / Phi^-1(3/4): makes the MAD of normal data estimate its sd.
constexpr double kMadToSd = 1.4826;
// 3 / pi: asymptotic efficiency of the signed-rank test relative to the t test.
constexpr double kSignedRankEfficiency = 0.955;

using Polynomial = std::array<double, 8>;

// The polynomial with these coefficients (highest power first) at x.
double horner(const Polynomial& coefficients, double x) {
  double sum = 0;
  for (double c : coefficients) sum = sum * x + c;
  return sum;
}

double normal_cdf(double x) {
  return 0.5 * std::erfc(-x / std::sqrt(2.0));
}

// |d| of the given differences, ranked with mid-ranks.
struct AbsoluteRanks {
  std::vector<double> ranks;  // ranks[i] is the rank of |d[i]|
  bool ties = false;
  double tie_term = 0;  // sum over tie groups of t^3 - t
};

AbsoluteRanks rank_absolute(std::span<const double> d) {
  AbsoluteRanks result;
  result.ranks.assign(d.size(), 0.0);
  std::vector<std::size_t> order(d.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return std::fabs(d[a]) < std::fabs(d[b]); });
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    while (j < order.size() && std::fabs(d[order[j]]) == std::fabs(d[order[i]])) ++j;
    const double mid_rank = static_cast<double>(i + 1 + j) / 2.0;  // ranks i+1 .. j
    for (std::size_t k = i; k < j; ++k) result.ranks[order[k]] = mid_rank;
    const auto t = static_cast<double>(j - i);
    result.tie_term += t * t * t - t;
    result.ties = result.ties || j - i > 1;
    i = j;
  }
  return result;
}

// V: the sum of the ranks of the positive differences.
double positive_rank_sum(std::span<const double> d, const AbsoluteRanks& ranked) {
  double v = 0;
  for (std::size_t i = 0; i < d.size(); ++i) {
    if (d[i] > 0) v += ranked.ranks[i];
  }
  return v;
}

std::vector<double> non_zero(std::span<const double> d) {
  std::vector<double> kept;
  for (double value : d) {
    if (value != 0) kept.push_back(value);
  }
  return kept;
}

// counts[v] = number of the 2^n sign assignments of ranks 1..n whose positive ranks
// sum to v, by the recurrence in the header (one pass per rank, from the top down so
// each rank is used at most once).
std::vector<double> signed_rank_counts(std::size_t n) {
  const std::size_t max_sum = n * (n + 1) / 2;
  std::vector<double> counts(max_sum + 1, 0.0);
  counts[0] = 1;
  for (std::size_t rank = 1; rank <= n; ++rank) {
    for (std::size_t v = rank * (rank + 1) / 2; v >= rank; --v) counts[v] += counts[v - rank];
  }
  return counts;
}

// R's qsignrank(p, n) for p <= 0.5: the smallest q with P(V <= q) >= p, with R's
// 10 * DBL_EPSILON fuzz so that a p equal to a CDF step lands on that step.
std::size_t signed_rank_lower_quantile(const std::vector<double>& counts, std::size_t n, double p) {
  const double total = std::ldexp(1.0, static_cast<int>(n));
  const double target = p - 10 * DBL_EPSILON;
  double cumulative = 0;
  for (std::size_t q = 0; q < counts.size(); ++q) {
    cumulative += counts[q] / total;
    if (cumulative >= target) return q;
  }
  return counts.size() - 1;
}

double variance_of_v(double n, double tie_term) {
  return n * (n + 1) * (2 * n + 1) / 24 - tie_term / 48;
}

}  // namespace

double signed_rank_statistic(std::span<const double> differences) {
  const std::vector<double> d = non_zero(differences);
  return positive_rank_sum(d, rank_absolute(d));
}

double signed_rank_cdf(std::size_t n, double v) {
  if (v < 0) return 0;
  const std::vector<double> counts = signed_rank_counts(n);
  const auto last = std::min(counts.size() - 1, static_cast<std::size_t>(std::floor(v)));
  double below = 0;
  for (std::size_t k = 0; k <= last; ++k) below += counts[k];
  return below / std::ldexp(1.0, static_cast<int>(n));
}

double wilcoxon_signed_rank_p(std::span<const double> differences) {
  const std::vector<double> d = non_zero(differences);
  if (d.empty()) return 1.0;
  const bool zeros = d.size() != differences.size();
  const AbsoluteRanks ranked = rank_absolute(d);
  const double v = positive_rank_sum(d, ranked);
  const auto n = static_cast<double>(d.size());
  const double mean = n * (n + 1) / 4;
  if (d.size() < kSignedRankExactLimit && !ranked.ties && !zeros) {
    const std::vector<double> counts = signed_rank_counts(d.size());
    const auto observed = static_cast<std::size_t>(std::llround(v));
    // The tail on the side of the observation, summed from counts so that a tiny
    // tail keeps its precision (1 - cdf would lose it).
    double tail = 0;
    if (v > mean) {
      for (std::size_t k = observed; k < counts.size(); ++k) tail += counts[k];
    } else {
      for (std::size_t k = 0; k <= observed; ++k) tail += counts[k];
    }
    return std::min(1.0, 2.0 * tail / std::ldexp(1.0, static_cast<int>(d.size())));
  }
  const double sigma = std::sqrt(variance_of_v(n, ranked.tie_term));
  const double difference = v - mean;
  const double corrected = difference - (difference > 0 ? 0.5 : difference < 0 ? -0.5 : 0.0);
  return std::min(1.0, std::erfc(std::fabs(corrected / sigma) / std::sqrt(2.0)));
}

ShiftEstimate signed_rank_shift(std::span<const double> differences, double alpha) {
  ShiftEstimate shift;
  const std::size_t n = differences.size();
  if (n == 0) return shift;
  std::vector<double> walsh;
  walsh.reserve(n * (n + 1) / 2);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = i; j < n; ++j) walsh.push_back((differences[i] + differences[j]) / 2);
  }
  std::sort(walsh.begin(), walsh.end());
  const std::size_t m = walsh.size();
  shift.estimate = median_of_sorted(walsh);

  const AbsoluteRanks ranked = rank_absolute(differences);
  const bool zeros = std::find(differences.begin(), differences.end(), 0.0) != differences.end();
  shift.exact = n < kSignedRankExactLimit && !ranked.ties && !zeros;
  // k is 1-based: the interval is [W_(k), W_(m - k + 1)].
  std::size_t k = 1;
  if (shift.exact) {
    const std::vector<double> counts = signed_rank_counts(n);
    k = std::max<std::size_t>(1, signed_rank_lower_quantile(counts, n, alpha / 2));
    double below = 0;  // P(V <= k - 1) * 2^n
    for (std::size_t v = 0; v < k; ++v) below += counts[v];
    shift.confidence = 1 - 2 * below / std::ldexp(1.0, static_cast<int>(n));
  } else {
    const auto count = static_cast<double>(n);
    const double mean = count * (count + 1) / 4;
    const double sigma = std::sqrt(variance_of_v(count, ranked.tie_term));
    const double z = normal_quantile(1 - alpha / 2);
    const double raw = std::floor(mean + 0.5 - z * sigma);
    k = raw < 1 ? 1 : std::min(static_cast<std::size_t>(raw), (m + 1) / 2);
    shift.confidence = 1 - 2 * normal_cdf((static_cast<double>(k) - 0.5 - mean) / sigma);
  }
  shift.confidence = std::clamp(shift.confidence, 0.0, 1.0);
  shift.low = walsh[k - 1];
  shift.high = walsh[m - k];
  return shift;
}

std::size_t min_pairs_for(double alpha) {
  std::size_t n = 1;
  while (2.0 / std::ldexp(1.0, static_cast<int>(n)) >= alpha && n < 1000) ++n;
  return n;
}

std::string too_few_pairs_text(double alpha) {
  return fmt::format("too few pairs (need >= {} at alpha {})", min_pairs_for(alpha), alpha);
}

PairedTest paired_test(std::span<const double> base, std::span<const double> head, double alpha) {
  PairedTest test;
  std::vector<double> logs;
  const std::size_t total = std::max(base.size(), head.size());
  for (std::size_t i = 0; i < total; ++i) {
    const bool usable = i < base.size() && i < head.size() && std::isfinite(base[i]) &&
                        std::isfinite(head[i]) && base[i] > 0 && head[i] > 0;
    // ln(head) - ln(base) rather than ln(head / base): swapping the sides then negates
    // every difference exactly, so the ratios invert exactly.
    if (usable) logs.push_back(std::log(head[i]) - std::log(base[i]));
  }
  test.pairs = logs.size();
  test.dropped = total - logs.size();
  if (!(alpha > 0 && alpha < 1)) {
    test.note = fmt::format("alpha {} is not in (0, 1)", alpha);
    return test;
  }
  if (logs.empty()) {
    test.note = too_few_pairs_text(alpha);
    return test;
  }

  const ShiftEstimate shift = signed_rank_shift(logs, alpha);
  test.ratio = std::exp(shift.estimate);
  test.ci_low = std::exp(shift.low);
  test.ci_high = std::exp(shift.high);
  test.confidence = shift.confidence;
  test.exact = shift.exact;

  const double median = median_of(logs);
  test.median_ratio = std::exp(median);
  std::vector<double> deviations;
  deviations.reserve(logs.size());
  for (double d : logs) deviations.push_back(std::fabs(d - median));
  test.noise = kMadToSd * median_of(std::move(deviations));

  if (test.pairs < min_pairs_for(alpha)) {
    test.note = too_few_pairs_text(alpha);
  } else {
    test.p_value = wilcoxon_signed_rank_p(logs);
  }
  return test;
}

double normal_quantile(double p) {
  if (std::isnan(p) || p < 0 || p > 1) return std::numeric_limits<double>::quiet_NaN();
  if (p == 0) return -std::numeric_limits<double>::infinity();
  if (p == 1) return std::numeric_limits<double>::infinity();
  // Wichura (1988), Algorithm AS 241 (PPND16): a rational approximation a(r) / b(r) on
  // each of three ranges of p, coefficients highest power first, as published (and as
  // in Python's statistics.NormalDist.inv_cdf).
  static constexpr Polynomial kCentralA = {
      2509.0809287301226727, 33430.575583588128105, 67265.770927008700853, 45921.953931549871457,
      13731.693765509461125, 1971.5909503065514427, 133.14166789178437745, 3.387132872796366608};
  static constexpr Polynomial kCentralB = {
      5226.4952788528545610, 28729.085735721942674, 39307.89580009271061,  21213.794301586595867,
      5394.1960214247511077, 687.1870074920579083,  42.313330701600911252, 1.0};
  static constexpr Polynomial kTailA = {7.7454501427834140764e-4, 0.0227238449892691845833,
                                        0.24178072517745061177,   1.27045825245236838258,
                                        3.64784832476320460504,   5.7694972214606914055,
                                        4.6303378461565452959,    1.42343711074968357734};
  static constexpr Polynomial kTailB = {1.05075007164441684324e-9, 5.475938084995344946e-4,
                                        0.0151986665636164571966,  0.14810397642748007459,
                                        0.68976733498510000455,    1.6763848301838038494,
                                        2.05319162663775882187,    1.0};
  static constexpr Polynomial kFarA = {2.01033439929228813265e-7, 2.71155556874348757815e-5,
                                       0.0012426609473880784386,  0.026532189526576123093,
                                       0.29656057182850489123,    1.7848265399172913358,
                                       5.4637849111641143699,     6.6579046435011037772};
  static constexpr Polynomial kFarB = {2.04426310338993978564e-15, 1.4215117583164458887e-7,
                                       1.8463183175100546818e-5,   7.868691311456132591e-4,
                                       0.0148753612908506148525,   0.13692988092273580531,
                                       0.59983220655588793769,     1.0};
  const double q = p - 0.5;
  if (std::fabs(q) <= 0.425) {
    const double r = 0.180625 - q * q;
    return q * horner(kCentralA, r) / horner(kCentralB, r);
  }
  const double r = std::sqrt(-std::log(q < 0 ? p : 1 - p));
  const double value = r <= 5  // min(p, 1 - p) >= exp(-25) ~ 1.4e-11
                           ? horner(kTailA, r - 1.6) / horner(kTailB, r - 1.6)
                           : horner(kFarA, r - 5) / horner(kFarB, r - 5);
  return q < 0 ? -value : value;
}

double detectable_percent(double noise, std::size_t pairs, double alpha, double power) {
  if (pairs == 0) return std::numeric_limits<double>::infinity();
  const double z = normal_quantile(1 - alpha / 2) + normal_quantile(power);
  const double shift = z * noise / std::sqrt(kSignedRankEfficiency * static_cast<double>(pairs));
  return std::expm1(shift) * 100;
}

}  // namespace storh::stats
