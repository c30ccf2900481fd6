// util/splitmix64.h: splitmix64 (Steele, Lea and Flood, 2014), a full-period
// 64-bit sequence whose outputs are well mixed even for consecutive states. The
// host seeds and shuffles with it (the A/B order, YCSB's generators): a fixed,
// portable stream, where std:: distributions differ between standard libraries.
// The engines have their own copy, plugins/common/splitmix64.h: neither side may
// include the other's sources.
#pragma once

#include <cstdint>

namespace storh {

// Advances `state` and returns its next output.
inline std::uint64_t splitmix64(std::uint64_t& state) noexcept {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace storh
