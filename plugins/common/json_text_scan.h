// json_text_scan.h: finding the end of a run of plain JSON string text, eight bytes at a
// time. Record text is mostly plain ASCII, and a byte-at-a-time loop over it was half
// of parsing a string (fast_json.cpp) and most of escaping one (canonical_json.cpp).
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>

namespace storh::engines {

// Whether a byte may be copied into or out of a JSON string as it is: not '"', '\\', a
// control character (< 0x20) or a byte of a non-ASCII character (>= 0x80).
constexpr bool is_plain_json_char(char c) noexcept {
  const auto byte = static_cast<unsigned char>(c);
  return byte != '"' && byte != '\\' && byte >= 0x20 && byte < 0x80;
}

// The high bit of every byte of `word` (eight bytes as loaded from memory) that is not
// plain. The lowest one set is exact (the first byte that is not plain); higher ones
// may be false alarms: a borrow runs upward from a byte that is flagged anyway.
constexpr std::uint64_t special_json_bytes(std::uint64_t word) noexcept {
  constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
  constexpr std::uint64_t kHigh = 0x8080808080808080ULL;
  // A byte of `v` below `n` (n <= 0x80) sets its high bit in the result. Exact for
  // words without bytes >= 0x80, and those are caught by `v & kHigh` anyway.
  const auto below = [](std::uint64_t v, std::uint64_t n) { return (v - kOnes * n) & ~v; };
  return (below(word ^ (kOnes * '"'), 1) | below(word ^ (kOnes * '\\'), 1) | below(word, 0x20) |
          word) &
         kHigh;
}

// The first byte in [p, end) that is not plain, or `end` when there is none. Everything
// before it may be copied into or out of a JSON string as it is.
inline const char* skip_plain_json_text(const char* p, const char* end) noexcept {
  while (end - p >= 8) {
    std::uint64_t v = 0;
    std::memcpy(&v, p, sizeof v);
    // The lowest flagged byte is exact: the answer, without a byte loop (little-endian
    // load: byte k of the text is bits 8k..8k+7).
    if (const std::uint64_t special = special_json_bytes(v); special != 0) {
      return p + std::countr_zero(special) / 8;
    }
    p += 8;
  }
  while (p != end && is_plain_json_char(*p)) ++p;
  return p;
}

// The room copy_plain_json_text may write past the bytes it copies.
inline constexpr std::size_t kPlainCopySlack = 7;

// The `n` (< 8) bytes at `p` as the low bytes of a word, the others zero: two loads
// that overlap instead of a loop (1-3 bytes: first, middle, last; 4-7: two halves).
inline std::uint64_t load_short_word(const char* p, std::size_t n) noexcept {
  if (n >= 4) {
    std::uint32_t low = 0;
    std::uint32_t high = 0;
    std::memcpy(&low, p, sizeof low);
    std::memcpy(&high, p + n - 4, sizeof high);
    return low | (std::uint64_t{high} << (8 * (n - 4)));
  }
  if (n == 0) return 0;
  const auto byte = [p](std::size_t i) {
    return std::uint64_t{static_cast<unsigned char>(p[i])} << (8 * i);
  };
  return byte(0) | byte(n / 2) | byte(n - 1);
}

// Copies the plain bytes at the start of [from, end) to `to` and advances `from` past
// them; returns the end of the copy. One pass, a word at a time, the last few bytes
// too: each word is stored as it is checked. `to` must have room for end - from +
// kPlainCopySlack bytes (a word is stored whole, but only within that room).
inline char* copy_plain_json_text(const char*& from, const char* end, char* to) noexcept {
  static_assert(std::endian::native == std::endian::little, "byte order of the word test");
  const auto copy_word = [&](std::uint64_t word, std::uint64_t special, std::size_t size) {
    std::memcpy(to, &word, sizeof word);
    const auto plain =
        special == 0 ? size : static_cast<std::size_t>(std::countr_zero(special) / 8);
    from += plain;
    to += plain;
    return plain == size;
  };
  while (end - from >= 8) {
    std::uint64_t word = 0;
    std::memcpy(&word, from, sizeof word);
    if (!copy_word(word, special_json_bytes(word), 8)) return to;
  }
  const auto rest = static_cast<std::size_t>(end - from);
  if (rest == 0) return to;
  const std::uint64_t word = load_short_word(from, rest);
  // The zero bytes above `rest` would count as control characters: only the low ones.
  copy_word(word, special_json_bytes(word) & ((std::uint64_t{1} << (8 * rest)) - 1), rest);
  return to;
}

}  // namespace storh::engines
