// json_text_scan.h: finding the end of a run of plain JSON string text, eight bytes at a
// time. Record text is mostly plain ASCII, and a byte-at-a-time loop over it was half
// of parsing a string (fast_json.cpp) and most of escaping one (canonical_json.cpp).
#pragma once

#include <cstdint>
#include <cstring>

namespace storh::engines {

// The first byte in [p, end) that is '"', '\\', a control character (< 0x20) or not
// ASCII (>= 0x80), or `end` when there is none. Everything before it may be copied into
// or out of a JSON string as it is.
inline const char* skip_plain_json_text(const char* p, const char* end) noexcept {
  constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
  constexpr std::uint64_t kHigh = 0x8080808080808080ULL;
  // A byte of `v` below `n` (n <= 0x80) sets its high bit in the result. Exact for
  // words without bytes >= 0x80, and those are caught by `v & kHigh` anyway.
  const auto below = [](std::uint64_t v, std::uint64_t n) { return (v - kOnes * n) & ~v; };
  while (end - p >= 8) {
    std::uint64_t v = 0;
    std::memcpy(&v, p, sizeof v);
    const std::uint64_t special =
        (below(v ^ (kOnes * '"'), 1) | below(v ^ (kOnes * '\\'), 1) | below(v, 0x20) | v) & kHigh;
    if (special != 0) break;
    p += 8;
  }
  while (p != end) {
    const auto c = static_cast<unsigned char>(*p);
    if (c == '"' || c == '\\' || c < 0x20 || c >= 0x80) break;
    ++p;
  }
  return p;
}

}  // namespace storh::engines
