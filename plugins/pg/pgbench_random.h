// pgbench_random.h: pgbench's random numbers, so a script draws what pgbench draws.
//
// pgbench (PostgreSQL 15) gives each client its own xoroshiro128** state, seeded with
// splitmix64 from the next number of a base sequence that --random-seed seeds, and draws
// `random(lo, hi)` as lo + a uniform value in [0, hi - lo] by bitmask rejection. The
// same algorithm is written here from its published description (Blackman and Vigna;
// splitmix64 by Steele, Lea and Flood), so with the same seed client k draws the same
// accounts, tellers, branches and deltas as pgbench's client k.
//
// The other draws of pgbench's script language follow pgbench 15's own algorithms over
// the same state: double(), exponential(), gaussian() (Box-Muller) and zipfian()
// (Devroye's rejection method), and the stateless permute() and hash functions. Which
// state each draw uses, and how pgbench seeds every state of a run, is PgbenchSeeds.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <vector>

#include "common/splitmix64.h"

namespace storh::engines::pg {

class PgbenchRandom {
 public:
  explicit PgbenchRandom(std::uint64_t seed) noexcept {
    s0_ = splitmix64(seed);
    s1_ = splitmix64(seed);
    if (s0_ == 0 && s1_ == 0) {  // the one fixed point: any nonzero state will do
      s0_ = 0x5851F42D4C957F2DULL;
      s1_ = 0x14057B7EF767814FULL;
    }
  }

  std::uint64_t next() noexcept {
    const std::uint64_t s0 = s0_;
    const std::uint64_t sx = s1_ ^ s0;
    const std::uint64_t value = std::rotl(s0 * 5, 7) * 9;
    s0_ = std::rotl(s0, 24) ^ sx ^ (sx << 16);
    s1_ = std::rotl(sx, 37);
    return value;
  }

  // pgbench's random(lo, hi): uniform over [lo, hi], both included. Precondition lo <= hi.
  std::int64_t uniform(std::int64_t lo, std::int64_t hi) noexcept {
    const std::uint64_t range = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo);
    std::uint64_t value = 0;
    if (range > 0) {
      const int shift = std::countl_zero(range);
      do {
        value = next() >> shift;
      } while (value > range);
    }
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(lo) + value);
  }

  // A uniform double in [0, 1): the top 52 bits of the next number.
  double next_double() noexcept { return std::ldexp(static_cast<double>(next() >> 12), -52); }

  // random_exponential(lo, hi, parameter). Preconditions: lo <= hi, parameter > 0.
  std::int64_t exponential(std::int64_t lo, std::int64_t hi, double parameter) noexcept {
    const double cut = std::exp(-parameter);
    const double uniform = 1.0 - next_double();  // in (0, 1]
    const double rand = -std::log(cut + (1.0 - cut) * uniform) / parameter;
    return lo + static_cast<std::int64_t>(static_cast<double>(hi - lo + 1) * rand);
  }

  // random_gaussian(lo, hi, parameter). Preconditions: lo <= hi, parameter >= 2.
  std::int64_t gaussian(std::int64_t lo, std::int64_t hi, double parameter) noexcept {
    double stdev = 0;
    do {
      const double u1 = 1.0 - next_double();
      const double u2 = 1.0 - next_double();
      stdev = std::sqrt(-2.0 * std::log(u1)) * std::sin(2.0 * std::numbers::pi * u2);
    } while (stdev < -parameter || stdev >= parameter);
    const double rand = (stdev + parameter) / (parameter * 2.0);
    return lo + static_cast<std::int64_t>(static_cast<double>(hi - lo + 1) * rand);
  }

  // random_zipfian(lo, hi, s). Preconditions: lo <= hi, 1.001 <= s <= 1000.
  std::int64_t zipfian(std::int64_t lo, std::int64_t hi, double s) noexcept {
    const std::int64_t n = hi - lo + 1;
    if (n <= 1) return lo;
    const double b = std::pow(2.0, s - 1.0);
    double x = 0;
    for (;;) {
      const double u = next_double();
      const double v = next_double();
      x = std::floor(std::pow(u, -1.0 / (s - 1.0)));
      const double t = std::pow(1.0 + 1.0 / x, s - 1.0);
      if (v * x * (t - 1.0) / (b - 1.0) <= t / b && x <= static_cast<double>(n)) break;
    }
    return lo - 1 + static_cast<std::int64_t>(x);
  }

 private:
  std::uint64_t s0_ = 0;
  std::uint64_t s1_ = 0;
};

