#include "ycsb/values.h"

#include <charconv>
#include <system_error>

#include "ycsb/generators.h"

namespace storh::ycsb {
namespace {

// One step of String.hashCode: h * 31 + c with Java's int wraparound.
std::uint32_t hash_step(std::uint32_t h, char c) noexcept {
  return h * 31U + static_cast<unsigned char>(c);
}

}  // namespace

std::int32_t java_string_hash(std::string_view s) noexcept {
  std::uint32_t h = 0;
  for (char c : s) h = hash_step(h, c);
  return static_cast<std::int32_t>(h);
}

std::string build_key_name(std::uint64_t keynum, std::uint32_t zeropadding, bool ordered) {
  const std::string value = ordered ? std::to_string(keynum) : std::to_string(fnvhash64(keynum));
  std::string key = "user";
  // Java's fill counts a minus sign as a digit; fnvhash64 is negative only for 2^63.
  if (zeropadding > value.size()) key.append(zeropadding - value.size(), '0');
  key += value;
  return key;
}

namespace {

// Extends `out` with ":" and the Java hash of everything so far until it holds `size`
// bytes, then cuts it there (buildDeterministicValue's loop).
void extend_with_hashes(std::string& out, std::size_t size) {
  // YCSB re-hashes the whole string on every round (quadratic in size); the hash
  // extends one character at a time, so we carry it along instead.
  std::uint32_t h = static_cast<std::uint32_t>(java_string_hash(out));
  char digits[16];
  while (out.size() < size) {
    out += ':';
    h = hash_step(h, ':');
    const auto [end, ec] =
        std::to_chars(digits, digits + sizeof digits, static_cast<std::int32_t>(h));
    static_cast<void>(ec);  // 11 characters at most: never too small
    for (const char* c = digits; c != end; ++c) {
      out += *c;
      h = hash_step(h, *c);
    }
  }
  out.resize(size);
}

}  // namespace

std::string deterministic_value(std::string_view key, std::string_view field, std::size_t size) {
  return generation_value(key, field, 0, size);
}

std::string generation_value(std::string_view key, std::string_view field, std::uint64_t generation,
                             std::size_t size) {
  std::string out;
  out.reserve(size + 32);
  if (generation > 0) {
    out += 'g';
    out += std::to_string(generation);
    out += ':';
  }
  out.append(key);
  out += ':';
  out.append(field);
  extend_with_hashes(out, size);
  return out;
}

std::uint64_t claimed_generation(std::string_view value) noexcept {
  if (value.empty() || value[0] != 'g') return 0;
  std::uint64_t generation = 0;
  const char* first = value.data() + 1;
  const char* last = value.data() + value.size();
  const auto [end, ec] = std::from_chars(first, last, generation);
  // No digits (a value cut after its 'g'), or too many: any g > 0 gives the 'g'.
  if (ec != std::errc{} || end == first || generation == 0) return 1;
  return generation;
}

std::string random_value(Rng& rng, std::size_t size) {
  std::string out(size, ' ');
  for (std::size_t i = 0; i < size; i += 6) {
    const std::int32_t bytes = rng.next_i32();
    // RandomByteIterator.fillBytesImpl: each byte is ' ' plus a few bits of one int.
    const char chunk[6] = {
        static_cast<char>((bytes & 31) + ' '),
        static_cast<char>(((bytes >> 5) & 63) + ' '),
        static_cast<char>(((bytes >> 10) & 95) + ' '),
        static_cast<char>(((bytes >> 15) & 31) + ' '),
        static_cast<char>(((bytes >> 20) & 63) + ' '),
        static_cast<char>(((bytes >> 25) & 95) + ' '),
    };
    for (std::size_t j = 0; j < 6 && i + j < size; ++j) out[i + j] = chunk[j];
  }
  return out;
}

}  // namespace storh::ycsb
