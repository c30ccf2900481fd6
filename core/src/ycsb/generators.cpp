#include "ycsb/generators.h"

#include <cmath>
#include <limits>

namespace storh::ycsb {

std::int64_t fnvhash64(std::uint64_t value) noexcept {
  constexpr std::uint64_t kOffsetBasis = 0xCBF29CE484222325ULL;
  constexpr std::uint64_t kPrime = 1099511628211ULL;
  std::uint64_t hash = kOffsetBasis;
  for (int i = 0; i < 8; ++i) {
    hash ^= value & 0xff;
    hash *= kPrime;
    value >>= 8;
  }
  // Math.abs on a long: negate in two's complement, so Long.MIN_VALUE stays itself.
  const auto hashed = static_cast<std::int64_t>(hash);
  return hashed < 0 ? static_cast<std::int64_t>(0 - hash) : hashed;
}

std::int64_t java_long(double x) noexcept {
  if (std::isnan(x)) return 0;
  // 2^63 is exact in a double; anything at or above it saturates, as in Java.
  if (x >= 9223372036854775808.0) return std::numeric_limits<std::int64_t>::max();
  if (x <= -9223372036854775808.0) return std::numeric_limits<std::int64_t>::min();
  return static_cast<std::int64_t>(x);
}

double zeta_euler_maclaurin(std::int64_t n, double theta) noexcept {
  constexpr std::int64_t kExact = 1000;
  if (n <= 4 * kExact) return ZipfianGenerator::zeta_static(n, theta);
  // sum_{i=1}^{m-1} f(i), then sum_{i=m}^{n} f(i) by Euler-Maclaurin for f(x) = x^-s.
  const double s = theta;
  const auto m = static_cast<double>(kExact);
  const auto nd = static_cast<double>(n);
  double sum = ZipfianGenerator::zeta_static(kExact - 1, theta);
  auto power = [](double x, double e) { return std::pow(x, e); };
  sum +=
      std::abs(1 - s) < 1e-12 ? std::log(nd / m) : (power(nd, 1 - s) - power(m, 1 - s)) / (1 - s);
  sum += (power(m, -s) + power(nd, -s)) / 2;
  // B2/2! (f'(n) - f'(m)), B4/4! (f'''(n) - f'''(m)), B6/6! (f^(5)(n) - f^(5)(m)).
  const double d1 = -s;
  const double d3 = -s * (s + 1) * (s + 2);
  const double d5 = d3 * (s + 3) * (s + 4);
  sum += (d1 * (power(nd, -s - 1) - power(m, -s - 1))) / 12;
  sum -= (d3 * (power(nd, -s - 3) - power(m, -s - 3))) / 720;
  sum += (d5 * (power(nd, -s - 5) - power(m, -s - 5))) / 30240;
  return sum;
}

std::int64_t UniformLongGenerator::next(Rng& rng) noexcept {
  last_ = rng.next_nonnegative() % interval_ + lb_;
  return last_;
}

ZipfianGenerator::ZipfianGenerator(std::int64_t min, std::int64_t max, double constant)
    : ZipfianGenerator(min, max, constant, zeta_static(max - min + 1, constant)) {}

ZipfianGenerator::ZipfianGenerator(std::int64_t min, std::int64_t max, double constant,
                                   double zetan)
    : items_(max - min + 1),
      base_(min),
      theta_(constant),
      zeta2theta_(zeta_static(2, constant)),
      alpha_(1.0 / (1.0 - constant)),
      zetan_(zetan),
      eta_((1 - std::pow(2.0 / static_cast<double>(items_), 1 - theta_)) /
           (1 - zeta2theta_ / zetan_)),
      countforzeta_(items_) {}

double ZipfianGenerator::zeta_static(std::int64_t st, std::int64_t n, double theta,
                                     double initialsum) {
  double sum = initialsum;
  for (std::int64_t i = st; i < n; ++i) sum += 1 / std::pow(static_cast<double>(i + 1), theta);
  return sum;
}

std::int64_t ZipfianGenerator::next_long(Rng& rng, std::int64_t itemcount) {
  if (itemcount > countforzeta_) {
    zetan_ = zeta_static(countforzeta_, itemcount, theta_, zetan_);
    countforzeta_ = itemcount;
    // YCSB recomputes eta from the original item count, not the new one; kept so the
    // draws match its.
    eta_ =
        (1 - std::pow(2.0 / static_cast<double>(items_), 1 - theta_)) / (1 - zeta2theta_ / zetan_);
  }
  const double u = rng.next_double();
  const double uz = u * zetan_;
  if (uz < 1.0) return base_;
  if (uz < 1.0 + std::pow(0.5, theta_)) return base_ + 1;
  last_ = base_ + java_long(static_cast<double>(itemcount) * std::pow(eta_ * u - eta_ + 1, alpha_));
  return last_;
}

ScrambledZipfianGenerator::ScrambledZipfianGenerator(std::int64_t min, std::int64_t max,
                                                     double constant)
    // As YCSB: the inner generator spans 0..kScrambledItemCount, one item more than the
    // count its zeta was computed for.
    : gen_(0, kScrambledItemCount, constant,
           constant == kZipfianConstant ? kScrambledZetan
                                        : zeta_euler_maclaurin(kScrambledItemCount + 1, constant)),
      min_(min),
      max_(max),
      itemcount_(max - min + 1) {}

std::int64_t ScrambledZipfianGenerator::next(Rng& rng) {
  const std::int64_t drawn = gen_.next(rng);
  last_ = min_ + fnvhash64(static_cast<std::uint64_t>(drawn)) % itemcount_;
  return last_;
}

AcknowledgedCounterGenerator::AcknowledgedCounterGenerator(std::int64_t start)
    : CounterGenerator(start),
      window_(std::make_unique<std::atomic<bool>[]>(kWindowSize)),
      limit_(start - 1) {}

bool AcknowledgedCounterGenerator::acknowledge(std::int64_t value) noexcept {
  constexpr std::int64_t kMask = kWindowSize - 1;
  if (window_[value & kMask].exchange(true)) return false;
  // Every operation here is sequentially consistent: a thread that fails the try-lock
  // has stored its slot before the holder's unlock, so the holder's re-check after
  // unlocking sees it and moves on (or a later holder does).
  for (;;) {
    if (locked_.exchange(true)) return true;
    std::int64_t limit = limit_.load();
    for (std::int64_t steps = 0; steps < kWindowSize; ++steps) {
      std::atomic<bool>& slot = window_[(limit + 1) & kMask];
      if (!slot.load()) break;
      slot.store(false);
      ++limit;
    }
    limit_.store(limit);
    locked_.store(false);
    if (!window_[(limit + 1) & kMask].load()) return true;
  }
}

SkewedLatestGenerator::SkewedLatestGenerator(const CounterGenerator& basis, double constant)
    : basis_(&basis), zipfian_(0, basis.last_value() - 1, constant) {}

std::int64_t SkewedLatestGenerator::next(Rng& rng) {
  const std::int64_t max = basis_->last_value();
  last_ = max - zipfian_.next_long(rng, max);
  return last_;
}

HotspotIntegerGenerator::HotspotIntegerGenerator(std::int64_t lb, std::int64_t ub,
                                                 double hotsetfraction,
                                                 double hotopnfraction) noexcept {
  if (!(hotsetfraction >= 0.0 && hotsetfraction <= 1.0)) hotsetfraction = 0.0;
  if (!(hotopnfraction >= 0.0 && hotopnfraction <= 1.0)) hotopnfraction = 0.0;
  if (lb > ub) std::swap(lb, ub);
  lb_ = lb;
  hotset_fraction_ = hotsetfraction;
  hotopn_fraction_ = hotopnfraction;
  const std::int64_t interval = ub - lb + 1;
  // YCSB's (int) cast of interval * fraction; the fraction is at most 1, so it fits.
  hot_interval_ = java_long(static_cast<double>(interval) * hotsetfraction);
  cold_interval_ = interval - hot_interval_;
}

std::int64_t HotspotIntegerGenerator::next(Rng& rng) noexcept {
  const bool hot = rng.next_double() < hotopn_fraction_;
  if ((hot && hot_interval_ > 0) || cold_interval_ == 0) {
    last_ = lb_ + rng.next_nonnegative() % hot_interval_;
  } else {
    last_ = lb_ + hot_interval_ + rng.next_nonnegative() % cold_interval_;
  }
  return last_;
}

double HotspotIntegerGenerator::mean() const noexcept {
  const auto lb = static_cast<double>(lb_);
  const auto hot = static_cast<double>(hot_interval_);
  const auto cold = static_cast<double>(cold_interval_);
  return hotopn_fraction_ * (lb + hot / 2.0) + (1 - hotopn_fraction_) * (lb + hot + cold / 2.0);
}

ExponentialGenerator::ExponentialGenerator(double percentile, double range) noexcept
    : gamma_(-std::log(1.0 - percentile / 100.0) / range) {}

double ExponentialGenerator::next(Rng& rng) noexcept {
  last_ = -std::log(rng.next_double()) / gamma_;
  return last_;
}

}  // namespace storh::ycsb
