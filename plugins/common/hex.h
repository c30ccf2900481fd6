// hex.h: hex digits and their values, in one place (UUIDv7 text, frame checksums, shard
// directory names).
#pragma once

#include <array>

namespace storh::engines {

inline constexpr unsigned kNotHex = 16;

// The digits of a value written in lower-case hex, by value.
inline constexpr char kLowerHexDigits[] = "0123456789abcdef";

namespace detail {
// A table, not comparisons: uuid_v7::timestamp_ms decodes twelve digits per call, and
// the branches took twice the table's time (uuid.timestamp).
inline constexpr std::array<unsigned char, 256> kHexValues = [] {
  std::array<unsigned char, 256> table{};
  for (auto& value : table) value = kNotHex;
  for (int c = 0; c < 10; ++c) table['0' + c] = static_cast<unsigned char>(c);
  for (int c = 0; c < 6; ++c) {
    table['a' + c] = static_cast<unsigned char>(10 + c);
    table['A' + c] = static_cast<unsigned char>(10 + c);
  }
  return table;
}();
}  // namespace detail

// 0-15 for a hex digit of either case, kNotHex for any other character.
constexpr unsigned hex_digit(char c) noexcept {
  return detail::kHexValues[static_cast<unsigned char>(c)];
}

// 0-15 for 0-9 and a-f only, kNotHex otherwise (upper case too): for names storh writes
// in lower case, such as shard directories, where "0A" is another name than "0a".
constexpr unsigned lower_hex_digit(char c) noexcept {
  return c >= 'A' && c <= 'F' ? kNotHex : hex_digit(c);
}

}  // namespace storh::engines
