#include "compare/ratio_interval.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "compare/mann_whitney.h"
#include "stats/paired.h"  // normal_quantile
#include "stats/stats.h"

namespace storh::compare {

std::optional<RatioInterval> ratio_interval(std::span<const double> base,
                                            std::span<const double> next, double alpha) {
  auto positive = [](double v) { return std::isfinite(v) && v > 0; };
  if (base.empty() || next.empty() || !std::all_of(base.begin(), base.end(), positive) ||
      !std::all_of(next.begin(), next.end(), positive)) {
    return std::nullopt;
  }
  const std::size_t m = base.size(), n = next.size();
  if (smallest_p_value(m, n) > alpha) return std::nullopt;

  std::vector<double> differences;
  differences.reserve(m * n);
  for (const double b : base) {
    for (const double x : next) differences.push_back(std::log(x) - std::log(b));
  }
  std::sort(differences.begin(), differences.end());
  const std::size_t count = differences.size();

  // k = qwilcox(alpha / 2, m, n), at least 1: the smallest u with P(U <= u) >= alpha / 2,
  // i.e. with two-sided exact p(u) = 2 P(U <= u) >= alpha. p grows with u up to U's
  // mean, so a binary search over [0, mn / 2] needs a dozen exact_p_value calls.
  std::size_t k = 1;
  double confidence = 0;
  if (m < kExactLimit && n < kExactLimit) {
    std::size_t low = 0, high = count / 2;  // p(high) >= alpha: p at the mean is about 1
    while (low < high) {
      const std::size_t mid = low + (high - low) / 2;
      if (exact_p_value(m, n, static_cast<double>(mid)) >= alpha) {
        high = mid;
      } else {
        low = mid + 1;
      }
    }
    k = std::max<std::size_t>(1, low);
    confidence = 1 - exact_p_value(m, n, static_cast<double>(k - 1));
  } else {
    const double mn = static_cast<double>(count);
    const double sigma = std::sqrt(mn * static_cast<double>(m + n + 1) / 12);
    const double z = stats::normal_quantile(1 - alpha / 2);
    k = static_cast<std::size_t>(std::max(1.0, std::floor(mn / 2 - z * sigma)));
    confidence = 1 - alpha;
  }
  const double middle = stats::median_of_sorted(differences);
  return RatioInterval{std::exp(middle), std::exp(differences[k - 1]),
                       std::exp(differences[count - k]), confidence};
}

}  // namespace storh::compare
