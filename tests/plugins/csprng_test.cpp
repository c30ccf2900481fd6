// Tests of common/csprng.h: ChaCha20 against RFC 8439, and the generator's key erasure,
// reseed and fork rules.
#include <array>
#include <bit>
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/csprng.h"
#include "forked_child.h"

using storh::engines::chacha20_block;
using storh::engines::chacha20_force_four_blocks_for_tests;
using storh::engines::chacha20_keystream;
using storh::engines::kChaChaBlockSize;
using storh::engines::kChaChaKeySize;
using storh::engines::kChaChaNonceSize;
using Csprng = storh::engines::Csprng;
using Bytes = std::vector<std::uint8_t>;
using Key = std::array<std::uint8_t, kChaChaKeySize>;
using Nonce = std::array<std::uint8_t, kChaChaNonceSize>;

namespace {

// Lower-case hex, so a failed comparison shows readable bytes.
std::string hex(std::span<const std::uint8_t> bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string text;
  for (const std::uint8_t byte : bytes) {
    text += kDigits[byte >> 4];
    text += kDigits[byte & 0xf];
  }
  return text;
}

// The RFC's key 00 01 02 ... 1f.
Key rfc_key() {
  Key key{};
  for (std::size_t i = 0; i < key.size(); ++i) key[i] = static_cast<std::uint8_t>(i);
  return key;
}

Bytes draw(Csprng& rng, std::size_t size) {
  Bytes bytes(size);
  rng.fill(bytes);
  return bytes;
}

// Runs `check` once on this CPU's fastest keystream path and once on the four-block
// path (the same one where the CPU has no AVX2).
template <class Check>
void on_both_simd_paths(Check check) {
  for (const bool four_blocks : {false, true}) {
    INFO((four_blocks ? "four-block path" : "default path"));
    chacha20_force_four_blocks_for_tests(four_blocks);
    check();
  }
  chacha20_force_four_blocks_for_tests(false);
}

}  // namespace

TEST_CASE("csprng: chacha20_block gives RFC 8439 section 2.3.2's block", "[csprng]") {
  const Nonce nonce = {0, 0, 0, 0x09, 0, 0, 0, 0x4a, 0, 0, 0, 0};
  std::array<std::uint8_t, kChaChaBlockSize> block{};
  chacha20_block(rfc_key(), 1, nonce, block);
  CHECK(hex(block) ==
        "10f1e7e4d13b5915500fdd1fa32071c4c7d1f4c733c068030422aa9ac3d46c4e"
        "d2826446079faa0914c2d705d98b02a2b5129cd1de164eb9cbd083e8a2503c4e");
}

TEST_CASE("csprng: chacha20_keystream encrypts RFC 8439 section 2.4.2's text", "[csprng]") {
  const Nonce nonce = {0, 0, 0, 0, 0, 0, 0, 0x4a, 0, 0, 0, 0};
  const std::string_view plaintext =
      "Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the "
      "future, sunscreen would be it.";
  on_both_simd_paths([&] {
    Bytes stream(plaintext.size());  // 114 bytes: one block and a partial one
    chacha20_keystream(rfc_key(), 1, nonce, stream);
    Bytes ciphertext(plaintext.size());
    for (std::size_t i = 0; i < plaintext.size(); ++i) {
      ciphertext[i] =
          static_cast<std::uint8_t>(stream[i] ^ static_cast<std::uint8_t>(plaintext[i]));
    }
    CHECK(hex(ciphertext) ==
          "6e2e359a2568f98041ba0728dd0d6981e97e7aec1d4360c20a27afccfd9fae0b"
          "f91b65c5524733ab8f593dabcd62b3571639d624e65152ab8f530c359f0861d8"
          "07ca0dbf500d6a6156a38e088a22b65e52bc514d16ccf806818ce91ab7793736"
          "5af90bbf74a35be6b40b8eedf2785e42874d");
  });
}

TEST_CASE("csprng: the SIMD keystream equals the block function, across counter wrap", "[csprng]") {
  Key key{};
  for (std::size_t i = 0; i < key.size(); ++i) key[i] = static_cast<std::uint8_t>(0xa5 ^ (7 * i));
  const Nonce nonce = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  constexpr std::uint32_t kFirst = 0xfffffffd;              // blocks ffff_fffd .. 0000_0011
  constexpr std::size_t kSize = 21 * kChaChaBlockSize + 7;  // whole batches and a tail
  on_both_simd_paths([&] {
    Bytes stream(kSize);
    chacha20_keystream(key, kFirst, nonce, stream);
    for (std::size_t b = 0; b * kChaChaBlockSize < kSize; ++b) {
      std::array<std::uint8_t, kChaChaBlockSize> block{};
      chacha20_block(key, static_cast<std::uint32_t>(kFirst + b), nonce, block);
      const std::size_t size = std::min(kChaChaBlockSize, kSize - b * kChaChaBlockSize);
      INFO("block " << b);
      CHECK(hex(std::span(stream).subspan(b * kChaChaBlockSize, size)) ==
            hex(std::span(block).first(size)));
    }
  });
}

