// YCSB's generators (core/src/ycsb/generators.h) against their distributions. Sources
// of the expected numbers:
//   [java]  YCSB's formulas (site.ycsb.generator.*), re-derived in this file.
//   [py]    Python 3: FNV-1a 64 written out from its definition; chi-square quantiles
//           at p = 0.001 from the regularized incomplete gamma function (bisection).
// Every statistical test uses a fixed seed and a p = 0.001 critical value, so it is
// deterministic: a failure means a changed distribution, not bad luck.
//
// Gray's zipfian method gives items 0 and 1 exactly their zipf probability and the
// others a continuous approximation (item 2 of 1,000 at theta 0.99: 5.10% against
// zipf's 4.36%). A chi-square against the exact zipf pmf would reject YCSB's own
// generator, so the zipfian tests use the pmf of Gray's method, derived below, and
// check items 0 and 1 against the exact zipf values.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <thread>
#include <vector>

#include "ycsb/generators.h"

namespace storh::ycsb::generators_test {
namespace {

constexpr int kDraws = 1000000;
constexpr std::uint64_t kSeed = 20240521;

// Chi-square quantiles at p = 0.001 [py].
constexpr double kChi2Df30 = 59.703;
constexpr double kChi2Df99 = 148.230;
constexpr double kChi2Df998 = 1141.779;
constexpr double kChi2Df999 = 1142.848;
double chi_square(const std::vector<std::int64_t>& observed, const std::vector<double>& p,
                  double draws) {
  double sum = 0;
  for (std::size_t i = 0; i < observed.size(); ++i) {
    const double expected = p[i] * draws;
    const double d = static_cast<double>(observed[i]) - expected;
    sum += d * d / expected;
  }
  return sum;
}

double exact_zeta(std::int64_t n, double theta) {
  double sum = 0;
  for (std::int64_t i = 1; i <= n; ++i) sum += std::pow(static_cast<double>(i), -theta);
  return sum;
}

// The pmf of ZipfianGenerator over n items [java]: u < 1/zeta gives 0, u < (1 +
// 0.5^theta)/zeta gives 1, else floor(n (eta u - eta + 1)^alpha), so for k >= 3
// P(X < k) = 1 - (1 - (k/n)^(1-theta)) / eta.
std::vector<double> gray_zipf_pmf(std::int64_t n, double theta) {
  const double zetan = exact_zeta(n, theta);
  const double zeta2 = 1 + std::pow(0.5, theta);
  const double nd = static_cast<double>(n);
  const double eta = (1 - std::pow(2.0 / nd, 1 - theta)) / (1 - zeta2 / zetan);
  auto below = [&](std::int64_t k) {  // P(X < k)
    if (k <= 0) return 0.0;
    if (k == 1) return 1 / zetan;
    if (k == 2) return zeta2 / zetan;
    return 1 - (1 - std::pow(static_cast<double>(k) / nd, 1 - theta)) / eta;
  };
  std::vector<double> pmf(static_cast<std::size_t>(n));
  for (std::int64_t k = 0; k < n; ++k) pmf[static_cast<std::size_t>(k)] = below(k + 1) - below(k);
  return pmf;
}

// FNV-1a 64 as YCSB's Utils.fnvhash64, written out independently [java].
std::int64_t reference_fnv(std::uint64_t v) {
  std::uint64_t h = 0xCBF29CE484222325ULL;
  for (int i = 0; i < 8; ++i) {
    h ^= (v >> (8 * i)) & 0xffU;
    h *= 1099511628211ULL;
  }
  const auto s = static_cast<std::int64_t>(h);
  return s < 0 ? -s : s;  // no input here hashes to 2^63
}

}  // namespace

TEST_CASE("ycsb: fnvhash64 is FNV-1a 64 over the value's bytes, made non-negative", "[ycsb]") {
  // [py]
  CHECK(fnvhash64(0) == 6284781860667377211LL);
  CHECK(fnvhash64(1) == 8517097267634966620LL);
  CHECK(fnvhash64(1000) == 5952875239596136740LL);
  for (std::uint64_t v : {0ULL, 1ULL, 2ULL, 255ULL, 256ULL, 123456789ULL, 0x7fffffffffffffffULL,
                          0xffffffffffffffffULL}) {
    CHECK(fnvhash64(v) == reference_fnv(v));
    CHECK(fnvhash64(v) >= 0);
  }
}

TEST_CASE("ycsb: uniform is uniform over 100 buckets (chi-square)", "[ycsb]") {
  Rng rng(kSeed);
  UniformLongGenerator gen(100, 199);
  std::vector<std::int64_t> counts(100);
  for (int i = 0; i < kDraws; ++i) {
    const std::int64_t v = gen.next(rng);
    REQUIRE((v >= 100 && v <= 199));
    ++counts[static_cast<std::size_t>(v - 100)];
  }
  CHECK(chi_square(counts, std::vector<double>(100, 0.01), kDraws) < kChi2Df99);
}

TEST_CASE("ycsb: zipfian over 1000 items follows Gray's zipf, items 0 and 1 exactly", "[ycsb]") {
  Rng rng(kSeed);
  ZipfianGenerator gen(0, 999, 0.99);
  CHECK(gen.zetan() == Approx(exact_zeta(1000, 0.99)).epsilon(1e-12));
  std::vector<std::int64_t> counts(1000);
  for (int i = 0; i < kDraws; ++i) {
    const std::int64_t v = gen.next(rng);
    REQUIRE((v >= 0 && v < 1000));
    ++counts[static_cast<std::size_t>(v)];
  }
  CHECK(chi_square(counts, gray_zipf_pmf(1000, 0.99), kDraws) < kChi2Df999);
  // P(0) = 1/zeta(n, theta), P(1) = P(0)/2^theta.
  const double p0 = 1 / exact_zeta(1000, 0.99);
  CHECK(std::abs(static_cast<double>(counts[0]) / kDraws - p0) < 0.002);
  CHECK(std::abs(static_cast<double>(counts[1]) / kDraws - p0 / std::pow(2, 0.99)) < 0.002);
}

TEST_CASE("ycsb: zipfian extends zeta incrementally when the item count grows", "[ycsb]") {
  Rng rng(kSeed);
  ZipfianGenerator gen(0, 999, 0.99);
  for (int i = 0; i < 10; ++i) {
    const std::int64_t v = gen.next_long(rng, 2500);
    CHECK((v >= 0 && v < 2500));
  }
  CHECK(gen.zetan() == Approx(exact_zeta(2500, 0.99)).epsilon(1e-12));
}

TEST_CASE("ycsb: Euler-Maclaurin zeta matches the sum and YCSB's precomputed zeta", "[ycsb]") {
  CHECK(zeta_euler_maclaurin(100000, 0.99) ==
        Approx(ZipfianGenerator::zeta_static(100000, 0.99)).epsilon(1e-12));
  CHECK(zeta_euler_maclaurin(54321, 0.5) ==
        Approx(ZipfianGenerator::zeta_static(54321, 0.5)).epsilon(1e-12));
  // YCSB's constant is a plain sum of 10^10 doubles; its rounding leaves it 1.2e-12
  // (relative) above the Euler-Maclaurin value [py].
  CHECK(zeta_euler_maclaurin(kScrambledItemCount, 0.99) == Approx(kScrambledZetan).epsilon(1e-11));
}

TEST_CASE("ycsb: scrambled zipfian stays in range with its hottest item at fnv(0)", "[ycsb]") {
  Rng rng(kSeed);
  ScrambledZipfianGenerator gen(5000, 5999);
  std::vector<std::int64_t> counts(1000);
  for (int i = 0; i < kDraws; ++i) {
    const std::int64_t v = gen.next(rng);
    REQUIRE((v >= 5000 && v <= 5999));
    ++counts[static_cast<std::size_t>(v - 5000)];
  }
  const auto hottest = std::max_element(counts.begin(), counts.end()) - counts.begin();
  CHECK(hottest == fnvhash64(0) % 1000);
  // Rank 0 alone has 1/zeta = 3.78%; other ranks that hash to the same item add a little.
  const double share = static_cast<double>(counts[static_cast<std::size_t>(hottest)]) / kDraws;
  CHECK(share > 1 / kScrambledZetan - 0.002);
  CHECK(share < 1 / kScrambledZetan + 0.01);
}

TEST_CASE("ycsb: latest makes the newest key the most popular, by Gray's zipf", "[ycsb]") {
  Rng rng(kSeed);
  AcknowledgedCounterGenerator basis(1000);  // keys 0..999 acknowledged
  SkewedLatestGenerator gen(basis);
  std::vector<std::int64_t> by_age(999);  // by_age[a]: key 999 - a
  for (int i = 0; i < kDraws; ++i) {
    const std::int64_t v = gen.next(rng);
    REQUIRE((v >= 1 && v <= 999));
    ++by_age[static_cast<std::size_t>(999 - v)];
  }
  CHECK(std::max_element(by_age.begin(), by_age.end()) == by_age.begin());
  CHECK(chi_square(by_age, gray_zipf_pmf(999, 0.99), kDraws) < kChi2Df998);

  // A new acknowledged key becomes the most recent one.
  const std::int64_t inserted = basis.next();
  CHECK(inserted == 1000);
  CHECK(basis.acknowledge(inserted));
  std::int64_t newest = 0;
  for (int i = 0; i < 1000; ++i) newest = std::max(newest, gen.next(rng));
  CHECK(newest == 1000);
}

TEST_CASE("ycsb: hotspot sends 80% of draws to the first 20% of keys", "[ycsb]") {
  Rng rng(kSeed);
  HotspotIntegerGenerator gen(0, 999, 0.2, 0.8);
  int hot = 0;
  for (int i = 0; i < kDraws; ++i) {
    const std::int64_t v = gen.next(rng);
    REQUIRE((v >= 0 && v <= 999));
    if (v < 200) ++hot;
  }
  CHECK(std::abs(static_cast<double>(hot) / kDraws - 0.8) < 0.01);
  CHECK(gen.mean() == Approx(0.8 * 100 + 0.2 * 600));
}

TEST_CASE("ycsb: exponential follows its CDF, 95% below the range", "[ycsb]") {
  Rng rng(kSeed);
  ExponentialGenerator gen(95, 1000);
  // 30 buckets of width 100, then everything from 3000 up.
  std::vector<std::int64_t> counts(31);
  std::int64_t below_range = 0;
  for (int i = 0; i < kDraws; ++i) {
    const double v = gen.next(rng);
    REQUIRE(v >= 0);
    ++counts[std::min<std::size_t>(30, static_cast<std::size_t>(v / 100))];
    if (v < 1000) ++below_range;
  }
  const double gamma = -std::log(0.05) / 1000;
  auto cdf = [&](double x) { return 1 - std::exp(-gamma * x); };
  std::vector<double> p(31);
  for (int b = 0; b < 30; ++b)
    p[static_cast<std::size_t>(b)] = cdf(100.0 * (b + 1)) - cdf(100.0 * b);
  p[30] = 1 - cdf(3000);
  CHECK(chi_square(counts, p, kDraws) < kChi2Df30);
  CHECK(std::abs(static_cast<double>(below_range) / kDraws - 0.95) < 0.002);
}

TEST_CASE("ycsb: acknowledged counter moves its limit over contiguous acknowledgements", "[ycsb]") {
  AcknowledgedCounterGenerator counter(10);
  CHECK(counter.last_value() == 9);
  for (int i = 0; i < 5; ++i) counter.next();  // 10..14
  CHECK(counter.acknowledge(12));
  CHECK(counter.acknowledge(11));
  CHECK(counter.last_value() == 9);
  CHECK(counter.acknowledge(10));
  CHECK(counter.last_value() == 12);
  // 13 is outstanding: 20 waits in the window, and a value a window later finds its
  // slot taken.
  CHECK(counter.acknowledge(20));
  CHECK(!counter.acknowledge(20 + AcknowledgedCounterGenerator::kWindowSize));
  CHECK(counter.last_value() == 12);

  AcknowledgedCounterGenerator shared(0);
  std::vector<std::thread> threads;
  threads.reserve(4);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 20000; ++i) shared.acknowledge(shared.next());
    });
  }
  for (std::thread& t : threads) t.join();
  CHECK(shared.last_value() == 80000 - 1);
}

}  // namespace storh::ycsb::generators_test
