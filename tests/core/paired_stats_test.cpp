// The paired A/B statistics (stats/paired.h) against known values. Sources of the
// expected numbers:
//   [R]    R's ?wilcox.test paired example (Hollander & Wolfe 1973, p. 29):
//          x = 1.83 0.50 1.62 2.48 1.68 1.88 1.55 3.06 1.30,
//          y = 0.878 0.647 0.598 2.05 1.06 1.29 1.06 3.14 1.29;
//          wilcox.test(x, y, paired = TRUE) prints V = 40, p-value = 0.03906; with
//          conf.int = TRUE the interval 0.0100 0.7860 and (pseudo)median 0.4600.
//   [hand] computed by hand in the comment next to the check.
//   [enum] brute-force enumeration of all 2^n sign assignments, in this file.
//   [py]   Python 3.11's statistics.NormalDist().inv_cdf (the same AS 241) and math.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <vector>

#include "stats/paired.h"

using namespace storh::stats;

namespace {

const std::vector<double> kHollanderX = {1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30};
const std::vector<double> kHollanderY = {0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29};

std::vector<double> differences(const std::vector<double>& x, const std::vector<double>& y) {
  std::vector<double> d;
  for (std::size_t i = 0; i < x.size(); ++i) d.push_back(x[i] - y[i]);
  return d;
}

// P(V <= v) by visiting every subset of the ranks 1..n that could be the positive ones.
double enumerated_cdf(std::size_t n, double v) {
  double below = 0;
  for (std::size_t mask = 0; mask < (std::size_t{1} << n); ++mask) {
    double sum = 0;
    for (std::size_t rank = 1; rank <= n; ++rank) {
      if (mask & (std::size_t{1} << (rank - 1))) sum += static_cast<double>(rank);
    }
    below += sum <= v ? 1 : 0;
  }
  return below / static_cast<double>(std::size_t{1} << n);
}

// Twelve ABBA pairs of a ~1 ms operation: base drifts with the machine, head is base
// times 1.10 times a per-pair wobble of `noise_scale` percent.
struct Pairs {
  std::vector<double> base, head;
};
Pairs shifted_pairs(double shift, double noise_scale) {
  const std::vector<double> drift = {1.00, 1.03, 0.98, 1.07, 1.01, 0.97,
                                     1.05, 1.02, 0.99, 1.04, 1.00, 0.96};
  const std::vector<double> wobble = {0.4, -0.7, 0.1, 0.9,  -0.3, -0.5,
                                      0.6, -0.1, 0.2, -0.9, 0.8,  -0.4};
  Pairs pairs;
  for (std::size_t i = 0; i < drift.size(); ++i) {
    pairs.base.push_back(1e-3 * drift[i]);
    pairs.head.push_back(1e-3 * drift[i] * shift * (1 + wobble[i] * noise_scale / 100));
  }
  return pairs;
}

}  // namespace

TEST_CASE("paired: R's wilcox.test paired example gives V = 40 and p = 0.03906", "[paired]") {
  const std::vector<double> d = differences(kHollanderX, kHollanderY);
  CHECK(signed_rank_statistic(d) == 40);  // [R] V = 40
  // [R] 0.03906; [hand] n = 9, V = 40 > 22.5: P(V >= 40) = P(V <= 5) = 10/512.
  CHECK(wilcoxon_signed_rank_p(d) == Approx(0.03906).margin(0.00001));
  CHECK(wilcoxon_signed_rank_p(d) == Approx(20.0 / 512).epsilon(1e-12));
}

TEST_CASE("paired: R's example interval and pseudo-median from the Walsh averages", "[paired]") {
  const ShiftEstimate shift = signed_rank_shift(differences(kHollanderX, kHollanderY), 0.05);
  CHECK(shift.exact);
  CHECK(shift.estimate == Approx(0.46).epsilon(1e-12));  // [R] (pseudo)median 0.4600
  CHECK(shift.low == Approx(0.01).epsilon(1e-9));        // [R] 0.0100
  CHECK(shift.high == Approx(0.786).epsilon(1e-12));     // [R] 0.7860
  // [hand] qsignrank(0.025, 9) = 6 (P(V <= 5) = 10/512 < 0.025 <= 14/512), achieved
  // confidence 1 - 2 * 10/512.
  CHECK(shift.confidence == Approx(1 - 20.0 / 512).epsilon(1e-12));
}

