#include "stats/change_points.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "stats/stats.h"

namespace storh::stats {
namespace {

double mean_of(std::span<const double> values) {
  return std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
}

double variance_of(std::span<const double> values, double mean) {
  double sum = 0;
  for (const double v : values) sum += (v - mean) * (v - mean);
  return sum / static_cast<double>(values.size() - 1);
}

// Continued fraction of the incomplete beta function (modified Lentz).
double beta_fraction(double a, double b, double x) {
  constexpr double kTiny = 1e-300;
  constexpr double kEpsilon = 1e-15;
  auto guard = [](double v) { return std::fabs(v) < kTiny ? kTiny : v; };
  double c = 1;
  double d = 1 / guard(1 - (a + b) * x / (a + 1));
  double h = d;
  for (int m = 1; m <= 500; ++m) {
    const double md = m;
    double term = md * (b - md) * x / ((a + 2 * md - 1) * (a + 2 * md));
    d = 1 / guard(1 + term * d);
    c = guard(1 + term / c);
    h *= d * c;
    term = -(a + md) * (a + b + md) * x / ((a + 2 * md) * (a + 2 * md + 1));
    d = 1 / guard(1 + term * d);
    c = guard(1 + term / c);
    const double step = d * c;
    h *= step;
    if (std::fabs(step - 1) < kEpsilon) break;
  }
  return h;
}

// The largest-Q split of `segment` with at least `min_segment` points on each side;
// 0 when there is none. O(n^2): the sums are updated as the split moves right.
std::size_t best_split(std::span<const double> s, std::size_t min_segment) {
  const std::size_t size = s.size();
  if (size < 2 * min_segment) return 0;
  const std::size_t first = min_segment;
  double within_x = 0, within_y = 0, between = 0;
  for (std::size_t i = 0; i < size; ++i) {
    for (std::size_t j = i + 1; j < size; ++j) {
      const double d = std::fabs(s[i] - s[j]);
      if (j < first) {
        within_x += d;
      } else if (i >= first) {
        within_y += d;
      } else {
        between += d;
      }
    }
  }
  std::size_t best = 0;
  double best_q = -std::numeric_limits<double>::infinity();
  for (std::size_t split = first; split + min_segment <= size; ++split) {
    if (split > first) {  // point split - 1 moved from Y to X
      const double p = s[split - 1];
      double to_x = 0, to_y = 0;
      for (std::size_t i = 0; i + 1 < split; ++i) to_x += std::fabs(s[i] - p);
      for (std::size_t j = split; j < size; ++j) to_y += std::fabs(s[j] - p);
      within_x += to_x;
      within_y -= to_y;
      between += to_y - to_x;
    }
    const double m = static_cast<double>(split), n = static_cast<double>(size - split);
    const double e =
        2 * between / (m * n) - within_x / (m * (m - 1) / 2) - within_y / (n * (n - 1) / 2);
    const double q = m * n / (m + n) * e;
    if (q > best_q) {
      best_q = q;
      best = split;
    }
  }
  return best;
}

void segment_search(std::span<const double> series, std::size_t begin, std::size_t end,
                    const ChangePointOptions& options, std::vector<std::size_t>& found) {
  const std::span<const double> segment = series.subspan(begin, end - begin);
  const std::size_t split = best_split(segment, options.min_segment);
  if (split == 0) return;
  if (welch_p_value(segment.first(split), segment.subspan(split)) >= options.max_p_value) return;
  found.push_back(begin + split);
  segment_search(series, begin, begin + split, options, found);
  segment_search(series, begin + split, end, options, found);
}

}  // namespace

double incomplete_beta(double a, double b, double x) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const double front = std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) +
                                a * std::log(x) + b * std::log1p(-x));
  if (x < (a + 1) / (a + b + 2)) return front * beta_fraction(a, b, x) / a;
  return 1 - front * beta_fraction(b, a, 1 - x) / b;
}

double welch_p_value(std::span<const double> a, std::span<const double> b) {
  if (a.size() < 2 || b.size() < 2) return 1;
  const double na = static_cast<double>(a.size()), nb = static_cast<double>(b.size());
  const double ma = mean_of(a), mb = mean_of(b);
  const double va = variance_of(a, ma) / na, vb = variance_of(b, mb) / nb;
  const double se2 = va + vb;
  if (!(se2 > 0)) return ma == mb ? 1 : 0;
  const double t = (ma - mb) / std::sqrt(se2);
  const double df = se2 * se2 / (va * va / (na - 1) + vb * vb / (nb - 1));
  return incomplete_beta(df / 2, 0.5, df / (df + t * t));
}

double divisive_q(std::span<const double> s, std::size_t split) {
  double within_x = 0, within_y = 0, between = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    for (std::size_t j = i + 1; j < s.size(); ++j) {
      const double d = std::fabs(s[i] - s[j]);
      (j < split ? within_x : i >= split ? within_y : between) += d;
    }
  }
  const double m = static_cast<double>(split), n = static_cast<double>(s.size() - split);
  const double x_term = m > 1 ? within_x / (m * (m - 1) / 2) : 0;
  const double y_term = n > 1 ? within_y / (n * (n - 1) / 2) : 0;
  return m * n / (m + n) * (2 * between / (m * n) - x_term - y_term);
}

std::vector<ChangePoint> find_change_points(std::span<const double> series,
                                            const ChangePointOptions& given) {
  ChangePointOptions options = given;
  options.min_segment = std::max<std::size_t>(2, options.min_segment);
  std::vector<std::size_t> found;
  segment_search(series, 0, series.size(), options, found);
  std::sort(found.begin(), found.end());

  // Re-test each against its neighbours' segments; drop the weakest failing one.
  auto segments = [&](std::size_t i) {
    const std::size_t begin = i == 0 ? 0 : found[i - 1];
    const std::size_t end = i + 1 == found.size() ? series.size() : found[i + 1];
    return std::pair{series.subspan(begin, found[i] - begin),
                     series.subspan(found[i], end - found[i])};
  };
  for (;;) {
    std::size_t weakest = found.size();
    double weakest_p = options.max_p_value;
    for (std::size_t i = 0; i < found.size(); ++i) {
      const auto [before, after] = segments(i);
      const double p = welch_p_value(before, after);
      if (p >= weakest_p) {
        weakest_p = p;
        weakest = i;
      }
    }
    if (weakest == found.size()) break;
    found.erase(found.begin() + static_cast<std::ptrdiff_t>(weakest));
  }

  std::vector<ChangePoint> points;
  for (std::size_t i = 0; i < found.size(); ++i) {
    const auto [before, after] = segments(i);
    points.push_back({found[i], welch_p_value(before, after), mean_of(before), mean_of(after),
                      median_of(std::vector<double>(before.begin(), before.end())),
                      median_of(std::vector<double>(after.begin(), after.end()))});
  }
  return points;
}

}  // namespace storh::stats
