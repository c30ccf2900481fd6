#include "stats/complexity.h"

#include <cmath>
#include <limits>
#include <vector>

#include <fmt/format.h>

namespace storh::stats {
namespace {

// The relative RMS error of t = c * f(n) at its best c, and that c.
struct ModelFit {
  double coefficient = 0;
  double relative_error = std::numeric_limits<double>::infinity();
};

ModelFit fit_model(Complexity model, std::span<const SizeTime> points) {
  double sum_ratio = 0, sum_ratio_squared = 0;
  for (const SizeTime& p : points) {
    const double ratio = complexity_term(model, static_cast<double>(p.n)) / p.seconds;
    sum_ratio += ratio;
    sum_ratio_squared += ratio * ratio;
  }
  ModelFit fit;
  // All f(n_i) = 0 (only possible for the log models with n = 1 alone, which the
  // distinct-size rule excludes) leaves c = 0: every residual is then 100%.
  fit.coefficient = sum_ratio_squared > 0 ? sum_ratio / sum_ratio_squared : 0;
  double sum_squares = 0;
  for (const SizeTime& p : points) {
    const double predicted = fit.coefficient * complexity_term(model, static_cast<double>(p.n));
    const double residual = (p.seconds - predicted) / p.seconds;
    sum_squares += residual * residual;
  }
  fit.relative_error = std::sqrt(sum_squares / static_cast<double>(points.size()));
  return fit;
}

std::string check_points(std::span<const SizeTime> points) {
  if (points.size() < kMinComplexitySizes) {
    return fmt::format("too few sizes: {} (a fit needs {})", points.size(), kMinComplexitySizes);
  }
  std::vector<std::uint64_t> seen;
  for (const SizeTime& p : points) {
    if (p.n == 0) return "size 0: a dataset size must be >= 1";
    for (std::uint64_t n : seen) {
      if (n == p.n) return fmt::format("size {} is given twice", p.n);
    }
    seen.push_back(p.n);
    if (!std::isfinite(p.seconds) || !(p.seconds > 0)) {
      return fmt::format("size {}: time {} is not a finite number > 0", p.n, p.seconds);
    }
  }
  return {};
}

}  // namespace

std::string_view complexity_name(Complexity model) {
  switch (model) {
    case Complexity::constant:
      return "O(1)";
    case Complexity::log_n:
      return "O(log n)";
    case Complexity::linear:
      return "O(n)";
    case Complexity::n_log_n:
      return "O(n log n)";
  }
  return "O(?)";
}

double complexity_term(Complexity model, double n) {
  switch (model) {
    case Complexity::constant:
      return 1;
    case Complexity::log_n:
      return std::log(n);
    case Complexity::linear:
      return n;
    case Complexity::n_log_n:
      return n * std::log(n);
  }
  return 1;
}

Expected<ComplexityFit> fit_complexity(std::span<const SizeTime> points) {
  if (std::string error = check_points(points); !error.empty()) return Error{std::move(error)};
  ComplexityFit best;
  double best_error = std::numeric_limits<double>::infinity();
  for (Complexity model : kComplexityModels) {
    const ModelFit fit = fit_model(model, points);
    // Strictly smaller: on a tie the simpler model, listed first, stays.
    if (fit.relative_error < best_error) {
      best_error = fit.relative_error;
      best = {model, fit.coefficient, fit.relative_error};
    }
  }
  return best;
}

std::string complexity_text(const ComplexityFit& fit) {
  return fmt::format("{}  err {:.1f}%", complexity_name(fit.model), fit.relative_error * 100);
}

}  // namespace storh::stats
