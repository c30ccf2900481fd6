// ycsb/generators.h: YCSB's number generators (site.ycsb.generator), as CoreWorkload
// uses them.
//
// Each reproduces its YCSB namesake's arithmetic, quirks included (ZipfianGenerator's
// eta keeps the item count it was made with; SkewedLatestGenerator never draws 0), so
// that the key popularity matches a YCSB run. Values are Java longs (std::int64_t); a
// double becomes one as Java's (long) cast does.
//
// Randomness comes from the caller's Rng (one per thread) instead of ThreadLocalRandom.
// Threading: CounterGenerator, AcknowledgedCounterGenerator and SequentialGenerator are
// shared and thread-safe. The others keep a little state (last(), ZipfianGenerator's
// zeta) and belong to one thread; copy one to give each thread its own, which also
// copies a precomputed zeta instead of summing it again.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "ycsb/rng.h"

namespace storh::ycsb {

// YCSB's ZipfianGenerator.ZIPFIAN_CONSTANT.
inline constexpr double kZipfianConstant = 0.99;
// ScrambledZipfianGenerator's ITEM_COUNT and its precomputed zeta(ITEM_COUNT, 0.99).
inline constexpr std::int64_t kScrambledItemCount = 10000000000LL;
inline constexpr double kScrambledZetan = 26.46902820178302;

// Utils.fnvhash64: FNV-1a 64 over the 8 bytes of `value`, low byte first, then
// Math.abs of the signed result (so 2^63 stays negative, as in Java).
std::int64_t fnvhash64(std::uint64_t value) noexcept;

// Java's (long) cast: NaN is 0, out-of-range values saturate.
std::int64_t java_long(double x) noexcept;

// sum_{i=1..n} i^-theta by Euler-Maclaurin: exact terms to 1000, then the integral and
// three correction terms (relative error below 1e-15). For item counts too large to sum.
double zeta_euler_maclaurin(std::int64_t n, double theta) noexcept;

// Uniform over [lb, ub].
class UniformLongGenerator {
 public:
  UniformLongGenerator(std::int64_t lb, std::int64_t ub) noexcept
      : lb_(lb), ub_(ub), interval_(ub - lb + 1) {}
  std::int64_t next(Rng& rng) noexcept;
  std::int64_t last() const noexcept { return last_; }
  double mean() const noexcept { return (static_cast<double>(lb_) + static_cast<double>(ub_)) / 2; }

 private:
  std::int64_t lb_, ub_, interval_;
  std::int64_t last_ = 0;
};

// Always `value`.
class ConstantIntegerGenerator {
 public:
  explicit ConstantIntegerGenerator(std::int64_t value) noexcept : value_(value) {}
  std::int64_t next(Rng&) const noexcept { return value_; }
  std::int64_t last() const noexcept { return value_; }
  double mean() const noexcept { return static_cast<double>(value_); }

 private:
  std::int64_t value_;
};

// Zipf over [min, max] by Gray et al.'s method ("Quickly Generating Billion-Record
// Synthetic Databases", SIGMOD 1994): the first two items have exactly their zipf
// probability, the rest follow a continuous approximation of it. Item `min` is the
// most popular. YCSB gives no mean() (it throws); nor do we.
class ZipfianGenerator {
 public:
  // Sums zeta over the max - min + 1 items (O(items) calls to pow).
  ZipfianGenerator(std::int64_t min, std::int64_t max, double constant = kZipfianConstant);
  // With zeta(max - min + 1, constant) already known.
  ZipfianGenerator(std::int64_t min, std::int64_t max, double constant, double zetan);

  std::int64_t next(Rng& rng) { return next_long(rng, items_); }
  // A draw over `itemcount` items. When `itemcount` has grown since the last call, zeta
  // is extended incrementally (only the new terms are summed); a smaller count keeps
  // the larger zeta, as YCSB does unless told otherwise.
  std::int64_t next_long(Rng& rng, std::int64_t itemcount);
  std::int64_t last() const noexcept { return last_; }

  std::int64_t items() const noexcept { return items_; }
  double zetan() const noexcept { return zetan_; }
  double theta() const noexcept { return theta_; }

  // sum_{i=st..n-1} 1/(i+1)^theta, added to initialsum.
  static double zeta_static(std::int64_t st, std::int64_t n, double theta, double initialsum);
  static double zeta_static(std::int64_t n, double theta) { return zeta_static(0, n, theta, 0); }

 private:
  std::int64_t items_, base_;
  double theta_, zeta2theta_, alpha_, zetan_, eta_;
  std::int64_t countforzeta_;
  std::int64_t last_ = 0;
};

// Zipf popularity spread over [min, max]: a ZipfianGenerator over kScrambledItemCount
// items, its draw FNV-hashed and taken modulo the item count, so the popular items are
// scattered instead of clustered at `min`. With the default constant zeta is the
// precomputed kScrambledZetan; with another it comes from zeta_euler_maclaurin
// (YCSB sums 10^10 terms instead).
class ScrambledZipfianGenerator {
 public:
  ScrambledZipfianGenerator(std::int64_t min, std::int64_t max, double constant = kZipfianConstant);
  std::int64_t next(Rng& rng);
  std::int64_t last() const noexcept { return last_; }
  double mean() const noexcept {
    return (static_cast<double>(min_) + static_cast<double>(max_)) / 2;
  }

