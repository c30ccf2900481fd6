#include "compare/mann_whitney.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include <fmt/format.h>

namespace storh::compare {
namespace {

struct Pooled {
  std::vector<double> values;  // a then b
  bool ties = false;
  double tie_term = 0;  // sum over tie groups of t^3 - t
};

Pooled pool(std::span<const double> a, std::span<const double> b) {
  Pooled pooled;
  pooled.values.assign(a.begin(), a.end());
  pooled.values.insert(pooled.values.end(), b.begin(), b.end());
  std::vector<double> sorted = pooled.values;
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t i = 0; i < sorted.size();) {
    std::size_t j = i;
    while (j < sorted.size() && sorted[j] == sorted[i]) ++j;
    const auto t = static_cast<double>(j - i);
    pooled.tie_term += t * t * t - t;
    pooled.ties = pooled.ties || j - i > 1;
    i = j;
  }
  return pooled;
}

// counts[u] = number of arrangements of n1 + n2 distinct values with U = u, by the
// recurrence in the header, one layer per size of the first sample. Doubles: the
// counts (up to C(98, 49) ~ 2.5e28) are only added, so relative error stays ~1e-15.
std::vector<double> exact_counts(std::size_t n1, std::size_t n2) {
  const std::size_t width = n1 * n2 + 1;
  // previous[j * width + u] = c(i - 1, j, u); current likewise for i.
  std::vector<double> previous((n2 + 1) * width, 0.0), current((n2 + 1) * width, 0.0);
  for (std::size_t j = 0; j <= n2; ++j) previous[j * width] = 1;  // c(0, j, 0) = 1
  for (std::size_t i = 1; i <= n1; ++i) {
    std::fill(current.begin(), current.end(), 0.0);
    current[0] = 1;  // c(i, 0, 0) = 1
    for (std::size_t j = 1; j <= n2; ++j) {
      for (std::size_t u = 0; u <= i * j; ++u) {
        const double largest_in_first = u >= j ? previous[j * width + u - j] : 0.0;
        const double largest_in_second = current[(j - 1) * width + u];
        current[j * width + u] = largest_in_first + largest_in_second;
      }
    }
    std::swap(previous, current);
  }
  return {previous.begin() + static_cast<std::ptrdiff_t>(n2 * width), previous.end()};
}

}  // namespace

double mann_whitney_u(std::span<const double> a, std::span<const double> b) {
  const Pooled pooled = pool(a, b);
  std::vector<std::size_t> order(pooled.values.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(),
            [&](std::size_t x, std::size_t y) { return pooled.values[x] < pooled.values[y]; });
  double rank_sum_a = 0;
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    while (j < order.size() && pooled.values[order[j]] == pooled.values[order[i]]) ++j;
    const double mid_rank = static_cast<double>(i + 1 + j) / 2.0;  // ranks i+1 .. j
    for (std::size_t k = i; k < j; ++k) {
      if (order[k] < a.size()) rank_sum_a += mid_rank;
    }
    i = j;
  }
  const auto n1 = static_cast<double>(a.size());
  return rank_sum_a - n1 * (n1 + 1) / 2;
}

double exact_p_value(std::size_t n1, std::size_t n2, double u) {
  const std::vector<double> counts = exact_counts(n1, n2);
  const double total = std::accumulate(counts.begin(), counts.end(), 0.0);
  const double mean = static_cast<double>(n1 * n2) / 2.0;
  const auto observed = static_cast<std::size_t>(std::llround(std::max(0.0, u)));
  double tail = 0;
  if (u <= mean) {
    for (std::size_t k = 0; k <= observed && k < counts.size(); ++k) tail += counts[k];
  } else {
    for (std::size_t k = observed; k < counts.size(); ++k) tail += counts[k];
  }
  return std::min(1.0, 2.0 * tail / total);
}

double normal_p_value(std::span<const double> a, std::span<const double> b, double u) {
  const Pooled pooled = pool(a, b);
  const auto n1 = static_cast<double>(a.size());
  const auto n2 = static_cast<double>(b.size());
  const double n = n1 + n2;
  const double variance = n1 * n2 / 12.0 * ((n + 1) - pooled.tie_term / (n * (n - 1)));
  if (!(variance > 0)) return 1.0;  // every value equal: no evidence either way
  const double difference = u - n1 * n2 / 2.0;
  const double corrected = difference - (difference > 0 ? 0.5 : difference < 0 ? -0.5 : 0.0);
  const double z = corrected / std::sqrt(variance);
  return std::min(1.0, std::erfc(std::fabs(z) / std::sqrt(2.0)));
}

double smallest_p_value(std::size_t n1, std::size_t n2) {
  if (n1 == 0 || n2 == 0) return 1.0;
  double arrangements = 1;  // C(n1 + n2, n1), built as a running product
  for (std::size_t k = 1; k <= n1; ++k) {
    arrangements = arrangements * static_cast<double>(n2 + k) / static_cast<double>(k);
  }
  return std::min(1.0, 2.0 / arrangements);
}

std::size_t min_samples_per_side(double alpha) {
  std::size_t n = 1;
  while (smallest_p_value(n, n) > alpha && n < 1000) ++n;
  return n;
}

std::string too_few_samples_text(double alpha) {
  return fmt::format("too few samples (need >= {} per side)", min_samples_per_side(alpha));
}

std::optional<MannWhitney> mann_whitney(std::span<const double> a, std::span<const double> b,
                                        double alpha) {
  if (smallest_p_value(a.size(), b.size()) > alpha) return std::nullopt;
  MannWhitney result;
  result.u = mann_whitney_u(a, b);
  result.exact = a.size() < kExactLimit && b.size() < kExactLimit && !pool(a, b).ties;
  result.p_value =
      result.exact ? exact_p_value(a.size(), b.size(), result.u) : normal_p_value(a, b, result.u);
  return result;
}

}  // namespace storh::compare
