#include "stats/median_interval.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "stats/paired.h"
#include "stats/stats.h"

namespace storh::stats {
namespace {

// P(B = j) for B ~ Binomial(n, 1/2), in logs so that large n does not underflow to
// nonsense: terms far in the tail become 0, which is what they are to a double.
double binomial_half_pmf(std::size_t n, std::size_t j) {
  const double log_p =
      std::lgamma(static_cast<double>(n) + 1) - std::lgamma(static_cast<double>(j) + 1) -
      std::lgamma(static_cast<double>(n - j) + 1) - static_cast<double>(n) * std::log(2.0);
  return std::exp(log_p);
}

}  // namespace

std::optional<MedianInterval> median_interval(std::span<const double> values, double alpha) {
  if (!(alpha > 0 && alpha < 1)) return std::nullopt;
  const std::size_t n = values.size();
  if (n < min_pairs_for(alpha)) return std::nullopt;
  std::vector<double> sorted(values.begin(), values.end());
  if (!std::all_of(sorted.begin(), sorted.end(), [](double v) { return std::isfinite(v); })) {
    return std::nullopt;
  }
  std::sort(sorted.begin(), sorted.end());
  // k - 1 = the largest j with P(B <= j) <= alpha / 2; k >= 1 since n >= min_pairs_for.
  double below = 0;  // P(B <= k - 1)
  std::size_t k = 0;
  while (k < n / 2) {
    const double next = below + binomial_half_pmf(n, k);
    if (next > alpha / 2) break;
    below = next;
    ++k;
  }
  if (k == 0) return std::nullopt;
  MedianInterval interval;
  interval.median = median_of_sorted(sorted);
  interval.low = sorted[k - 1];
  interval.high = sorted[n - k];
  interval.confidence = 1 - 2 * below;
  return interval;
}

double relative_half_width(const MedianInterval& interval) {
  if (interval.median == 0) return std::numeric_limits<double>::infinity();
  return std::max(interval.median - interval.low, interval.high - interval.median) /
         std::abs(interval.median);
}

bool median_is_stable(std::span<const double> values, double until) {
  const std::optional<MedianInterval> interval = median_interval(values, kRepeatAlpha);
  return interval && relative_half_width(*interval) <= until;
}

}  // namespace storh::stats