 private:
  ZipfianGenerator gen_;
  std::int64_t min_, max_, itemcount_;
  std::int64_t last_ = 0;
};

// start, start + 1, ... shared by every thread (an atomic counter).
class CounterGenerator {
 public:
  explicit CounterGenerator(std::int64_t start) noexcept : counter_(start) {}
  virtual ~CounterGenerator() = default;
  CounterGenerator(const CounterGenerator&) = delete;
  CounterGenerator& operator=(const CounterGenerator&) = delete;

  std::int64_t next() noexcept { return counter_.fetch_add(1); }
  // The last value handed out (start - 1 before the first).
  virtual std::int64_t last_value() const noexcept { return counter_.load() - 1; }

 private:
  std::atomic<std::int64_t> counter_;
};

// A counter whose last_value() is the highest value below which every value handed
// out has been acknowledged: readers pick keys up to it and never a key whose insert
// is still in flight. YCSB's windowed implementation: acknowledgements land in a ring
// of kWindowSize slots and the thread that wins a try-lock moves the limit over the
// contiguous run. Unlike YCSB, a thread that leaves the lock re-checks the slot after
// the limit, so a value acknowledged while another thread held the lock is never
// stranded until the next acknowledgement.
class AcknowledgedCounterGenerator : public CounterGenerator {
 public:
  static constexpr std::int64_t kWindowSize = std::int64_t{1} << 20;

  explicit AcknowledgedCounterGenerator(std::int64_t start);

  // Marks `value` (from next()) done; acknowledge every value, whether or not its insert
  // succeeded, or the limit stops there. Returns false, ignoring it, when `value`'s
  // slot is still taken: more than kWindowSize values unacknowledged (YCSB throws).
  bool acknowledge(std::int64_t value) noexcept;
  std::int64_t last_value() const noexcept override { return limit_.load(); }

 private:
  std::unique_ptr<std::atomic<bool>[]> window_;
  std::atomic<bool> locked_{false};
  std::atomic<std::int64_t> limit_;
};

// Recent values are popular: basis.last_value() minus a zipfian draw over
// basis.last_value() items, so the latest value is the most likely and 0 is never
// drawn (as in YCSB). `basis` must outlive it.
class SkewedLatestGenerator {
 public:
  explicit SkewedLatestGenerator(const CounterGenerator& basis, double constant = kZipfianConstant);
  std::int64_t next(Rng& rng);
  std::int64_t last() const noexcept { return last_; }

 private:
  const CounterGenerator* basis_;
  ZipfianGenerator zipfian_;
  std::int64_t last_ = 0;
};

// The first hotsetfraction of [lb, ub] gets hotopnfraction of the draws, uniformly; the
// rest gets the others. As YCSB: a fraction outside [0, 1] becomes 0 and swapped bounds
// are put in order. Unlike YCSB (which divides by zero), an empty hot or cold set
// sends every draw to the other one.
class HotspotIntegerGenerator {
 public:
  HotspotIntegerGenerator(std::int64_t lb, std::int64_t ub, double hotsetfraction,
                          double hotopnfraction) noexcept;
  std::int64_t next(Rng& rng) noexcept;
  std::int64_t last() const noexcept { return last_; }
  double mean() const noexcept;

 private:
  std::int64_t lb_, hot_interval_, cold_interval_;
  double hotset_fraction_, hotopn_fraction_;
  std::int64_t last_ = 0;
};

// Exponential with `percentile` percent of its draws below `range`:
// gamma = -ln(1 - percentile/100) / range, a draw is -ln(U) / gamma.
class ExponentialGenerator {
 public:
  ExponentialGenerator(double percentile, double range) noexcept;
  double next(Rng& rng) noexcept;
  double last() const noexcept { return last_; }
  double mean() const noexcept { return 1.0 / gamma_; }
  double gamma() const noexcept { return gamma_; }

 private:
  double gamma_;
  double last_ = 0;
};

// start, start + 1, ..., end, start, ... shared by every thread (an atomic counter).
class SequentialGenerator {
 public:
  SequentialGenerator(std::int64_t start, std::int64_t end) noexcept
      : start_(start), interval_(end - start + 1) {}
  SequentialGenerator(const SequentialGenerator&) = delete;
  SequentialGenerator& operator=(const SequentialGenerator&) = delete;
  std::int64_t next() noexcept { return start_ + counter_.fetch_add(1) % interval_; }

 private:
  std::int64_t start_, interval_;
  std::atomic<std::int64_t> counter_{0};
};

// One of the values added, each with probability weight / (sum of weights), picked as
// YCSB does (a linear walk over the values in the order added). next() is const and
// thread-safe once every value is added; it needs at least one value.
template <typename T>
class DiscreteGenerator {
 public:
  void add_value(double weight, T value) {
    values_.emplace_back(weight, std::move(value));
    sum_ += weight;
  }

  const T& next(Rng& rng) const {
    double val = rng.next_double();
    for (const auto& [weight, value] : values_) {
      const double pw = weight / sum_;
      if (val < pw) return value;
      val -= pw;
    }
    // Only rounding gets here (YCSB throws); the last value is the one it fell short of.
    return values_.back().second;
  }

  const std::vector<std::pair<double, T>>& values() const noexcept { return values_; }

 private:
  std::vector<std::pair<double, T>> values_;
  double sum_ = 0;
};

}  // namespace storh::ycsb
