// compare/ratio_interval.h: a confidence interval for new / base of two independent
// samples (the repeats of one metric in two result files), the interval that goes
// with compare's Mann-Whitney test.
//
// Method (Bauer 1972; R's wilcox.test(log(new), log(base), conf.int = TRUE)): on the
// logs, the m * n differences d = log(new_j) - log(base_i) sorted; the interval of
// the location shift is [d_(k), d_(mn-k+1)], where k - 1 is the largest U whose
// lower-tail probability is at most alpha / 2 under the null, so that the interval is
// the set of shifts the two-sided test at alpha does not reject. Exponentiated, it is
// an interval for the ratio of the two distributions' scales: times that all took
// 10% longer give an interval around 1.10. The estimate is exp of the median of the
// d (Hodges-Lehmann).
//
// k: from the exact distribution of U when both sides have fewer than kExactLimit
// values, ties or not (R switches to the normal approximation with ties, so there
// the two can differ), else the normal approximation
// k = floor(mn/2 - z_{1-alpha/2} sqrt(mn(m+n+1)/12)) with 1 - alpha reported (R finds
// the normal interval by root finding). Without ties and below kExactLimit values per
// side the interval is R's. The exact distribution is discrete, so the achieved
// confidence, 1 - 2 P(U <= k - 1), is reported.
//
// Pure and thread-safe.
#pragma once

#include <optional>
#include <span>

namespace storh::compare {

struct RatioInterval {
  double estimate = 1;  // exp(median of the log differences)
  double low = 1;       // interval of new / base, low <= high
  double high = 1;
  double confidence = 0;  // achieved, in [1 - alpha, 1]
};

// nullopt when a side has a value that is not finite and > 0, or when the sample
// sizes cannot reach alpha at all (3 and 3 at 0.05: smallest_p_value, mann_whitney.h).
std::optional<RatioInterval> ratio_interval(std::span<const double> base,
                                            std::span<const double> next, double alpha);

}  // namespace storh::compare