TEST_CASE("paired: n differences all of one sign give the smallest p, 2 / 2^n", "[paired]") {
  for (std::size_t n = 1; n <= 12; ++n) {
    std::vector<double> up, down;
    for (std::size_t i = 1; i <= n; ++i) {
      up.push_back(0.01 * static_cast<double>(i));
      down.push_back(-0.01 * static_cast<double>(i));
    }
    INFO("n=" << n);
    const double expected = std::min(1.0, 2.0 / std::ldexp(1.0, static_cast<int>(n)));
    CHECK(wilcoxon_signed_rank_p(up) == Approx(expected).epsilon(1e-12));
    CHECK(wilcoxon_signed_rank_p(down) == Approx(expected).epsilon(1e-12));
  }
}

TEST_CASE("paired: the exact distribution agrees with brute-force enumeration", "[paired]") {
  for (std::size_t n = 1; n <= 10; ++n) {
    for (int v = -1; v <= static_cast<int>(n * (n + 1) / 2) + 1; ++v) {
      INFO("n=" << n << " v=" << v);
      CHECK(signed_rank_cdf(n, v) == Approx(enumerated_cdf(n, v)).epsilon(1e-12));
    }
  }
  // [enum] ranks 1..8 with 3, 5 and 8 negative: V = 36 - 16 = 20 > 18, so
  // p = 2 * P(V >= 20) = 2 * (1 - P(V <= 19)).
  const std::vector<double> d = {0.1, 0.2, -0.3, 0.4, -0.5, 0.6, 0.7, -0.8};
  CHECK(signed_rank_statistic(d) == 20);
  CHECK(wilcoxon_signed_rank_p(d) == Approx(2 * (1 - enumerated_cdf(8, 19))).epsilon(1e-12));
}

TEST_CASE("paired: exact intervals of small samples by hand", "[paired]") {
  // [hand] d = 1..6: P(V <= 0) = 1/64 < 0.025 <= P(V <= 1), so k = 1: [min, max]
  // at 1 - 2/64; the Walsh averages are symmetric about 3.5.
  const std::vector<double> six = {1, 2, 3, 4, 5, 6};
  const ShiftEstimate a = signed_rank_shift(six, 0.05);
  CHECK(a.exact);
  CHECK(a.low == 1);
  CHECK(a.high == 6);
  CHECK(a.estimate == 3.5);
  CHECK(a.confidence == Approx(1 - 2.0 / 64));
  // [hand] d = 1..7: P(V <= 2) = 3/128 < 0.025 <= P(V <= 3) = 5/128, so k = 3: the
  // sorted Walsh averages start 1, 1.5, 2 (1+3 or 2+2), end 6, 6.5, 7; of 28.
  const std::vector<double> seven = {4, 1, 7, 2, 6, 3, 5};  // order does not matter
  const ShiftEstimate b = signed_rank_shift(seven, 0.05);
  CHECK(b.low == 2);
  CHECK(b.high == 6);
  CHECK(b.estimate == 4);
  CHECK(b.confidence == Approx(1 - 6.0 / 128));
}

TEST_CASE("paired: ties and zeros switch to the corrected normal approximation", "[paired]") {
  // [hand] |d| ranks 1, 2.5, 2.5, 4, 5, 6, 7, 8; V = 29 (all but -6); mean 18;
  // var = 8*9*17/24 - (2^3 - 2)/48 = 50.875; z = (11 - 0.5)/sqrt(50.875);
  // [py] erfc(z / sqrt 2) = 0.1409940812.
  const std::vector<double> tied = {1, 2, 2, 3, 4, 5, -6, 7};
  CHECK(signed_rank_statistic(tied) == 29);
  CHECK(wilcoxon_signed_rank_p(tied) == Approx(0.1409940812035564).epsilon(1e-9));
  CHECK_FALSE(signed_rank_shift(tied, 0.05).exact);
  // A zero is dropped for the test, and (as in R) forces the approximation.
  const std::vector<double> with_zero = {0, 1, 2, 3, 4, 5, 6, 7};
  const double z = (28 - 7.0 * 8 / 4 - 0.5) / std::sqrt(7.0 * 8 * 15 / 24);
  CHECK(wilcoxon_signed_rank_p(with_zero) == Approx(std::erfc(z / std::sqrt(2.0))));
  CHECK(wilcoxon_signed_rank_p(std::vector<double>{0, 0, 0}) == 1);
}

