// hex.h: the value of a hex digit, in one place (UUIDv7 text, frame checksums, shard
// directory names).
#pragma once

namespace storh::engines {

inline constexpr unsigned kNotHex = 16;

// 0-15 for a hex digit of either case, kNotHex for any other character.
constexpr unsigned hex_digit(char c) noexcept {
  if (c >= '0' && c <= '9') return static_cast<unsigned>(c - '0');
  if (c >= 'a' && c <= 'f') return static_cast<unsigned>(c - 'a') + 10;
  if (c >= 'A' && c <= 'F') return static_cast<unsigned>(c - 'A') + 10;
  return kNotHex;
}

// 0-15 for 0-9 and a-f only, kNotHex otherwise (upper case too): for names storh writes
// in lower case, such as shard directories, where "0A" is another name than "0a".
constexpr unsigned lower_hex_digit(char c) noexcept {
  return c >= 'A' && c <= 'F' ? kNotHex : hex_digit(c);
}

}  // namespace storh::engines
