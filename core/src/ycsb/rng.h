// ycsb/rng.h: the random source of one YCSB client thread.
//
// YCSB draws from ThreadLocalRandom; we give each client thread its own Rng, seeded
// from (seed, client index), so that a run with the same seed and client count draws
// the same numbers. The distributions match YCSB's, the bits do not.
#pragma once

#include <cstdint>

#include "util/splitmix64.h"

namespace storh::ycsb {

// xoshiro256** seeded through splitmix64. Small, fast and not thread-safe: one per
// thread. Copying it copies the stream position.
struct Rng {
  // The stream of client `client` of a run seeded with `seed`: different clients
  // (or seeds) get unrelated streams.
  explicit Rng(std::uint64_t seed, std::uint32_t client = 0) noexcept {
    std::uint64_t client_mix = std::uint64_t{client} + 0x632be59bd9b4e019ULL;
    std::uint64_t mix = seed ^ splitmix64(client_mix);
    for (std::uint64_t& word : state) word = splitmix64(mix);
  }

  // 64 uniformly random bits.
  std::uint64_t next_u64() noexcept {
    const std::uint64_t result = rotl(state[1] * 5, 7) * 9;
    const std::uint64_t t = state[1] << 17;
    state[2] ^= state[0];
    state[3] ^= state[1];
    state[1] ^= state[2];
    state[0] ^= state[3];
    state[2] ^= t;
    state[3] = rotl(state[3], 45);
    return result;
  }

  // Uniform in [0, 1), with 53 random bits (as Java's nextDouble).
  double next_double() noexcept { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }

  // 32 uniformly random bits as a signed value (as Java's nextInt()).
  std::int32_t next_i32() noexcept { return static_cast<std::int32_t>(next_u64() >> 32); }

  // Uniform in [0, 2^63): Java's Math.abs(nextLong()) without its one negative result.
  std::int64_t next_nonnegative() noexcept { return static_cast<std::int64_t>(next_u64() >> 1); }

  std::uint64_t state[4];

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) noexcept { return (x << k) | (x >> (64 - k)); }
};

}  // namespace storh::ycsb
