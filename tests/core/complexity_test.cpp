// The complexity fit of a range report: synthetic times with known growth, with and
// without noise, and the inputs it refuses.
#include "stats/complexity.h"

#include <cmath>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

using storh::stats::Complexity;
using storh::stats::complexity_name;
using storh::stats::complexity_text;
using storh::stats::fit_complexity;
using storh::stats::SizeTime;

namespace {

// Multiplicative noise of up to +-4%, fixed so the tests are deterministic.
constexpr double kNoise[] = {1.03, 0.97, 1.04, 0.98, 1.02, 0.96, 1.01, 0.99};

std::vector<SizeTime> synthetic(Complexity model, double c, const std::vector<std::uint64_t>& sizes,
                                bool noisy) {
  std::vector<SizeTime> points;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const double n = static_cast<double>(sizes[i]);
    const double t = c * storh::stats::complexity_term(model, n) * (noisy ? kNoise[i % 8] : 1.0);
    points.push_back({sizes[i], t});
  }
  return points;
}

const std::vector<std::uint64_t> kDecades = {10, 100, 1000, 10000, 100000, 1000000};
// storh range.php's default datasets: a narrow span, the harder case.
const std::vector<std::uint64_t> kStorhRange = {1000, 10000, 50000, 100000};

void fit_should_pick(Complexity model, const std::vector<std::uint64_t>& sizes, bool noisy) {
  const auto fit = fit_complexity(synthetic(model, 2e-7, sizes, noisy));
  INFO(complexity_name(model) << (noisy ? " with noise" : " exact"));
  REQUIRE(fit.ok());
  CHECK(fit->model == model);
  CHECK(fit->relative_error < (noisy ? 0.05 : 1e-9));
}

}  // namespace

TEST_CASE("complexity: exact data of each model is fitted exactly", "[complexity]") {
  for (Complexity model : storh::stats::kComplexityModels) fit_should_pick(model, kDecades, false);
  const auto fit = fit_complexity(synthetic(Complexity::linear, 3e-9, kDecades, false));
  REQUIRE(fit.ok());
  CHECK(fit->coefficient == Approx(3e-9));
}

TEST_CASE("complexity: constant, log, linear and n log n with noise pick the right model",
          "[complexity]") {
  for (Complexity model : storh::stats::kComplexityModels) {
    fit_should_pick(model, kDecades, true);
    fit_should_pick(model, kStorhRange, true);
  }
}

TEST_CASE("complexity: the fit error is the relative RMS of the residuals", "[complexity]") {
  // t = n exactly but for +10% at one of four sizes: the best linear c trades the
  // residuals off; the error stays well below the deviation and above zero.
  std::vector<SizeTime> points = {{1000, 1000}, {2000, 2000}, {4000, 4400}, {8000, 8000}};
  const auto fit = fit_complexity(points);
  REQUIRE(fit.ok());
  CHECK(fit->model == Complexity::linear);
  CHECK(fit->relative_error > 0.01);
  CHECK(fit->relative_error < 0.05);
}

TEST_CASE("complexity: the order of the points does not matter", "[complexity]") {
  auto points = synthetic(Complexity::n_log_n, 1e-8, kDecades, true);
  const auto forward = fit_complexity(points);
  std::reverse(points.begin(), points.end());
  const auto backward = fit_complexity(points);
  REQUIRE(forward.ok());
  REQUIRE(backward.ok());
  CHECK(forward->model == backward->model);
  CHECK(forward->coefficient == Approx(backward->coefficient));
}

TEST_CASE("complexity: fewer than three sizes is too few to tell the models apart",
          "[complexity]") {
  const std::vector<SizeTime> two = {{1000, 0.001}, {10000, 0.01}};
  const auto fit = fit_complexity(two);
  REQUIRE_FALSE(fit.ok());
  CHECK(fit.error() == "too few sizes: 2 (a fit needs 3)");
  CHECK_FALSE(fit_complexity(std::vector<SizeTime>{}).ok());
}

TEST_CASE("complexity: bad points are errors that name the size", "[complexity]") {
  auto error_of = [](std::vector<SizeTime> points) {
    const auto fit = fit_complexity(points);
    return fit.ok() ? std::string("ok") : fit.error();
  };
  CHECK(error_of({{10, 1}, {10, 2}, {30, 3}}) == "size 10 is given twice");
  CHECK(error_of({{0, 1}, {20, 2}, {30, 3}}) == "size 0: a dataset size must be >= 1");
  CHECK(error_of({{10, 1}, {20, 0}, {30, 3}}) == "size 20: time 0 is not a finite number > 0");
  CHECK(error_of({{10, 1}, {20, 2}, {30, NAN}}) == "size 30: time nan is not a finite number > 0");
}

TEST_CASE("complexity: names and the report text", "[complexity]") {
  CHECK(complexity_name(Complexity::constant) == "O(1)");
  CHECK(complexity_name(Complexity::log_n) == "O(log n)");
  CHECK(complexity_name(Complexity::linear) == "O(n)");
  CHECK(complexity_name(Complexity::n_log_n) == "O(n log n)");
  CHECK(complexity_text({Complexity::linear, 1e-9, 0.031}) == "O(n)  err 3.1%");
  CHECK(complexity_text({Complexity::n_log_n, 1e-9, 0}) == "O(n log n)  err 0.0%");
}
