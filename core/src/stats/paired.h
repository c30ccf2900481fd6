// stats/paired.h: the statistics of a paired A/B benchmark: a base build and a head
// build measured alternately (ABBA), one sample per side per pair.
//
// Why paired: the noise of a shared machine drifts (another process, CPU frequency,
// page cache). Two builds measured minutes apart see different noise, and an
// unpaired test (compare/mann_whitney.h) must treat that drift as a real difference
// or as spread. Measured back to back, base[i] and head[i] share the drift of their
// moment, and the ratio head[i] / base[i] cancels most of it. The test is on the log
// ratios d_i = ln(head_i) - ln(base_i): a slowdown of x% is a shift of ln(1 + x/100)
// whatever the metric's scale, and the ratio of two builds is what a reader asks for.
//
// Method, as R's wilcox.test(head_log, base_log, paired = TRUE, conf.int = TRUE) does
// it, so the values can be checked against R:
//   - the test is the two-sided Wilcoxon signed-rank test of "the log ratios are
//     symmetric around 0". Zero differences are dropped for the test. With fewer than
//     kSignedRankExactLimit non-zero differences and no ties among |d|, p comes from
//     the exact distribution of V (the sum of the ranks of the positive differences),
//     counted by the recurrence c(n, v) = c(n - 1, v) + c(n - 1, v - n) (rank n is
//     either negative or positive). Otherwise the normal approximation with the tie
//     correction of the variance and a continuity correction of 0.5.
//   - the estimate is Hodges-Lehmann's: the median of the n(n+1)/2 Walsh averages
//     (d_i + d_j) / 2, i <= j. The confidence interval is [W_(k), W_(M-k+1)] of the
//     sorted Walsh averages (M of them, 1-based), k from the signed-rank
//     distribution's alpha/2 quantile (R: qu <- qsignrank(alpha/2, n), at least 1).
//     Its achieved confidence is 1 - 2 P(V <= k - 1): the distribution is discrete,
//     so it is at least 1 - alpha when the pairs allow it, and less (honestly
//     reported) when they do not: 5 pairs give [min, max] at 1 - 2/32 = 0.9375.
//     With ties, zeros or many pairs, k comes from the normal approximation of the
//     same quantile, k = floor(n(n+1)/4 + 0.5 - z_{1-alpha/2} sigma), with sigma tie
//     corrected. The estimate and the interval use every pair, zeros included (the
//     interval is the test inverted at shifts d != 0, where no difference is zero);
//     R drops zeros there too, so with zero differences the two differ slightly.
//
// How many pairs are needed: the smallest two-sided p any n non-zero differences
// give is 2 / 2^n (all of one sign). At alpha 0.05 that needs n >= 6 (2/64 = 0.031;
// 5 pairs give 0.0625), at alpha 0.01 n >= 8 (2/256 = 0.0078). Below that the answer
// is "too few pairs", never a p-value that cannot mean anything.
//
// Everything here is a pure, deterministic function (no random numbers, no state,
// no I/O): the same input gives the same output on every platform and thread. The
// Walsh averages take n(n+1)/2 doubles: a few kB for the tens of pairs a run makes.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>

