#include "common/hashes.h"

#include <xxhash.h>

#include "common/hex.h"

namespace storh::engines {
namespace {

void put_hex64(std::uint64_t value, char* out) noexcept {
  for (int i = 15; i >= 0; --i) {
    out[i] = kLowerHexDigits[value & 0xf];
    value >>= 4;
  }
}

}  // namespace

std::uint32_t xxh32(std::string_view bytes) noexcept {
  return XXH32(bytes.data(), bytes.size(), 0);
}

void xxh32_hex_to(std::uint32_t hash, char* out) noexcept {
  for (int i = 7; i >= 0; --i) {
    out[i] = kLowerHexDigits[hash & 0xf];
    hash >>= 4;
  }
}

std::string xxh32_hex(std::string_view bytes) {
  std::string out(8, '0');
  xxh32_hex_to(xxh32(bytes), out.data());
  return out;
}

std::string xxh128_hex(std::string_view bytes) {
  const XXH128_hash_t hash = XXH3_128bits(bytes.data(), bytes.size());
  std::string out(32, '0');
  put_hex64(hash.high64, out.data());
  put_hex64(hash.low64, out.data() + 16);
  return out;
}

}  // namespace storh::engines
