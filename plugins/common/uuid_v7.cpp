#include "common/uuid_v7.h"

#include <pthread.h>

#include <array>
#include <atomic>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "common/csprng.h"
#include "common/hex.h"
#include "common/run_clock.h"

namespace storh::engines::uuid_v7 {
namespace {

// Taking the lock is one atomic exchange and releasing it a plain store, which matters
// on a ~20 ns path. Holders never block for long (the slowest section is a Csprng
// refill, ~0.25 us, or its 32-byte getrandom), and a forked child can simply reset it.
class SpinLock {
 public:
  void lock() noexcept {
    for (int spins = 0; locked_.exchange(true, std::memory_order_acquire); ++spins) {
      while (locked_.load(std::memory_order_relaxed)) {
        if (++spins > 64) std::this_thread::yield();
      }
    }
  }
  void unlock() noexcept { locked_.store(false, std::memory_order_release); }
  void reset_in_child() noexcept { locked_.store(false, std::memory_order_relaxed); }

 private:
  std::atomic<bool> locked_{false};
};

struct GeneratorState {
  SpinLock lock;
  std::int64_t last_ts = -1;
  bool has_entropy = false;
  bool atfork_registered = false;
  std::array<unsigned char, kEntropySize> entropy{};
  // Not thread-safe by itself: used only under `lock`. It detects fork() on its own and
  // then draws a new key, so the child never reuses the parent's keystream.
  Csprng random;
};

constinit GeneratorState g_state;

// In a forked child only the forking thread exists, so whoever held the lock is gone;
// the inherited E is the parent's and must not be continued. (g_state.random notices
// the fork by itself and draws a new key.)
void forget_state_in_child() noexcept {
  g_state.lock.reset_in_child();
  g_state.last_ts = -1;
  g_state.has_entropy = false;
}

// Caller holds the lock. Throws std::system_error if the kernel's random source fails,
// leaving E as it was.
void draw_entropy() {
  if (!g_state.atfork_registered) {
    // Registered by the DSO that owns g_state, so dlclose unregisters it.
    ::pthread_atfork(nullptr, nullptr, &forget_state_in_child);
    g_state.atfork_registered = true;
  }
  std::array<unsigned char, kEntropySize> fresh;
  g_state.random.fill(fresh);
  g_state.entropy = fresh;
}

void check_timestamp(std::int64_t ts_ms) {
  if (ts_ms < 0 || ts_ms > kMaxTimestampMs) {
    throw std::out_of_range("UUIDv7 timestamp " + std::to_string(ts_ms) + " ms is outside 0 .. " +
                            std::to_string(kMaxTimestampMs));
  }
}

// Both hex digits of every byte value: one copy per byte instead of two lookups.
constexpr std::array<std::array<char, 2>, 256> kHexPairs = [] {
  std::array<std::array<char, 2>, 256> table{};
  for (std::size_t byte = 0; byte < 256; ++byte) {
    table[byte] = {kLowerHexDigits[byte >> 4], kLowerHexDigits[byte & 0xf]};
  }
  return table;
}();

void put_hex_byte(char* out, unsigned byte) noexcept {
  std::memcpy(out, kHexPairs[byte & 0xff].data(), 2);
}

// Writes the 48-bit timestamp as "xxxxxxxx-xxxx" (13 characters).
void put_timestamp(char* out, std::int64_t ts_ms) noexcept {
  const auto ts = static_cast<std::uint64_t>(ts_ms);
  put_hex_byte(out, static_cast<unsigned>(ts >> 40));
  put_hex_byte(out + 2, static_cast<unsigned>(ts >> 32));
  put_hex_byte(out + 4, static_cast<unsigned>(ts >> 24));
  put_hex_byte(out + 6, static_cast<unsigned>(ts >> 16));
  out[8] = '-';
  put_hex_byte(out + 9, static_cast<unsigned>(ts >> 8));
  put_hex_byte(out + 11, static_cast<unsigned>(ts));
}

std::string bound_for(std::int64_t ts_ms, std::string_view tail) {
  check_timestamp(ts_ms);
  std::string text(kTextSize, '\0');
  put_timestamp(text.data(), ts_ms);
  text.replace(13, tail.size(), tail);
  return text;
}

// is_valid checks 8 characters at a time (SWAR). Every byte of a word below 0x80 can
// be range-checked with one add: x + (0x80 - lo) has its top bit set iff x >= lo, and
// x + (0x7f - hi) iff x > hi; neither carries into the next byte.
constexpr std::uint64_t kOnes = 0x0101010101010101;
constexpr std::uint64_t kHighBits = 0x8080808080808080;

std::uint64_t load_word(const char* p) noexcept {
  std::uint64_t word;
  std::memcpy(&word, p, sizeof word);
  return word;
}

// The top bit of each byte of `word` that is an ASCII hex digit of either case.
std::uint64_t hex_digit_bytes(std::uint64_t word) noexcept {
  const std::uint64_t digit = (word + kOnes * (0x80 - '0')) & ~(word + kOnes * (0x7f - '9'));
  const std::uint64_t lower = word | (kOnes * 0x20);  // 'A'-'F' -> 'a'-'f'
  const std::uint64_t letter = (lower + kOnes * (0x80 - 'a')) & ~(lower + kOnes * (0x7f - 'f'));
  return (digit | letter) & kHighBits;
}

}  // namespace

std::int64_t now_ms() {
  return run_clock::wall_clock_ms();
}

void generate_to(std::int64_t ts_ms, char* out) {
  check_timestamp(ts_ms);
  std::array<unsigned char, kEntropySize> e;
  {
    const std::lock_guard<SpinLock> guard(g_state.lock);
    if (ts_ms != g_state.last_ts || !g_state.has_entropy) {
      draw_entropy();
      g_state.last_ts = ts_ms;
      g_state.has_entropy = true;
    } else {
      // 80-bit big-endian increment; all bytes wrapping leaves all zeros.
      for (std::size_t i = kEntropySize; i-- > 0;) {
        if (++g_state.entropy[i] != 0) break;
      }
    }
    e = g_state.entropy;
  }

  put_timestamp(out, ts_ms);
  out[13] = '-';
  out[14] = '7';
  out[15] = kLowerHexDigits[e[0] & 0x0f];
  put_hex_byte(out + 16, e[1]);
  out[18] = '-';
  put_hex_byte(out + 19, 0x80u | (e[2] & 0x3fu));
  put_hex_byte(out + 21, e[3]);
  out[23] = '-';
  for (std::size_t i = 4; i < kEntropySize; ++i) put_hex_byte(out + 24 + 2 * (i - 4), e[i]);
}

std::string generate(std::int64_t ts_ms) {
  std::string id(kTextSize, '\0');
  generate_to(ts_ms, id.data());
  return id;
}

std::string generate() {
  return generate(now_ms());
}

bool is_valid(std::string_view text) noexcept {
  if (text.size() != kTextSize) return false;
  const char* p = text.data();
  if ((p[8] != '-') | (p[13] != '-') | (p[18] != '-') | (p[23] != '-') | (p[14] != '7')) {
    return false;
  }
  const unsigned variant = hex_digit(p[19]);
  if (variant < 8 || variant > 11) return false;
  // Five words cover all 36 characters (the last two overlap); the four dashes, already
  // checked, are replaced by '0' so that every byte must be a hex digit. Byte k of a
  // word is bits 8k..8k+7 (little-endian load).
  constexpr std::uint64_t kDashes8 = 0xffULL | (0xffULL << 40);           // chars 8, 13
  constexpr std::uint64_t kDashes16 = (0xffULL << 16) | (0xffULL << 56);  // chars 18, 23
  // Straight-line on purpose: -O3 vectorizes a loop over the five words into code
  // twice as slow.
  const std::uint64_t w0 = load_word(p);
  const std::uint64_t w1 = (load_word(p + 8) & ~kDashes8) | (kDashes8 & (kOnes * '0'));
  const std::uint64_t w2 = (load_word(p + 16) & ~kDashes16) | (kDashes16 & (kOnes * '0'));
  const std::uint64_t w3 = load_word(p + 24);
  const std::uint64_t w4 = load_word(p + 28);
  const std::uint64_t any_bits = w0 | w1 | w2 | w3 | w4;
  const std::uint64_t hex = hex_digit_bytes(w0) & hex_digit_bytes(w1) & hex_digit_bytes(w2) &
                            hex_digit_bytes(w3) & hex_digit_bytes(w4);
  // Non-ASCII bytes break the carry-free arithmetic, so they are rejected separately.
  return ((any_bits & kHighBits) == 0) & (hex == kHighBits);
}

void assert_valid(std::string_view text) {
  if (!is_valid(text)) throw std::invalid_argument("Invalid UUIDv7 value.");
}

std::int64_t timestamp_ms(std::string_view id) {
  assert_valid(id);
  std::uint64_t ts = 0;
  for (std::size_t i = 0; i < 13; ++i) {
    if (i != 8) ts = (ts << 4) | hex_digit(id[i]);
  }
  return static_cast<std::int64_t>(ts);
}

std::string min_for_timestamp_ms(std::int64_t ts_ms) {
  return bound_for(ts_ms, "-7000-8000-000000000000");
}

std::string max_for_timestamp_ms(std::int64_t ts_ms) {
  return bound_for(ts_ms, "-7fff-bfff-ffffffffffff");
}

void start_fresh_sequence() noexcept {
  const std::lock_guard<SpinLock> guard(g_state.lock);
  g_state.last_ts = -1;
  g_state.has_entropy = false;
}

void set_state_for_tests(std::int64_t last_ts_ms,
                         const std::array<unsigned char, kEntropySize>& entropy) noexcept {
  const std::lock_guard<SpinLock> guard(g_state.lock);
  g_state.last_ts = last_ts_ms;
  g_state.entropy = entropy;
  g_state.has_entropy = true;
}

}  // namespace storh::engines::uuid_v7