TEST_CASE("csprng: each batch's first 32 bytes become the next key and are never returned",
          "[csprng]") {
  // Fast key erasure: output is keystream(K)[32..512), then keystream(K')[32..512) with
  // K' = keystream(K)[0..32), and so on; the state never holds a key that made output.
  constexpr std::size_t kUsable = Csprng::kBufferSize - kChaChaKeySize;
  Key key = rfc_key();
  Bytes expected;
  for (int batch = 0; batch < 3; ++batch) {
    Bytes stream(Csprng::kBufferSize);
    chacha20_keystream(key, 0, Nonce{}, stream);
    std::memcpy(key.data(), stream.data(), key.size());
    expected.insert(expected.end(), stream.begin() + kChaChaKeySize, stream.end());
  }
  Csprng rng;
  rng.seed_for_tests(rfc_key());
  Bytes actual;
  for (const std::size_t size : {std::size_t{10}, kUsable - 10, std::size_t{1}, 2 * kUsable - 1}) {
    const Bytes part = draw(rng, size);
    actual.insert(actual.end(), part.begin(), part.end());
  }
  REQUIRE(actual.size() == expected.size());
  CHECK(hex(actual) == hex(expected));
}

TEST_CASE("csprng: separate instances produce different bytes", "[csprng]") {
  Csprng first;
  Csprng second;
  CHECK(hex(draw(first, 32)) != hex(draw(second, 32)));
}

TEST_CASE("csprng: a kernel key is drawn on first use and not again within the interval",
          "[csprng]") {
  Csprng rng;
  CHECK(rng.seed_count() == 0);  // construction makes no system call
  (void)draw(rng, 10);
  CHECK(rng.seed_count() == 1);
  for (int i = 0; i < 1000; ++i) (void)draw(rng, 10);  // ~20 refills
  CHECK(rng.seed_count() == 1);
  (void)draw(rng, 5000);  // larger than the buffer
  CHECK(rng.seed_count() == 1);
}

TEST_CASE("csprng: 1.5 MiB of output never repeats and reseeds after the interval", "[csprng]") {
  // A refill that failed to move the key on would repeat whole batches; a reseed that
  // kept the buffer would repeat its tail.
  constexpr std::size_t kDraw = 16;
  constexpr std::size_t kDraws = 3 * (std::size_t{1} << 20) / 2 / kDraw;
  Csprng rng;
  std::set<std::array<std::uint8_t, kDraw>> seen;
  std::uint64_t ones = 0;
  for (std::size_t i = 0; i < kDraws; ++i) {
    std::array<std::uint8_t, kDraw> bytes{};
    rng.fill(bytes);
    seen.insert(bytes);
    for (const std::uint8_t byte : bytes) ones += static_cast<std::uint64_t>(std::popcount(byte));
  }
  CHECK(seen.size() == kDraws);
  // 1 MiB of keystream yields 1 MiB * 480/512 of output, so 1.5 MiB needs one reseed.
  CHECK(rng.seed_count() == 2);
  // Half the bits are set, within 6 standard deviations (sqrt(bits) / 2 = ~1774).
  const double bits = static_cast<double>(kDraws * kDraw * 8);
  CHECK(static_cast<double>(ones) == Approx(bits / 2).margin(6 * 1774.0));
}

TEST_CASE("csprng: a forked child draws a new key and never repeats its parent's bytes",
          "[csprng]") {
  // Regression guard for the fork rule: the child inherits the key and 470 buffered
  // bytes; using either would hand both processes the same "random" bytes.
  Csprng rng;
  (void)draw(rng, 10);
  REQUIRE(rng.seed_count() == 1);
  const auto from_child = storh::test::bytes_from_forked_child(64 + 8, [&] {
    Bytes bytes = draw(rng, 64);
    const std::uint64_t seeds = rng.seed_count();
    const auto* seed_bytes = reinterpret_cast<const std::uint8_t*>(&seeds);
    bytes.insert(bytes.end(), seed_bytes, seed_bytes + sizeof seeds);
    return bytes;
  });
  const Bytes parent_bytes = draw(rng, 64);
  REQUIRE(from_child);
  const Bytes child_bytes(from_child->begin(), from_child->begin() + 64);
  std::uint64_t child_seeds = 0;
  std::memcpy(&child_seeds, from_child->data() + 64, sizeof child_seeds);
  CHECK(hex(child_bytes) != hex(parent_bytes));
  CHECK(child_seeds == 2);
  CHECK(rng.seed_count() == 1);  // the parent keeps its key
}