// permute(value, size, seed): a pseudorandom permutation of [0, size), pgbench 15's six
// rounds of multiply, xor, rotate and offset over a state seeded with `seed`. 0 when
// size < 2.
inline std::int64_t pgbench_permute(std::int64_t value, std::int64_t isize,
                                    std::int64_t seed) noexcept {
  if (isize < 2) return 0;
  PgbenchRandom state(static_cast<std::uint64_t>(seed));
  const auto size = static_cast<std::uint64_t>(isize);
  std::uint64_t v = static_cast<std::uint64_t>(value) % size;
  const int masklen = 63 - std::countl_zero(size);
  const std::uint64_t mask = (std::uint64_t{1} << masklen) - 1;
  for (int round = 0; round < 6; ++round) {
    std::uint64_t m = (state.next() & mask) | 1;
    std::uint64_t r = state.next() & mask;
    if (v <= mask) {
      v = ((v * m) ^ r) & mask;
      v = ((v << 1) & mask) | (v >> (masklen - 1));
    }
    m = (state.next() & mask) | 1;
    r = state.next() & mask;
    std::uint64_t t = size - 1 - v;
    if (t <= mask) {
      t = ((t * m) ^ r) & mask;
      t = ((t << 1) & mask) | (t >> (masklen - 1));
      v = size - 1 - t;
    }
    v = (v + static_cast<std::uint64_t>(state.uniform(0, static_cast<std::int64_t>(size - 1)))) %
        size;
  }
  return static_cast<std::int64_t>(v);
}

// hash_fnv1a(value, seed): FNV-1a over the value's 8 bytes, low byte first.
inline std::int64_t pgbench_hash_fnv1a(std::int64_t value, std::int64_t seed) noexcept {
  std::uint64_t result = 0xcbf29ce484222325ULL ^ static_cast<std::uint64_t>(seed);
  auto bits = static_cast<std::uint64_t>(value);
  for (int i = 0; i < 8; ++i) {
    result = (result ^ (bits & 0xff)) * 0x100000001b3ULL;
    bits >>= 8;
  }
  return static_cast<std::int64_t>(result);
}

// hash_murmur2(value, seed) (and hash()): MurmurHash64A of the value's 8 bytes.
inline std::int64_t pgbench_hash_murmur2(std::int64_t value, std::int64_t seed) noexcept {
  constexpr std::uint64_t kMul = 0xc6a4a7935bd1e995ULL;
  constexpr int kRot = 47;
  std::uint64_t result = static_cast<std::uint64_t>(seed) ^ (kMul * 8);
  auto k = static_cast<std::uint64_t>(value);
  k *= kMul;
  k ^= k >> kRot;
  k *= kMul;
  result ^= k;
  result *= kMul;
  result ^= result >> kRot;
  result *= kMul;
  result ^= result >> kRot;
  return static_cast<std::int64_t>(result);
}

// The seed of client `index`'s state: the (index + 1)-th number of the base sequence
// seeded with `base_seed`, as pgbench seeds its clients in order.
inline std::uint64_t client_seed(std::uint64_t base_seed, std::uint32_t index) noexcept {
  PgbenchRandom base(base_seed);
  std::uint64_t seed = 0;
  for (std::uint32_t i = 0; i <= index; ++i) seed = base.next();
  return seed;
}

// Every state pgbench 15 seeds from --random-seed, in its order: first each client's
// state for the script's random functions (client_seed()), then :default_seed (the
// hash functions' and permute's default seed; not drawn when -D default_seed is
// given), then per thread the states for the script choice, --rate and --sampling-rate.
// pgbench deals clients to threads in order, ceil(remaining clients / remaining threads)
// each.
struct PgbenchSeeds {
  PgbenchSeeds(std::uint64_t base_seed, std::uint32_t clients, std::uint32_t threads,
               bool default_seed_given = false) {
    PgbenchRandom base(base_seed);
    for (std::uint32_t i = 0; i < clients; ++i) client.push_back(base.next());
    if (!default_seed_given) default_seed = static_cast<std::int64_t>(base.next());
    for (std::uint32_t i = 0; i < threads; ++i) {
      choose.push_back(base.next());
      throttle.push_back(base.next());
      sample.push_back(base.next());
    }
  }

  std::vector<std::uint64_t> client;    // random(), random_*() of client k
  std::int64_t default_seed = 0;        // the :default_seed variable
  std::vector<std::uint64_t> choose;    // thread t's weighted script choice
  std::vector<std::uint64_t> throttle;  // thread t's --rate schedule
  std::vector<std::uint64_t> sample;    // thread t's --sampling-rate
};

}  // namespace storh::engines::pg
