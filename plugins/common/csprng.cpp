#include "common/csprng.h"

#include <pthread.h>
#include <string.h>  // explicit_bzero
#include <sys/random.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cerrno>
#include <cstring>
#include <system_error>

#include "common/run_clock.h"

namespace storh::engines {
namespace {

// Words are loaded and stored with memcpy, which is the RFC's little-endian order
// only on little-endian machines (every target we build for).
static_assert(std::endian::native == std::endian::little, "ChaCha20 here assumes little-endian");

// Keystream is computed for several blocks at once: lane j of vector i is word i of
// block j. GCC lowers U32x4 to SSE2 (the x86-64 baseline) or NEON; on x86-64, CPUs
// with AVX2 run U32x8, twice the blocks per instruction, chosen at run time.
typedef std::uint32_t U32x4 __attribute__((vector_size(16)));
#if defined(__x86_64__)
#define STORH_CSPRNG_AVX2 1
typedef std::uint32_t U32x8 __attribute__((vector_size(32)));
#endif

constexpr std::size_t kWords = 16;
constexpr std::size_t kMaxBatch = 8 * kChaChaBlockSize;
constexpr std::array<std::uint32_t, 4> kSigma = {0x61707865, 0x3320646e, 0x79622d32, 0x6b206574};
constexpr std::array<std::uint8_t, kChaChaNonceSize> kZeroNonce{};

std::uint32_t load_le32(const std::uint8_t* p) noexcept {
  std::uint32_t word;
  std::memcpy(&word, p, sizeof word);
  return word;
}

// The initial state of RFC 8439 section 2.3: constants, key, counter, nonce.
std::array<std::uint32_t, kWords> initial_state(
    std::span<const std::uint8_t, kChaChaKeySize> key, std::uint32_t counter,
    std::span<const std::uint8_t, kChaChaNonceSize> nonce) {
  std::array<std::uint32_t, kWords> state{};
  for (std::size_t i = 0; i < 4; ++i) state[i] = kSigma[i];
  for (std::size_t i = 0; i < 8; ++i) state[4 + i] = load_le32(key.data() + 4 * i);
  state[12] = counter;
  for (std::size_t i = 0; i < 3; ++i) state[13 + i] = load_le32(nonce.data() + 4 * i);
  return state;
}

// Word is std::uint32_t (one block) or a vector (one block per lane); the code is the same.
// Always inlined, so that the AVX2 batch gets them compiled for AVX2 (and vectors are
// never passed by value, whose ABI depends on the target).
template <int kBits, class Word>
[[gnu::always_inline]] inline void rotate_left(Word& w) noexcept {
  w = (w << kBits) | (w >> (32 - kBits));
}

template <class Word>
[[gnu::always_inline]] inline void quarter_round(Word& a, Word& b, Word& c, Word& d) noexcept {
  a += b;
  d ^= a;
  rotate_left<16>(d);
  c += d;
  b ^= c;
  rotate_left<12>(b);
  a += b;
  d ^= a;
  rotate_left<8>(d);
  c += d;
  b ^= c;
  rotate_left<7>(b);
}

// The 20 rounds (10 column + diagonal pairs), without the final addition of the input.
template <class Word>
[[gnu::always_inline]] inline void chacha20_rounds(std::array<Word, kWords>& x) noexcept {
  for (int i = 0; i < 10; ++i) {
    quarter_round(x[0], x[4], x[8], x[12]);
    quarter_round(x[1], x[5], x[9], x[13]);
    quarter_round(x[2], x[6], x[10], x[14]);
    quarter_round(x[3], x[7], x[11], x[15]);
    quarter_round(x[0], x[5], x[10], x[15]);
    quarter_round(x[1], x[6], x[11], x[12]);
    quarter_round(x[2], x[7], x[8], x[13]);
    quarter_round(x[3], x[4], x[9], x[14]);
  }
}

// The shuffles of the 4x4 transpose; an 8-lane vector is transposed as two 4-lane
// halves (one instruction each with AVX2, whose shuffles stay within 128-bit halves).
// __builtin_shufflevector (GCC 12 and clang alike) takes the lane indices as constants.
// Vectors go by reference: an 8-lane vector passed or returned by value would change
// the ABI of a function compiled without AVX.
//
// low, high = the 32-bit lanes of a and b interleaved: (a0 b0 a1 b1), (a2 b2 a3 b3).
template <class Vec>
[[gnu::always_inline]] inline void interleave32(const Vec& a, const Vec& b, Vec& low,
                                                Vec& high) noexcept {
  if constexpr (sizeof(Vec) == 16) {
    low = __builtin_shufflevector(a, b, 0, 4, 1, 5);
    high = __builtin_shufflevector(a, b, 2, 6, 3, 7);
  } else {
    low = __builtin_shufflevector(a, b, 0, 8, 1, 9, 4, 12, 5, 13);
    high = __builtin_shufflevector(a, b, 2, 10, 3, 11, 6, 14, 7, 15);
  }
}

// low, high = the 64-bit halves of a and b paired: (a0 a1 b0 b1), (a2 a3 b2 b3).
template <class Vec>
[[gnu::always_inline]] inline void interleave64(const Vec& a, const Vec& b, Vec& low,
                                                Vec& high) noexcept {
  if constexpr (sizeof(Vec) == 16) {
    low = __builtin_shufflevector(a, b, 0, 1, 4, 5);
    high = __builtin_shufflevector(a, b, 2, 3, 6, 7);
  } else {
    low = __builtin_shufflevector(a, b, 0, 1, 8, 9, 4, 5, 12, 13);
    high = __builtin_shufflevector(a, b, 2, 3, 10, 11, 6, 7, 14, 15);
  }
}

// Blocks counter .. counter + lanes - 1 into out[0 .. lanes * 64).
template <class Vec>
[[gnu::always_inline]] inline void keystream_batch(const std::array<std::uint32_t, kWords>& state,
                                                   std::uint32_t counter,
                                                   std::uint8_t* out) noexcept {
  constexpr std::size_t kLanes = sizeof(Vec) / sizeof(std::uint32_t);
  std::array<Vec, kWords> input;
  for (std::size_t i = 0; i < kWords; ++i) input[i] = Vec{} + state[i];
  for (std::size_t j = 0; j < kLanes; ++j) input[12][j] = counter + static_cast<std::uint32_t>(j);
  std::array<Vec, kWords> x = input;
  chacha20_rounds(x);
  for (std::size_t i = 0; i < kWords; ++i) x[i] += input[i];
  // Transpose each group of four words so that each 16-byte half holds words
  // 4g .. 4g+3 of one block, and store those where they belong.
  for (std::size_t g = 0; g < kWords / 4; ++g) {
    Vec ab_low, ab_high, cd_low, cd_high;
    interleave32(x[4 * g], x[4 * g + 1], ab_low, ab_high);
    interleave32(x[4 * g + 2], x[4 * g + 3], cd_low, cd_high);
    std::array<Vec, 4> blocks;
    interleave64(ab_low, cd_low, blocks[0], blocks[1]);
    interleave64(ab_high, cd_high, blocks[2], blocks[3]);
    for (std::size_t half = 0; half < kLanes / 4; ++half) {
      for (std::size_t k = 0; k < 4; ++k) {
        std::memcpy(out + (4 * half + k) * kChaChaBlockSize + 16 * g,
                    reinterpret_cast<const std::uint8_t*>(&blocks[k]) + 16 * half, 16);
      }
    }
  }
}

void keystream_batch_4(const std::array<std::uint32_t, kWords>& state, std::uint32_t counter,
                       std::uint8_t* out) noexcept {
  keystream_batch<U32x4>(state, counter, out);
}

#ifdef STORH_CSPRNG_AVX2
[[gnu::target("avx2")]] void keystream_batch_8(const std::array<std::uint32_t, kWords>& state,
                                               std::uint32_t counter, std::uint8_t* out) noexcept {
  keystream_batch<U32x8>(state, counter, out);
}
#endif

std::atomic<bool> g_force_four_blocks{false};

// Blocks per batch on this CPU: 8 with AVX2, else 4.
std::size_t batch_blocks() noexcept {
  if (g_force_four_blocks.load(std::memory_order_relaxed)) return 4;
#ifdef STORH_CSPRNG_AVX2
  // cpu_init first: a Csprng may be used by another library's static constructor,
  // before libgcc's own constructor has filled in the CPU model.
  static const bool has_avx2 = (__builtin_cpu_init(), __builtin_cpu_supports("avx2"));
  if (has_avx2) return 8;
#endif
  return 4;
}

void keystream_batch_any(std::size_t blocks, const std::array<std::uint32_t, kWords>& state,
                         std::uint32_t counter, std::uint8_t* out) noexcept {
#ifdef STORH_CSPRNG_AVX2
  if (blocks == 8) {
    keystream_batch_8(state, counter, out);
    return;
  }
#endif
  keystream_batch_4(state, counter, out);
}

// explicit_bzero, unlike memset, is never removed as a dead store.
template <class T>
void wipe(T& value) noexcept {
  ::explicit_bzero(&value, sizeof value);
}

void getrandom_exactly(std::uint8_t* out, std::size_t size) {
  while (size > 0) {
    const ssize_t got = ::getrandom(out, size, 0);
    if (got < 0) {
      if (errno == EINTR) continue;
      throw std::system_error(errno, std::generic_category(), "Csprng: getrandom failed");
    }
    out += got;
    size -= static_cast<std::size_t>(got);
  }
}

using csprng_detail::g_fork_generation;

void on_fork_child() noexcept {
  g_fork_generation.fetch_add(1, std::memory_order_relaxed);
}

// Registered when the library holding this code is loaded, before the process can
// fork: a child must know it is one even when its parent never drew a key (in a
// counting run the parent's first key and the child's would otherwise be the same
// fixed one). glibc ties the registration to the DSO holding this code, so dlclose of
// a plugin removes it. A Csprng used by another library's static constructor, before
// this one runs, still works: the handler is in place before main().
const int g_fork_handler_error = ::pthread_atfork(nullptr, nullptr, &on_fork_child);

void ensure_fork_handler() {
  if (g_fork_handler_error != 0) {
    throw std::system_error(g_fork_handler_error, std::generic_category(),
                            "Csprng: pthread_atfork failed");
  }
}

}  // namespace

// The fork generation of the process that loaded this code, before any fork.
constexpr std::uint64_t kFirstForkGeneration = 1;

// Bumped in every forked child, so an instance whose fork_generation_ differs knows its
// key and buffer were inherited. Starts at 1: 0 marks an instance that never drew a key.
// Only a child writes it, while single-threaded, hence relaxed loads suffice.
std::atomic<std::uint64_t> csprng_detail::g_fork_generation{kFirstForkGeneration};

void chacha20_block(std::span<const std::uint8_t, kChaChaKeySize> key, std::uint32_t counter,
                    std::span<const std::uint8_t, kChaChaNonceSize> nonce,
                    std::span<std::uint8_t, kChaChaBlockSize> out) noexcept {
  const std::array<std::uint32_t, kWords> state = initial_state(key, counter, nonce);
  std::array<std::uint32_t, kWords> x = state;
  chacha20_rounds(x);
  for (std::size_t i = 0; i < kWords; ++i) {
    const std::uint32_t word = x[i] + state[i];
    std::memcpy(out.data() + 4 * i, &word, sizeof word);
  }
}

void chacha20_keystream(std::span<const std::uint8_t, kChaChaKeySize> key, std::uint32_t counter,
                        std::span<const std::uint8_t, kChaChaNonceSize> nonce,
                        std::span<std::uint8_t> out) noexcept {
  const std::size_t blocks = batch_blocks();
  const std::size_t batch = blocks * kChaChaBlockSize;
  const std::array<std::uint32_t, kWords> state = initial_state(key, counter, nonce);
  std::uint32_t next = counter;
  std::size_t done = 0;
  for (; out.size() - done >= batch; done += batch) {
    keystream_batch_any(blocks, state, next, out.data() + done);
    next += static_cast<std::uint32_t>(blocks);
  }
  if (done < out.size()) {
    std::array<std::uint8_t, kMaxBatch> tail;
    keystream_batch_any(blocks, state, next, tail.data());
    std::memcpy(out.data() + done, tail.data(), out.size() - done);
    wipe(tail);
  }
}

void chacha20_force_four_blocks_for_tests(bool force) noexcept {
  g_force_four_blocks.store(force, std::memory_order_relaxed);
}

// fork_generation_ = 0 too: a use after destruction (a thread still running during
// exit) then draws a new key instead of using the zeroed one.
Csprng::~Csprng() {
  wipe(key_);
  wipe(buffer_);
  wipe(available_);
  wipe(until_reseed_);
  wipe(fork_generation_);
}

void Csprng::fill_slow(std::span<std::uint8_t> out) {
  if (!key_is_current()) reseed();
  while (!out.empty()) {
    if (available_ == 0) refill();
    const std::size_t n = std::min(out.size(), available_);
    take(out.first(n));
    out = out.subspan(n);
  }
}

void Csprng::seed_for_tests(std::span<const std::uint8_t, kChaChaKeySize> key) {
  reseed();
  std::memcpy(key_.data(), key.data(), key_.size());
}

// Buffered keystream is dropped: after fork() it is the parent's too.
void Csprng::reseed() {
  ensure_fork_handler();
  const std::uint64_t generation = g_fork_generation.load(std::memory_order_relaxed);
  // In the host's counting runs the key is fixed (common/run_clock.h); a forked child
  // always asks the kernel, so that it never repeats its parent's or a sibling's bytes.
  if (!run_clock::fill_fixed_key(key_, generation != kFirstForkGeneration)) {
    getrandom_exactly(key_.data(), key_.size());
  }
  wipe(buffer_);
  available_ = 0;
  until_reseed_ = kReseedInterval;
  fork_generation_ = generation;
  ++seed_count_;
}

void Csprng::refill() {
  if (until_reseed_ < kBufferSize) reseed();
  chacha20_keystream(key_, 0, kZeroNonce, buffer_);
  // Fast key erasure: the old key is gone, and the new one is keystream that is never
  // returned. Each key encrypts one batch, so counter 0 and a zero nonce never repeat
  // a (key, counter, nonce) triple.
  std::memcpy(key_.data(), buffer_.data(), kChaChaKeySize);
  std::memset(buffer_.data(), 0, kChaChaKeySize);
  available_ = kBufferSize - kChaChaKeySize;
  until_reseed_ -= kBufferSize;
}

}  // namespace storh::engines