namespace storh::stats {

// Exact distribution of V when there are fewer non-zero differences than this (R
// uses 50) and no ties. Counts reach 2^49, still exact in a double.
inline constexpr std::size_t kSignedRankExactLimit = 50;

// The result of paired_test. Ratios are head / base: 1.10 means head is 10% slower
// (for values where larger = slower; the caller inverts higher-is-better values).
struct PairedTest {
  std::size_t pairs = 0;    // pairs used: both values finite and > 0
  std::size_t dropped = 0;  // pairs ignored: a value <= 0, not finite, or missing
                            // (the longer side's extra values, one pair each)
  double ratio = 1;         // exp(Hodges-Lehmann estimate of the log ratios)
  double median_ratio = 1;  // exp(median of the log ratios)
  double ci_low = 1;        // the confidence interval of the ratio:
  double ci_high = 1;       // exp of the Walsh-average interval of the log ratios
  double confidence = 0;    // achieved confidence of [ci_low, ci_high], in [0, 1]
                            // (0 for one pair or none: the interval means nothing)
  bool exact = false;       // p and the interval from the exact distribution
                            // (else the normal approximation)
  // Two-sided signed-rank p of "no difference". nullopt when pairs <
  // min_pairs_for(alpha) (no data could reach p < alpha) or alpha is not in (0, 1);
  // 1 when every pair has equal sides. Significant means *p_value < alpha.
  std::optional<double> p_value;
  double noise = 0;  // robust sd of the log ratios: 1.4826 * median absolute
                     // deviation; about the relative sd of head/base (0.02 = 2%)
  std::string note;  // why p_value is absent: "too few pairs (need >= 6 at alpha
                     // 0.05)" or "alpha 1.5 is not in (0, 1)"; else empty
};

// The paired test of head against base: base[i] and head[i] are one pair (same
// index). A pair is dropped (counted in `dropped`) when either value is not finite
// or <= 0, or when one side has no value at that index. alpha in (0, 1); the
// interval is at confidence 1 - alpha (see above for the achieved confidence).
// With no pairs left everything keeps its default (ratios 1, confidence 0).
PairedTest paired_test(std::span<const double> base, std::span<const double> head, double alpha);

// The pieces, exposed for tests and for other callers.

// A location shift of differences, with its interval: the Hodges-Lehmann estimate
// and the Walsh-average interval described above, on the differences as given.
struct ShiftEstimate {
  double estimate = 0;  // median of the Walsh averages
  double low = 0;       // interval bounds, low <= estimate <= high
  double high = 0;
  double confidence = 0;  // achieved confidence of [low, high]
  bool exact = false;     // k from the exact distribution (else normal)
};

// The shift of `differences` (finite values) at confidence 1 - alpha, alpha in
// (0, 1). Empty input gives all zeros.
ShiftEstimate signed_rank_shift(std::span<const double> differences, double alpha);

// V: the sum of the ranks of |d| (mid-ranks for ties) over the positive
// differences, zeros dropped first.
double signed_rank_statistic(std::span<const double> differences);

// The two-sided signed-rank p of "symmetric around 0" for finite differences,
// exact or normal as described above. 1 when no difference is non-zero.
double wilcoxon_signed_rank_p(std::span<const double> differences);

// P(V <= v) under the null for n distinct non-zero differences: 0 for v < 0, 1 for
// v >= n(n+1)/2. Exact for n < kSignedRankExactLimit (the range it is used in).
double signed_rank_cdf(std::size_t n, double v);

// The smallest n for which n pairs can reach p < alpha: 2 / 2^n < alpha. 6 at 0.05,
// 8 at 0.01. alpha in (0, 1).
std::size_t min_pairs_for(double alpha);

// "too few pairs (need >= 6 at alpha 0.05)" for this alpha.
std::string too_few_pairs_text(double alpha);

// The inverse of the standard normal CDF, p in (0, 1) (Wichura's AS 241, the method
// of R's qnorm: about 1e-16 relative error). -inf at 0, +inf at 1, NaN outside [0, 1].
double normal_quantile(double p);

// The smallest slowdown, in percent, that `pairs` pairs detect with probability
// `power` at two-sided `alpha` when the log ratios have robust sd `noise`:
//   (exp((z_{1 - alpha/2} + z_power) * noise / sqrt(0.955 * pairs)) - 1) * 100,
// 0.955 (3/pi) being the signed-rank test's efficiency relative to the t test for
// normal noise. A planning figure, not a guarantee: it assumes the noise stays as
// measured, and below ~10 pairs it is optimistic (6 pairs reach p < 0.05 only when
// all six agree in sign). +inf for 0 pairs; 0 for noise 0. alpha and power in (0, 1).
double detectable_percent(double noise, std::size_t pairs, double alpha, double power = 0.8);

}  // namespace storh::stats
