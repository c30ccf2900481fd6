// Seeded random JSON values for the encoder tests: deep nesting, every string character
// that needs care (quotes, backslashes, control characters, DEL, '/', 2-, 3- and 4-byte
// UTF-8, U+2028 and U+2029) at every position, integer-like object keys, and integers
// and floats at their edges. The sequence depends only on the seed (splitmix64 and plain
// arithmetic, no standard distributions), so a digest of the encodings of the values is
// a fixture: it pins an encoder's bytes to those of the encoder it replaced.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "common/record.h"

namespace random_json {

class Generator {
 public:
  explicit Generator(std::uint64_t seed) : state_(seed) {}

  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // 0 ... bound - 1.
  std::uint64_t below(std::uint64_t bound) { return next() % bound; }

  std::string text(std::size_t max_pieces) {
    static constexpr std::array<std::string_view, 24> kPieces = {"a",
                                                                 "Z",
                                                                 "item-",
                                                                 "0",
                                                                 "/",
                                                                 " ",
                                                                 "\"",
                                                                 "\\",
                                                                 "\n",
                                                                 "\t",
                                                                 "\r",
                                                                 "\b",
                                                                 "\f",
                                                                 {"\0", 1},
                                                                 "\x01",
                                                                 "\x1f",
                                                                 "\x7f",
                                                                 "\xc3\xa9",
                                                                 "\xe2\x82\xac",
                                                                 "\xe2\x80\xa8",
                                                                 "\xe2\x80\xa9",
                                                                 "\xf0\x9f\x98\x80",
                                                                 "plain text!",
                                                                 "0123456789abcdef"};
    std::string out;
    const std::size_t pieces = below(max_pieces + 1);
    for (std::size_t i = 0; i < pieces; ++i) out += kPieces[below(kPieces.size())];
    return out;
  }

  std::string key() {
    static constexpr std::array<std::string_view, 10> kKeys = {
        "0", "-7", "12", "007", "-0", "+1", "", "1.0", "99999999999999999999", "id"};
    if (below(4) == 0) return std::string(kKeys[below(kKeys.size())]);
    return text(4);
  }

  double real() {
    static constexpr std::array<double, 14> kEdges = {
        0.0,  -0.0, 1.0,  0.1,  1.5,    1e15,           1e16,
        1e17, 1e20, 1e-4, 1e-5, 1.5e-7, 123456789012.5, -2.5e-300};
    if (below(2) == 0) return kEdges[below(kEdges.size())];
    const double mantissa = static_cast<double>(next() >> 11) / 9007199254740992.0;
    const int exponent = static_cast<int>(below(80)) - 40;
    const double value = std::ldexp(mantissa, exponent);
    return below(2) == 0 ? value : -value;
  }

  storh::engines::Json value(int depth) {
    using storh::engines::Json;
    switch (below(depth > 0 ? 10 : 7)) {
      case 0:
        return nullptr;
      case 1:
        return below(2) == 0;
      case 2: {
        static constexpr std::array<std::int64_t, 6> kInts = {
            0,
            -1,
            42,
            1700000000000,
            std::numeric_limits<std::int64_t>::min(),
            std::numeric_limits<std::int64_t>::max()};
        return below(2) == 0 ? kInts[below(kInts.size())]
                             : static_cast<std::int64_t>(next()) >> below(64);
      }
      case 3:
        return below(2) == 0 ? std::numeric_limits<std::uint64_t>::max() : next();
      case 4:
        return real();
      case 5:
      case 6:
        return text(12);
      case 7: {
        Json array = Json::array();
        const std::size_t size = below(5);
        for (std::size_t i = 0; i < size; ++i) array.push_back(value(depth - 1));
        return array;
      }
      default:
        return object(depth - 1);
    }
  }

  storh::engines::Json object(int depth) {
    storh::engines::Json object = storh::engines::Json::object();
    const std::size_t size = below(6);
    for (std::size_t i = 0; i < size; ++i) object[key()] = value(depth);
    return object;
  }

 private:
  std::uint64_t state_;
};

}  // namespace random_json
