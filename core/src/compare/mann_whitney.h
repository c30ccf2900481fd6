// compare/mann_whitney.h: the two-sided Mann-Whitney U test (Wilcoxon rank-sum),
// used by compare's significance column and gate --significant.
//
// Why this test: benchmark samples are few (3-10 repeats), skewed (a slow outlier
// from another process is common) and not normal; a rank test needs no distribution
// assumption and a single outlier moves it by one rank only.
//
// How p is computed, as R's wilcox.test(x, y) does by default, so its values can be
// checked against R:
//   - exact: when both samples have fewer than kExactLimit values and there are no
//     ties, p comes from the exact distribution of U, counted with the recurrence
//     c(m, n, u) = c(m - 1, n, u - n) + c(m, n - 1, u) (the largest of all values is
//     either one of the m, beating all n, or one of the n);
//   - otherwise, the normal approximation with tie correction of the variance and a
//     continuity correction of 0.5.
// Two-sided p = min(1, 2 * P(U <= u)) when u is at most its mean n1*n2/2, else
// min(1, 2 * P(U >= u)).
//
// How many samples are needed: with n1 and n2 values and no ties, the most extreme
// arrangement (every value of one side below every value of the other) has the
// smallest possible two-sided p, 2 / C(n1 + n2, n1). With 3 per side that is
// 2/20 = 0.1, so at alpha = 0.05 no data can ever be significant; 4 per side gives
// 2/70 = 0.029. So at the default alpha 0.05 the test needs >= 4 samples per side
// (>= 5 at alpha 0.01: 2/252 = 0.008). Unequal sides can do with fewer on one side
// (3 and 5: 2/56 = 0.036); the rule applied is smallest_p_value(n1, n2) <= alpha.
// Below that the answer is "too few samples", never a p-value that cannot mean
// anything.
//
// All functions are pure and thread-safe. Values must be finite.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>

namespace storh::compare {

inline constexpr double kDefaultAlpha = 0.05;
// Exact distribution when both samples are smaller than this (R uses 50) and there
// are no ties. The count table is at most 50 * 2402 doubles per layer.
inline constexpr std::size_t kExactLimit = 50;

struct MannWhitney {
  double u = 0;        // U of the first sample: pairs (a, b) with a > b, ties count 1/2
  double p_value = 1;  // two-sided
  bool exact = false;  // exact distribution (else normal approximation)
};

// The test of "a and b come from the same distribution" against "one tends to be
// larger". nullopt when the sample sizes cannot reach `alpha` at all (see above),
// including an empty side. alpha must be in (0, 1).
std::optional<MannWhitney> mann_whitney(std::span<const double> a, std::span<const double> b,
                                        double alpha = kDefaultAlpha);

// The pieces, exposed for tests and for messages.

// U of the first sample, from mid-ranks.
double mann_whitney_u(std::span<const double> a, std::span<const double> b);

// Exact two-sided p for an integer U with sizes n1, n2 >= 1 and no ties.
double exact_p_value(std::size_t n1, std::size_t n2, double u);

// Normal approximation (tie and continuity corrected) for the pooled samples; p is 1
// when every value is equal.
double normal_p_value(std::span<const double> a, std::span<const double> b, double u);

// 2 / C(n1 + n2, n1), capped at 1: the smallest two-sided p any data gives. 1 when a
// side is empty.
double smallest_p_value(std::size_t n1, std::size_t n2);

// The smallest n such that n samples per side can reach alpha: 4 for 0.05, 5 for 0.01.
std::size_t min_samples_per_side(double alpha);

// "too few samples (need >= 4 per side)" for this alpha.
std::string too_few_samples_text(double alpha);

}  // namespace storh::compare