TEST_CASE("paired: 50 or more differences use the normal approximation", "[paired]") {
  std::vector<double> d;
  for (int i = 1; i <= 60; ++i) d.push_back(i);
  // [py] V = 1830, mean 915, var 18452.5: p = 1.671328569652656e-11.
  CHECK(wilcoxon_signed_rank_p(d) == Approx(1.671328569652656e-11).epsilon(1e-9));
  const ShiftEstimate shift = signed_rank_shift(d, 0.05);
  CHECK_FALSE(shift.exact);
  // [py] k = floor(915.5 - 1.959964 * sqrt(18452.5)) = 649, confidence 0.950222.
  CHECK(shift.confidence == Approx(0.950222052567406).epsilon(1e-9));
  CHECK(shift.estimate == 30.5);
  CHECK(shift.low + shift.high == 61);  // symmetric data, symmetric interval
}

TEST_CASE("paired: identical sides give ratio 1, p = 1 and no noise", "[paired]") {
  const Pairs pairs = shifted_pairs(1.0, 0.0);
  const PairedTest test = paired_test(pairs.base, pairs.base, 0.05);
  CHECK(test.pairs == 12);
  CHECK(test.dropped == 0);
  CHECK(test.ratio == 1);
  CHECK(test.median_ratio == 1);
  CHECK(test.ci_low == 1);
  CHECK(test.ci_high == 1);
  REQUIRE(test.p_value.has_value());
  CHECK(*test.p_value == 1);
  CHECK(test.noise == 0);
  CHECK(test.note.empty());
}

TEST_CASE("paired: a clear 10% slowdown on 12 pairs is significant and bracketed", "[paired]") {
  const Pairs pairs = shifted_pairs(1.10, 0.5);
  const PairedTest test = paired_test(pairs.base, pairs.head, 0.05);
  CHECK(test.pairs == 12);
  REQUIRE(test.p_value.has_value());
  CHECK(*test.p_value == Approx(2.0 / 4096));  // every pair slower: the smallest p
  CHECK(test.exact);
  CHECK(test.ratio == Approx(1.10).epsilon(0.005));
  CHECK(test.median_ratio == Approx(1.10).epsilon(0.005));
  CHECK(test.ci_low <= 1.10);
  CHECK(test.ci_high >= 1.10);
  CHECK(test.ci_low > 1.0);
  CHECK(test.confidence >= 0.95);
  // The machine's drift (4-7% between pairs) cancels: the noise is the wobble's.
  CHECK(test.noise < 0.01);
  CHECK(test.noise > 0.001);
}

TEST_CASE("paired: the interval widens with the noise", "[paired]") {
  const Pairs quiet = shifted_pairs(1.10, 0.5);
  const Pairs loud = shifted_pairs(1.10, 3.0);
  const PairedTest a = paired_test(quiet.base, quiet.head, 0.05);
  const PairedTest b = paired_test(loud.base, loud.head, 0.05);
  CHECK(b.ci_high - b.ci_low > 3 * (a.ci_high - a.ci_low));
  CHECK(b.noise > 3 * a.noise);
  CHECK(b.confidence == a.confidence);  // same n, same exact k
}

TEST_CASE("paired: swapping base and head inverts the ratios and keeps p", "[paired]") {
  const Pairs pairs = shifted_pairs(1.05, 2.0);
  const PairedTest forward = paired_test(pairs.base, pairs.head, 0.05);
  const PairedTest backward = paired_test(pairs.head, pairs.base, 0.05);
  CHECK(backward.ratio == Approx(1 / forward.ratio).epsilon(1e-12));
  CHECK(backward.median_ratio == Approx(1 / forward.median_ratio).epsilon(1e-12));
  CHECK(backward.ci_low == Approx(1 / forward.ci_high).epsilon(1e-12));
  CHECK(backward.ci_high == Approx(1 / forward.ci_low).epsilon(1e-12));
  REQUIRE(forward.p_value.has_value());
  REQUIRE(backward.p_value.has_value());
  CHECK(*backward.p_value == *forward.p_value);
  CHECK(backward.noise == Approx(forward.noise).epsilon(1e-12));
}

