// Mann-Whitney U p-values against known values. Sources of the expected numbers:
//   [R]    R's ?wilcox.test example (Hollander & Wolfe 1973, p. 69): permeability
//          x = 0.80 0.83 1.89 1.04 1.45 1.38 1.91 1.64 0.73 1.46,
//          y = 1.15 0.88 0.90 0.74 1.21; wilcox.test(x, y, alternative = "g") prints
//          W = 35, p-value = 0.1272 (exact), and with exact = FALSE, correct = FALSE
//          p-value = 0.1103. Two-sided is twice the one-sided tail.
//   [hand] computed by hand in the comment next to the check.
//   [enum] an independent brute-force enumeration in this file: every way to choose
//          which n1 of the ranks 1..n1+n2 belong to the first sample.
#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <vector>

#include "compare/mann_whitney.h"

using namespace storh::compare;

namespace {

// Two-sided exact p by enumerating all C(n1 + n2, n1) rank subsets (no ties).
double enumerated_p(std::size_t n1, std::size_t n2, double u) {
  const std::size_t n = n1 + n2;
  double total = 0, lower = 0, upper = 0;
  std::vector<std::size_t> chosen;
  std::function<void(std::size_t)> visit = [&](std::size_t next) {
    if (chosen.size() == n1) {
      double rank_sum = 0;
      for (std::size_t r : chosen) rank_sum += static_cast<double>(r + 1);
      const double value = rank_sum - static_cast<double>(n1 * (n1 + 1)) / 2;
      total += 1;
      lower += value <= u ? 1 : 0;
      upper += value >= u ? 1 : 0;
      return;
    }
    for (std::size_t r = next; r < n; ++r) {
      chosen.push_back(r);
      visit(r + 1);
      chosen.pop_back();
    }
  };
  visit(0);
  return std::min(1.0, 2 * std::min(lower, upper) / total);
}

const std::vector<double> kPermeabilityX = {0.80, 0.83, 1.89, 1.04, 1.45,
                                            1.38, 1.91, 1.64, 0.73, 1.46};
const std::vector<double> kPermeabilityY = {1.15, 0.88, 0.90, 0.74, 1.21};

}  // namespace

TEST_CASE("mann-whitney: R's wilcox.test example gives W = 35 and its exact p", "[mann_whitney]") {
  const auto result = mann_whitney(kPermeabilityX, kPermeabilityY);
  REQUIRE(result.has_value());
  CHECK(result->u == 35);  // [R] W = 35
  CHECK(result->exact);
  // [R] one-sided 0.1272, so two-sided 0.2544; [enum] 2 * 382 / 3003 = 0.254412...
  CHECK(result->p_value == Approx(0.2544).margin(0.0001));
  CHECK(result->p_value == Approx(2.0 * 382 / 3003).epsilon(1e-12));
}

TEST_CASE("mann-whitney: the normal approximation matches R without continuity correction",
          "[mann_whitney]") {
  // [R] exact = FALSE, correct = FALSE: one-sided 0.1103. Our approximation applies the
  // continuity correction (R's default), so check the uncorrected z by hand first:
  // [hand] mu = 25, sigma^2 = 10 * 5 * 16 / 12 = 66.67, z = 10 / 8.165 = 1.2247,
  // P(Z > z) = 0.1103. With correction z = 9.5 / 8.165 = 1.1635, two-sided 0.2446.
  const double sigma = std::sqrt(10.0 * 5 * 16 / 12);
  CHECK(0.5 * std::erfc(10 / sigma / std::sqrt(2.0)) == Approx(0.1103).margin(0.0001));
  CHECK(normal_p_value(kPermeabilityX, kPermeabilityY, 35) == Approx(0.24462).margin(0.00001));
}

TEST_CASE("mann-whitney: fully separated samples give the smallest possible p", "[mann_whitney]") {
  const std::vector<double> a3 = {1, 2, 3}, b3 = {4, 5, 6};
  const std::vector<double> a4 = {1, 2, 3, 4}, b4 = {5, 6, 7, 8};
  // [hand] U = 0; 1 arrangement of C(6,3) = 20 is as extreme on each side: 2/20.
  CHECK(mann_whitney_u(a3, b3) == 0);
  CHECK(exact_p_value(3, 3, 0) == Approx(0.1));
  CHECK(smallest_p_value(3, 3) == Approx(0.1));
  // [hand] C(8,4) = 70: 2/70 = 0.028571; R's wilcox.test(1:4, 5:8) gives 0.02857.
  const auto result = mann_whitney(a4, b4);
  REQUIRE(result.has_value());
  CHECK(result->p_value == Approx(2.0 / 70));
  // Symmetric: swapping the samples gives U = n1 n2 - U and the same p.
  const auto swapped = mann_whitney(b4, a4);
  REQUIRE(swapped.has_value());
  CHECK(swapped->u == 16);
  CHECK(swapped->p_value == Approx(2.0 / 70));
}

