// The 95% interval of a median (stats/median_interval.h) and the stopping rule of
// adaptive repeats, on fixed samples.
#include <cstddef>
#include <vector>

#include <catch2/catch.hpp>

#include "stats/median_interval.h"

using storh::stats::median_interval;
using storh::stats::median_is_stable;
using storh::stats::relative_half_width;

namespace {

// The first prefix length of `values` at which the rule stops, or 0 for none.
std::size_t stops_at(const std::vector<double>& values, double until) {
  for (std::size_t n = 1; n <= values.size(); ++n) {
    const std::vector<double> prefix(values.begin(),
                                     values.begin() + static_cast<std::ptrdiff_t>(n));
    if (median_is_stable(prefix, until)) return n;
  }
  return 0;
}

}  // namespace

TEST_CASE("median interval: five values cannot give 95%, six give [min, max]", "[stats][repeat]") {
  CHECK_FALSE(median_interval(std::vector<double>{1, 2, 3, 4, 5}, 0.05));
  const auto six = median_interval(std::vector<double>{6, 1, 5, 2, 4, 3}, 0.05);
  REQUIRE(six);
  CHECK(six->median == Approx(3.5));
  CHECK(six->low == 1);
  CHECK(six->high == 6);
  CHECK(six->confidence == Approx(1 - 2.0 / 64));
}

TEST_CASE("median interval: ten values drop one from each end, as the sign test does",
          "[stats][repeat]") {
  // P(B <= 1) = 11/1024 <= 0.025 < P(B <= 2) = 56/1024: k = 2 (R: the sign test's
  // interval for n = 10 is [x(2), x(9)] at 97.9%).
  const auto ten = median_interval(std::vector<double>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 0.05);
  REQUIRE(ten);
  CHECK(ten->low == 2);
  CHECK(ten->high == 9);
  CHECK(ten->confidence == Approx(1 - 22.0 / 1024));
}

TEST_CASE("median interval: a value that is not finite gives none", "[stats][repeat]") {
  CHECK_FALSE(median_interval(std::vector<double>{1, 1, 1, 1, 1, 1.0 / 0.0}, 0.05));
  CHECK_FALSE(median_interval(std::vector<double>{1, 1, 1, 1, 1, 1}, 1.5));
}

TEST_CASE("repeat rule: identical values stop at six, never before", "[stats][repeat]") {
  CHECK(stops_at(std::vector<double>(10, 0.25), 0.02) == 6);
  CHECK_FALSE(median_is_stable(std::vector<double>(5, 0.25), 0.5));
}

TEST_CASE("repeat rule: the interval must lie within median x (1 +- until) on both sides",
          "[stats][repeat]") {
  // Median 100, interval [98, 102]: +-2% exactly.
  const std::vector<double> values = {100, 101, 99, 100, 102, 98};
  const auto interval = median_interval(values, 0.05);
  REQUIRE(interval);
  CHECK(relative_half_width(*interval) == Approx(0.02));
  CHECK(median_is_stable(values, 0.0201));
  CHECK_FALSE(median_is_stable(values, 0.019));
  // One-sided: [100, 103] around 100 is +3%, its wider side decides.
  CHECK_FALSE(median_is_stable(std::vector<double>{100, 100, 100, 100, 100, 103}, 0.02));
}

TEST_CASE("repeat rule: one outlier keeps it going until nine values drop it", "[stats][repeat]") {
  // Up to 8 values k = 1 and the interval is [min, max], the outlier in it; from 9
  // values (P(B <= 1) = 10/512 <= 0.025) k = 2 and it falls out.
  const std::vector<double> values = {100, 130, 100, 100, 100, 100, 100, 100, 100, 100};
  CHECK(stops_at(values, 0.02) == 9);
}

TEST_CASE("repeat rule: values that alternate between two levels never stop", "[stats][repeat]") {
  std::vector<double> values;
  values.reserve(30);
  for (int i = 0; i < 30; ++i) values.push_back(i % 2 == 0 ? 1.0 : 20.0);
  CHECK(stops_at(values, 0.02) == 0);
  CHECK(stops_at(values, 0.5) == 0);
}
