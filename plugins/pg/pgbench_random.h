// pgbench_random.h: pgbench's random numbers, so a script draws what pgbench draws.
//
// pgbench (PostgreSQL 15) gives each client its own xoroshiro128** state, seeded with
// splitmix64 from the next number of a base sequence that --random-seed seeds, and draws
// `random(lo, hi)` as lo + a uniform value in [0, hi - lo] by bitmask rejection. The
// same algorithm is written here from its published description (Blackman and Vigna;
// splitmix64 by Steele, Lea and Flood), so with the same seed client k draws the same
// accounts, tellers, branches and deltas as pgbench's client k.
#pragma once

#include <bit>
#include <cstdint>

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

 private:
  static std::uint64_t splitmix64(std::uint64_t& state) noexcept {
    std::uint64_t value = (state += 0x9E3779B97F4A7C15ULL);
    value = (value ^ (value >> 30)) * 0xBF58476D1CE4E5B9ULL;
    value = (value ^ (value >> 27)) * 0x94D049BB133111EBULL;
    return value ^ (value >> 31);
  }

  std::uint64_t s0_ = 0;
  std::uint64_t s1_ = 0;
};

// The seed of client `index`'s state: the (index + 1)-th number of the base sequence
// seeded with `base_seed`, as pgbench seeds its clients in order.
inline std::uint64_t client_seed(std::uint64_t base_seed, std::uint32_t index) noexcept {
  PgbenchRandom base(base_seed);
  std::uint64_t seed = 0;
  for (std::uint32_t i = 0; i <= index; ++i) seed = base.next();
  return seed;
}

}  // namespace storh::engines::pg
