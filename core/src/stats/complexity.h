// stats/complexity.h: which of O(1), O(log n), O(n) and O(n log n) best describes how
// a time grows with the dataset size, given one time per size (the median of a range
// run's cells).
//
// Each model t(n) = c * f(n) is fitted by least squares on the relative residuals
// r_i = (t_i - c f(n_i)) / t_i, which has the closed form
//   c = sum(f_i / t_i) / sum((f_i / t_i)^2).
// Relative rather than absolute residuals, because timing noise is proportional to
// the time and range sizes span orders of magnitude: an absolute fit lets the largest
// size alone decide the model. The model with the smallest relative RMS error,
// sqrt(mean(r_i^2)), wins; a tie goes to the simpler model. log is the natural
// logarithm (the base only scales c), so f(1) = 0 for the two log models.
//
// Everything here is a pure function: no state, safe from any thread.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "util/expected.h"

namespace storh::stats {

// Simplest first: the order in which ties are broken.
enum class Complexity { constant, log_n, linear, n_log_n };

inline constexpr std::array<Complexity, 4> kComplexityModels = {
    Complexity::constant, Complexity::log_n, Complexity::linear, Complexity::n_log_n};

// Fewer sizes than this cannot tell the models apart: any two points fit O(1) with
// some c as well as they fit anything else once noise is allowed for.
inline constexpr std::size_t kMinComplexitySizes = 3;

// One measured point: dataset size and the (median) seconds at that size.
struct SizeTime {
  std::uint64_t n = 0;
  double seconds = 0;
};

struct ComplexityFit {
  Complexity model = Complexity::constant;
  double coefficient = 0;     // c, in seconds per unit of f(n)
  double relative_error = 0;  // relative RMS error of the chosen model: 0.031 is 3.1%
};

// "O(1)", "O(log n)", "O(n)", "O(n log n)".
std::string_view complexity_name(Complexity model);

// f(n) of the model: 1, ln n, n or n ln n.
double complexity_term(Complexity model, double n);

// Fits every model to `points` (any order) and returns the best. Errors, as values:
// fewer than kMinComplexitySizes points ("too few sizes: 2 (a fit needs 3)"), a size
// given twice or a size of 0, a time that is not finite and > 0. The message names
// the offending size.
Expected<ComplexityFit> fit_complexity(std::span<const SizeTime> points);

// The fit as the report prints it: "O(n)  err 3.1%".
std::string complexity_text(const ComplexityFit& fit);

}  // namespace storh::stats
