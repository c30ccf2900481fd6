// ycsb/values.h: the bytes of a YCSB workload: key names and field values, as
// CoreWorkload builds them. Pure functions, thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "ycsb/rng.h"

namespace storh::ycsb {

// Java's String.hashCode of `s`, each byte taken as one char (keys and field names
// are ASCII, where the two agree).
std::int32_t java_string_hash(std::string_view s) noexcept;

// CoreWorkload.buildKeyName: "user" then keynum (ordered) or fnvhash64(keynum)
// (hashed) in decimal, zero-filled on the left to `zeropadding` digits.
std::string build_key_name(std::uint64_t keynum, std::uint32_t zeropadding, bool ordered);

// CoreWorkload.buildDeterministicValue at length `size`: "key:field", then while
// shorter than `size`, ":" followed by the Java hashCode of everything so far in
// decimal; cut to `size`. A shorter value is a prefix of a longer one.
std::string deterministic_value(std::string_view key, std::string_view field, std::size_t size);

// The value of (key, field) written by update number `generation` (docs/ycsb.md, "how
// reads are verified"). Generation 0 is what the load phase stores: exactly
// deterministic_value(key, field, size). Generation g > 0 is "g<g>:key:field" (g in
// decimal) extended with Java hashes as deterministic_value extends "key:field", cut
// to `size`. Keys start with "user", so the first byte tells the two apart; a value
// of another generation differs from this one's whenever `size` holds "g<g>:".
std::string generation_value(std::string_view key, std::string_view field, std::uint64_t generation,
                             std::size_t size);

// The generation `value` claims: 0 unless it starts with 'g', else the decimal number
// after the 'g' (1 when none is there: a value cut before its digits). A value with
// more digits than a uint64_t holds claims generation 1, which it then fails to match.
std::uint64_t claimed_generation(std::string_view value) noexcept;

// `size` random bytes in ' ' .. 0x7f, drawn six per 32-bit word with the bit masks of
// YCSB's RandomByteIterator.
std::string random_value(Rng& rng, std::size_t size);

}  // namespace storh::ycsb
