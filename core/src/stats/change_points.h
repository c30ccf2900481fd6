// stats/change_points.h: where a metric's history changed: E-divisive means
// change-point detection (Matteson and James, "A Nonparametric Approach for Multiple
// Change Point Analysis of Multivariate Data", JASA 2014, with alpha = 1), with the
// significance test and the re-check of Hunter (Fleming et al., "Hunter: Using Change
// Point Detection to Hunt for Performance Regressions", ICPE 2023; now Apache Otava).
//
// Divergence: for a segment split into X (before) and Y (after), with m and n points,
//   E(X, Y) = 2/(mn) sum|x_i - y_j| - 1/C(m,2) sum_{i<k}|x_i - x_k|
//                                     - 1/C(n,2) sum_{j<l}|y_j - y_l|
//   Q(X, Y) = mn / (m + n) * E(X, Y),
// the energy distance between the two sides, scaled so that longer sides weigh more.
// The candidate of a segment is the split with the largest Q (ties: the earliest),
// each side at least `min_segment` points.
//
// Significance, as Hunter does it instead of Matteson and James's permutation test
// (which needs a random source and hundreds of permutations, and gives a different
// answer each run): Welch's two-sample t-test of the two sides, two-sided p. A
// candidate with p < max_p_value is a change point, and both sides are searched again
// (binary segmentation). Afterwards every change point is tested again against the
// segments between its neighbours, and the weakest one above max_p_value is dropped
// until all pass: a split found early in a long segment can lose its support once
// the later splits are known.
//
// Pure functions of their input: deterministic, no state, thread-safe.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace storh::stats {

struct ChangePointOptions {
  double max_p_value = 0.001;   // Hunter's default; larger finds more, and more noise
  std::size_t min_segment = 3;  // points on each side of a split, at least 2
};

struct ChangePoint {
  std::size_t index = 0;                       // the first point after the change
  double p_value = 1;                          // Welch's t-test between the neighbouring segments
  double mean_before = 0, mean_after = 0;      // of those segments
  double median_before = 0, median_after = 0;  // of those segments
};

// The change points of `series` (finite values, in time order), by index. Fewer than
// 2 * min_segment points have none.
std::vector<ChangePoint> find_change_points(std::span<const double> series,
                                            const ChangePointOptions& options = {});

// The pieces, for tests and messages.

// Q of the split of `segment` before index `split` (0 < split < size).
double divisive_q(std::span<const double> segment, std::size_t split);

// Welch's two-sided t-test p of "same mean"; 1 when either side has fewer than 2
// values or both have no spread and equal means, 0 when both have no spread and the
// means differ.
double welch_p_value(std::span<const double> a, std::span<const double> b);

// The regularized incomplete beta function I_x(a, b), a, b > 0, x in [0, 1]
// (continued fraction, Lentz's method).
double incomplete_beta(double a, double b, double x);

}  // namespace storh::stats
