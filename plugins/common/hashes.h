// hashes.h: the two hash functions of storh's file formats (engine-spec.md section 1.4),
// over xxHash 0.8 (the Debian libxxhash package).
//
//   xxh32, seed 0: log and queue line checksums, 8 lower-case hex characters, most
//   significant byte first. xxh32("abc") = 32d153ff.
//   xxh128 (XXH3-128), seed 0: cache validation, index keys and mirror row hashes,
//   32 lower-case hex characters, high 64 bits first. xxh128("abc") =
//   06b05ab6733a618578af5f94892f3950.
//
// All functions are pure and thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace storh::engines {

std::uint32_t xxh32(std::string_view bytes) noexcept;
std::string xxh32_hex(std::string_view bytes);
// Writes the 8 hex characters to out[0..8) (no terminator), for hot paths.
void xxh32_hex_to(std::uint32_t hash, char* out) noexcept;

std::string xxh128_hex(std::string_view bytes);

}  // namespace storh::engines