TEST_CASE("paired: fewer than 6 pairs at alpha 0.05 give no p and say why", "[paired]") {
  CHECK(min_pairs_for(0.05) == 6);  // [hand] 2/32 = 0.0625 >= 0.05 > 2/64
  CHECK(min_pairs_for(0.01) == 8);  // [hand] 2/128 = 0.0156 >= 0.01 > 2/256
  CHECK(min_pairs_for(0.5) == 3);   // [hand] 2/4 = 0.5 is not < 0.5; 2/8 is
  CHECK(too_few_pairs_text(0.05) == "too few pairs (need >= 6 at alpha 0.05)");
  const std::vector<double> base = {1, 1, 1, 1, 1};
  const std::vector<double> head = {1.1, 1.2, 1.3, 1.4, 1.5};
  const PairedTest test = paired_test(base, head, 0.05);
  CHECK_FALSE(test.p_value.has_value());
  CHECK(test.note == "too few pairs (need >= 6 at alpha 0.05)");
  // The estimate and its (honestly weaker) interval are still given: [min, max].
  // [py] the 8th of 15 Walsh averages of the logs is (ln 1.2 + ln 1.4) / 2.
  CHECK(test.ratio == Approx(std::sqrt(1.2 * 1.4)).epsilon(1e-12));
  CHECK(test.ci_low == Approx(1.1));
  CHECK(test.ci_high == Approx(1.5));
  CHECK(test.confidence == Approx(1 - 2.0 / 32));
  // At alpha 0.1 the same 5 pairs are enough (2/32 < 0.1).
  const PairedTest looser = paired_test(base, head, 0.1);
  REQUIRE(looser.p_value.has_value());
  CHECK(*looser.p_value == Approx(2.0 / 32));
}

TEST_CASE("paired: no usable pair leaves the defaults and the note", "[paired]") {
  const PairedTest empty = paired_test({}, {}, 0.05);
  CHECK(empty.pairs == 0);
  CHECK(empty.ratio == 1);
  CHECK(empty.confidence == 0);
  CHECK_FALSE(empty.p_value.has_value());
  CHECK(empty.note == "too few pairs (need >= 6 at alpha 0.05)");
  const PairedTest one = paired_test(std::vector<double>{2}, std::vector<double>{3}, 0.05);
  CHECK(one.pairs == 1);
  CHECK(one.ratio == Approx(1.5));
  CHECK(one.confidence == 0);  // one pair: an interval of one point means nothing
}

TEST_CASE("paired: non-positive, non-finite and unmatched values drop their pair", "[paired]") {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Pairs clean = shifted_pairs(1.10, 0.5);
  Pairs dirty = clean;
  dirty.base.insert(dirty.base.begin() + 3, {0.0, 1e-3, nan, 1e-3, -1e-3});
  dirty.head.insert(dirty.head.begin() + 3, {1e-3, inf, 1e-3, 0.0, 1e-3});
  dirty.base.push_back(1e-3);  // no partner in head
  const PairedTest test = paired_test(dirty.base, dirty.head, 0.05);
  const PairedTest reference = paired_test(clean.base, clean.head, 0.05);
  CHECK(test.pairs == 12);
  CHECK(test.dropped == 6);
  CHECK(test.ratio == reference.ratio);
  CHECK(test.ci_low == reference.ci_low);
  CHECK(test.ci_high == reference.ci_high);
  CHECK(test.p_value == reference.p_value);
}

TEST_CASE("paired: an alpha outside (0, 1) is refused in the note", "[paired]") {
  const Pairs pairs = shifted_pairs(1.10, 0.5);
  const PairedTest test = paired_test(pairs.base, pairs.head, 1.5);
  CHECK_FALSE(test.p_value.has_value());
  CHECK(test.note == "alpha 1.5 is not in (0, 1)");
  CHECK(test.pairs == 12);
  CHECK(paired_test(pairs.base, pairs.head, 0).note == "alpha 0 is not in (0, 1)");
}