TEST_CASE("mann-whitney: 3 per side is too few at alpha 0.05, 4 is enough", "[mann_whitney]") {
  const std::vector<double> a3 = {1, 2, 3}, b3 = {4, 5, 6};
  CHECK_FALSE(mann_whitney(a3, b3).has_value());
  CHECK(min_samples_per_side(0.05) == 4);
  CHECK(min_samples_per_side(0.01) == 5);  // [hand] 2/70 > 0.01 >= 2/252
  CHECK(min_samples_per_side(0.2) == 3);   // [hand] 2/20 <= 0.2 < 2/6
  CHECK(too_few_samples_text(0.05) == "too few samples (need >= 4 per side)");
  // Unequal sides can do with fewer on one: [hand] 3 and 5: 2/56 = 0.0357.
  const std::vector<double> b5 = {4, 5, 6, 7, 8};
  const auto unequal = mann_whitney(a3, b5);
  REQUIRE(unequal.has_value());
  CHECK(unequal->p_value == Approx(2.0 / 56));
  CHECK_FALSE(mann_whitney({}, b5).has_value());
}

TEST_CASE("mann-whitney: the exact distribution agrees with brute-force enumeration",
          "[mann_whitney]") {
  for (std::size_t n1 = 1; n1 <= 6; ++n1) {
    for (std::size_t n2 = 1; n2 <= 7; ++n2) {
      for (std::size_t u = 0; u <= n1 * n2; ++u) {
        INFO("n1=" << n1 << " n2=" << n2 << " u=" << u);
        CHECK(exact_p_value(n1, n2, static_cast<double>(u)) ==
              Approx(enumerated_p(n1, n2, static_cast<double>(u))).epsilon(1e-12));
      }
    }
  }
  // [enum] 5 and 5 with U = 5: 19 of 252 arrangements have U <= 5: 2 * 19 / 252.
  const std::vector<double> a = {1.1, 2.2, 3.3, 4.4, 5.5}, b = {6.6, 7.7, 8.8, 9.9, 0.5};
  const auto result = mann_whitney(a, b);
  REQUIRE(result.has_value());
  CHECK(result->u == 5);
  CHECK(result->p_value == Approx(38.0 / 252));
}

TEST_CASE("mann-whitney: ties use mid-ranks and the tie-corrected normal approximation",
          "[mann_whitney]") {
  const std::vector<double> a = {1, 2, 2, 3, 4}, b = {2, 3, 5, 6, 7};
  // [hand] pooled sorted: 1 2 2 2 3 3 4 5 6 7; ranks of a: 1, 3, 3, 5.5, 7 -> R1 = 19.5,
  // U = 19.5 - 15 = 4.5. Ties: a group of 3 (the 2s) and of 2 (the 3s):
  // sum t^3 - t = 24 + 6 = 30; sigma^2 = 25/12 * (11 - 30/90) = 22.222;
  // z = (4.5 - 12.5 + 0.5) / 4.714 = -1.5910; p = 2 * Phi(-1.5910) = 0.11161.
  const auto result = mann_whitney(a, b);
  REQUIRE(result.has_value());
  CHECK(result->u == 4.5);
  CHECK_FALSE(result->exact);
  CHECK(result->p_value == Approx(0.11161).margin(0.00001));
}

TEST_CASE("mann-whitney: identical samples are no evidence of a difference", "[mann_whitney]") {
  const std::vector<double> same = {0.5, 0.5, 0.5, 0.5};
  const auto result = mann_whitney(same, same);
  REQUIRE(result.has_value());
  CHECK(result->p_value == 1.0);
}

TEST_CASE("mann-whitney: large samples use the normal approximation", "[mann_whitney]") {
  std::vector<double> a, b;
  for (int i = 0; i < 60; ++i) {
    a.push_back(i);
    b.push_back(i + 30);
  }
  const auto result = mann_whitney(a, b);
  REQUIRE(result.has_value());
  CHECK_FALSE(result->exact);
  // [hand] a_i = i beats b_j = j + 30 when j < i - 30 and ties with it when j = i - 30:
  // U = sum_{i=30}^{59} (i - 30) + 30 / 2 = 435 + 15 = 450, against a mean of 1800 and
  // sigma ~ 190: |z| > 7, so p is far below 1e-6.
  CHECK(result->u == 450);
  CHECK(result->p_value < 1e-6);
}
