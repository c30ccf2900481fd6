// stats/change_points.h: E-divisive means with Hunter's t-test, on series whose change
// points are known: one injected 20% slowdown is found at the right run and nothing
// else; stable noise has none; two changes are both found.
#include <cmath>
#include <vector>

#include <catch2/catch.hpp>

#include "stats/change_points.h"

using namespace storh::stats;

namespace {

// Deterministic noise in [-amplitude, +amplitude]: a fixed scramble, not a clock.
double noise(std::size_t i, double amplitude) {
  return amplitude * (static_cast<double>((i * 7919 + 13) % 101) / 50.0 - 1.0);
}

std::vector<double> series_with_steps(std::size_t size, const std::vector<std::size_t>& at,
                                      double factor, double amplitude) {
  std::vector<double> values;
  double level = 1.0;
  for (std::size_t i = 0; i < size; ++i) {
    if (std::find(at.begin(), at.end(), i) != at.end()) level *= factor;
    values.push_back(level * (1 + noise(i, amplitude)));
  }
  return values;
}

}  // namespace

TEST_CASE("change points: the incomplete beta function and Welch's t-test", "[stats][history]") {
  CHECK(incomplete_beta(2, 3, 0.5) == Approx(0.6875));  // (C(4,2)+C(4,3)+C(4,4)) / 16
  CHECK(incomplete_beta(1, 1, 0.3) == Approx(0.3));
  CHECK(incomplete_beta(2.5, 0.5, 0.7) == Approx(1 - incomplete_beta(0.5, 2.5, 0.3)));
  CHECK(incomplete_beta(3, 4, 0) == 0);
  CHECK(incomplete_beta(3, 4, 1) == 1);
  // Means 3 and 4, variances 2.5: t = -1 with 8 degrees of freedom; R: 2 * pt(-1, 8).
  const std::vector<double> a = {1, 2, 3, 4, 5}, b = {2, 3, 4, 5, 6};
  CHECK(welch_p_value(a, b) == Approx(0.3465935).epsilon(1e-6));
  CHECK(welch_p_value(a, a) == Approx(1));
  const std::vector<double> flat = {2, 2, 2}, other = {3, 3, 3}, one = {1};
  CHECK(welch_p_value(flat, flat) == 1);
  CHECK(welch_p_value(flat, other) == 0);
  CHECK(welch_p_value(one, a) == 1);
}

TEST_CASE("change points: Q is largest at the split between two levels", "[stats][history]") {
  const std::vector<double> step = {1, 1.01, 0.99, 1, 2, 2.01, 1.99, 2};
  std::size_t best = 0;
  double best_q = -1;
  for (std::size_t split = 1; split < step.size(); ++split) {
    if (divisive_q(step, split) > best_q) {
      best_q = divisive_q(step, split);
      best = split;
    }
  }
  CHECK(best == 4);
  CHECK(divisive_q(step, 4) > 0);
}

TEST_CASE("change points: 20 runs with a 20% slowdown at run 11 give that run and no other",
          "[stats][history]") {
  const std::vector<double> series = series_with_steps(20, {10}, 1.2, 0.02);
  const auto points = find_change_points(series);
  REQUIRE(points.size() == 1);
  CHECK(points[0].index == 10);
  CHECK(points[0].p_value < 0.001);
  CHECK(points[0].mean_after / points[0].mean_before == Approx(1.2).epsilon(0.02));
  CHECK(points[0].median_after > points[0].median_before);
  // Wherever the slowdown is, as long as each side has 4 runs: with 3 after it, Welch's
  // t-test has about 2 degrees of freedom and cannot reach p < 0.001 on this noise.
  for (std::size_t at = 4; at <= 16; ++at) {
    INFO("slowdown at " << at);
    const auto found = find_change_points(series_with_steps(20, {at}, 1.2, 0.02));
    REQUIRE(found.size() == 1);
    CHECK(found[0].index == at);
  }
}

TEST_CASE("change points: stable noise has none, two steps give two, short series none",
          "[stats][history]") {
  CHECK(find_change_points(series_with_steps(40, {}, 1, 0.03)).empty());
  const auto two = find_change_points(series_with_steps(40, {12, 27}, 1.25, 0.02));
  REQUIRE(two.size() == 2);
  CHECK(two[0].index == 12);
  CHECK(two[1].index == 27);
  // A speed-up is a change point too.
  const auto faster = find_change_points(series_with_steps(20, {8}, 0.8, 0.02));
  REQUIRE(faster.size() == 1);
  CHECK(faster[0].index == 8);
  CHECK(find_change_points(std::vector<double>{1, 1, 5, 5, 5}).empty());  // < 2 x 3 points
  CHECK(find_change_points(std::vector<double>{}).empty());
}
