// csprng.h: a userspace cryptographically secure random byte generator, and the ChaCha20
// block function (RFC 8439) it is built on.
//
// Why: getrandom(2) costs a system call plus a few nanoseconds per byte, which alone
// exceeds the 40 ns budget of a UUIDv7 that needs 10 fresh bytes. Csprng
// asks the kernel for a 32-byte key only, and expands it with ChaCha20 in userspace,
// the design of OpenBSD's arc4random and of Linux's vDSO getrandom:
//
//   * Keystream is made 8 blocks (512 bytes) at a time, with SIMD (see
//     chacha20_keystream). The first 32 bytes of every batch replace the key at once
//     ("fast key erasure"), so the state after a refill cannot be run backwards to any
//     output already returned; bytes handed out are also wiped from the buffer.
//   * A fresh key comes from getrandom(2) on first use, after every kReseedInterval
//     bytes of keystream, and in a child process after fork(): a pthread_atfork child
//     handler invalidates every instance of the process, so parent and child never
//     share output. (A child made by a raw clone(2) system call bypasses the handler
//     and is not detected.)
//   * In the host's counting runs the keys are not random: common/run_clock.h derives
//     them from a fixed seed, so that two counting runs make the same bytes (a forked
//     child still asks the kernel).
//
// Costs: the first fill() does one 32-byte getrandom and one refill (plus the process's
// one-time costs: page faults, pthread_atfork); after that one refill serves 480 usable
// bytes, so a fill() of 10 bytes is mostly a copy.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

namespace storh::engines {

inline constexpr std::size_t kChaChaKeySize = 32;
inline constexpr std::size_t kChaChaNonceSize = 12;
inline constexpr std::size_t kChaChaBlockSize = 64;

// One ChaCha20 block (RFC 8439 section 2.3: 20 rounds, 32-bit block counter, 96-bit
// nonce), written to `out`. The portable reference for chacha20_keystream; exposed for
// tests against the RFC's vectors.
void chacha20_block(std::span<const std::uint8_t, kChaChaKeySize> key, std::uint32_t counter,
                    std::span<const std::uint8_t, kChaChaNonceSize> nonce,
                    std::span<std::uint8_t, kChaChaBlockSize> out) noexcept;

// The keystream of blocks counter, counter + 1, ... (mod 2^32), written to `out` of any
// length: the same bytes as chacha20_block called block by block, computed with SIMD
// four blocks at a time (SSE2, NEON), or eight on x86-64 CPUs with AVX2 (detected at
// run time). A final partial block is cut short.
void chacha20_keystream(std::span<const std::uint8_t, kChaChaKeySize> key, std::uint32_t counter,
                        std::span<const std::uint8_t, kChaChaNonceSize> nonce,
                        std::span<std::uint8_t> out) noexcept;

// For tests: while `force` is true, chacha20_keystream (and so every Csprng) uses the
// four-block path even where AVX2 exists, so that both paths can be checked on one CPU.
void chacha20_force_four_blocks_for_tests(bool force) noexcept;

namespace csprng_detail {
// Incremented in every forked child (csprng.cpp registers the handler); starts at 1.
// Here only so that Csprng::fill's fast path can be inline.
extern std::atomic<std::uint64_t> g_fork_generation;
}  // namespace csprng_detail

// Random bytes for keys, nonces and ids.
//
// Thread safety: none. An instance must be used by one thread at a time; callers that
// share one serialise it themselves (uuid_v7 holds its generator lock around fill).
// Distinct instances are independent, including across fork().
//
// Lifetime: constant-initialisable (a `constinit` global needs no start-up code); no
// system call happens before the first fill(). The destructor wipes the key and the
// buffered keystream.
class Csprng {
 public:
  // Keystream bytes made per refill; the first kChaChaKeySize of them become the next key.
  static constexpr std::size_t kBufferSize = 8 * kChaChaBlockSize;
  // Keystream bytes after which the key is drawn from the kernel again, bounding how
  // much output depends on one kernel key.
  static constexpr std::size_t kReseedInterval = std::size_t{1} << 20;

  constexpr Csprng() noexcept = default;
  ~Csprng();
  Csprng(const Csprng&) = delete;
  Csprng& operator=(const Csprng&) = delete;

  // Fills `out` with random bytes. Throws std::system_error if getrandom(2) or
  // pthread_atfork fails (only possible when a key is drawn); `out` is then unspecified
  // and the generator stays usable.
  void fill(std::span<std::uint8_t> out) {
    // Inline so that a caller's constant size turns both copies into a few moves: with
    // calls to memcpy and memset, 10 bytes cost more than the keystream behind them.
    if (out.size() <= available_ && key_is_current()) [[likely]] {
      take(out);
    } else {
      fill_slow(out);
    }
  }

  // How many keys this instance has drawn from the kernel (seed_for_tests counts as
  // one): for tests of the reseed rules.
  std::uint64_t seed_count() const noexcept { return seed_count_; }

  // Continues from `key` as if it had just been drawn from the kernel, so tests can
  // check the output against chacha20_keystream. Later reseeds (after fork or
  // kReseedInterval bytes) still use the kernel. Never use outside tests.
  void seed_for_tests(std::span<const std::uint8_t, kChaChaKeySize> key);

 private:
  // Copies out.size() <= available_ buffered bytes and wipes them: bytes returned must
  // not stay in our memory (arc4random does the same).
  void take(std::span<std::uint8_t> out) noexcept {
    std::uint8_t* unread = buffer_.data() + (kBufferSize - available_);
    std::memcpy(out.data(), unread, out.size());
    std::memset(unread, 0, out.size());
    available_ -= out.size();
  }
  // False until the first key, and in a forked child until it draws its own.
  bool key_is_current() const noexcept {
    return fork_generation_ == csprng_detail::g_fork_generation.load(std::memory_order_relaxed);
  }
  void fill_slow(std::span<std::uint8_t> out);
  void reseed();
  void refill();

  std::array<std::uint8_t, kChaChaKeySize> key_{};
  std::array<std::uint8_t, kBufferSize> buffer_{};
  std::size_t available_ = 0;     // buffer_[kBufferSize - available_ ..) is unread
  std::size_t until_reseed_ = 0;  // keystream bytes left under the current kernel key
  // The process's fork generation when the key was drawn; 0 (never current) until
  // the first fill, so an instance that has not drawn a key always draws one.
  std::uint64_t fork_generation_ = 0;
  std::uint64_t seed_count_ = 0;
};

}  // namespace storh::engines
