// stats/median_interval.h: a distribution-free confidence interval for the median of
// one sample, and the stopping rule of adaptive repeats (suite.h's RepeatUntil).
//
// Method (the sign test inverted; Conover, "Practical Nonparametric Statistics", 3.2):
// with the n values sorted, x_(1) <= ... <= x_(n), the interval is [x_(k), x_(n-k+1)]
// where k is the largest integer with P(B <= k - 1) <= alpha / 2, B ~ Binomial(n, 1/2).
// Whatever the distribution (continuous), the median lies in it with probability
// 1 - 2 P(B <= k - 1) >= 1 - alpha: the achieved confidence is reported. It exists only
// when P(B = 0) = 2^-n <= alpha / 2: at alpha 0.05 that is n >= 6 (1 - 2/64 = 0.969;
// 5 values give 1 - 2/32 = 0.9375 < 0.95), the same bound as a paired test's
// (paired.h, min_pairs_for).
//
// Pure and thread-safe.
#pragma once

#include <cstddef>
#include <optional>
#include <span>

namespace storh::stats {

struct MedianInterval {
  double median = 0;      // median_of_sorted (stats.h)
  double low = 0;         // x_(k)
  double high = 0;        // x_(n-k+1)
  double confidence = 0;  // achieved, 1 - 2 P(B <= k - 1), in [1 - alpha, 1]
};

// nullopt when there are too few values for 1 - alpha (min_pairs_for(alpha)), alpha is
// not in (0, 1), or a value is not finite.
std::optional<MedianInterval> median_interval(std::span<const double> values, double alpha);

// The interval's half-width relative to the median, its wider side:
// max(median - low, high - median) / |median|; +inf for a median of 0.
double relative_half_width(const MedianInterval& interval);

// The stopping rule: true when the 95% interval of the median exists and lies within
// median x (1 +- until), i.e. relative_half_width <= until. Never true below 6 values.
bool median_is_stable(std::span<const double> values, double until);

// The confidence adaptive repeats ask for.
inline constexpr double kRepeatAlpha = 0.05;

}  // namespace storh::stats