TEST_CASE("paired: the noise is 1.4826 times the MAD of the log ratios", "[paired]") {
  // [hand] log ratios -0.02, -0.01, 0, 0.01, 0.03: median 0, deviations
  // 0.02, 0.01, 0, 0.01, 0.03, MAD 0.01.
  const std::vector<double> base = {1, 1, 1, 1, 1};
  const std::vector<double> head = {std::exp(-0.02), std::exp(-0.01), 1, std::exp(0.01),
                                    std::exp(0.03)};
  const PairedTest test = paired_test(base, head, 0.05);
  CHECK(test.noise == Approx(0.014826).epsilon(1e-9));
  CHECK(test.median_ratio == 1);
}

TEST_CASE("paired: the normal quantile matches AS 241 reference values", "[paired]") {
  CHECK(normal_quantile(0.975) == Approx(1.959963984540054).epsilon(1e-14));  // [py]
  CHECK(normal_quantile(0.025) == Approx(-1.959963984540054).epsilon(1e-14));
  CHECK(normal_quantile(0.5) == 0);
  CHECK(normal_quantile(0.8) == Approx(0.8416212335729144).epsilon(1e-14));  // [py]
  CHECK(normal_quantile(0.3) == Approx(-0.5244005127080407).epsilon(1e-14));
  CHECK(normal_quantile(0.995) == Approx(2.5758293035489).epsilon(1e-14));
  CHECK(normal_quantile(1e-12) == Approx(-7.034483825301132).epsilon(1e-13));  // r > 5
  for (double p : {1e-300, 1e-9, 0.001, 0.07, 0.2, 0.42, 0.6, 0.93, 0.9999}) {
    INFO("p=" << p);  // Phi(quantile(p)) = p, by the independent erfc
    CHECK(0.5 * std::erfc(-normal_quantile(p) / std::sqrt(2.0)) == Approx(p).epsilon(1e-12));
  }
  CHECK(normal_quantile(0) == -std::numeric_limits<double>::infinity());
  CHECK(normal_quantile(1) == std::numeric_limits<double>::infinity());
  CHECK(std::isnan(normal_quantile(1.5)));
  CHECK(std::isnan(normal_quantile(std::nan(""))));
}

TEST_CASE("paired: the detectable slowdown grows with noise and shrinks with pairs", "[paired]") {
  // [py] (exp((1.959964 + 0.841621) * 0.02 / sqrt(0.955 * 20)) - 1) * 100.
  CHECK(detectable_percent(0.02, 20, 0.05) == Approx(1.290339933678264).epsilon(1e-12));
  double previous = 0;
  for (double noise : {0.005, 0.01, 0.02, 0.05}) {
    const double percent = detectable_percent(noise, 12, 0.05);
    CHECK(percent > previous);
    previous = percent;
  }
  previous = std::numeric_limits<double>::infinity();
  for (std::size_t pairs : {std::size_t{6}, std::size_t{12}, std::size_t{24}, std::size_t{48}}) {
    const double percent = detectable_percent(0.02, pairs, 0.05);
    CHECK(percent < previous);
    previous = percent;
  }
  CHECK(detectable_percent(0.02, 12, 0.01) > detectable_percent(0.02, 12, 0.05));
  CHECK(detectable_percent(0.02, 12, 0.05, 0.9) > detectable_percent(0.02, 12, 0.05, 0.8));
  CHECK(detectable_percent(0, 12, 0.05) == 0);
  CHECK(std::isinf(detectable_percent(0.02, 0, 0.05)));
}

TEST_CASE("paired: the same input gives the same result, bit for bit", "[paired]") {
  const Pairs pairs = shifted_pairs(1.03, 4.0);
  const PairedTest a = paired_test(pairs.base, pairs.head, 0.05);
  const PairedTest b = paired_test(pairs.base, pairs.head, 0.05);
  CHECK(a.pairs == b.pairs);
  CHECK(a.ratio == b.ratio);
  CHECK(a.median_ratio == b.median_ratio);
  CHECK(a.ci_low == b.ci_low);
  CHECK(a.ci_high == b.ci_high);
  CHECK(a.confidence == b.confidence);
  CHECK(a.p_value == b.p_value);
  CHECK(a.noise == b.noise);
  CHECK(a.note == b.note);
}
