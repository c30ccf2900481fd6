// uuid_v7.h: UUIDv7 ids as storh makes them (engine-spec.md section 2).
//
// Text form: 36 characters, 8-4-4-4-12 hex groups. Characters 0-12 hold the 48-bit Unix
// time in milliseconds, char 14 is the version '7', char 19 the variant (8, 9, a or b);
// the other 74 bits come from an 80-bit entropy buffer E.
//
// Generation keeps process-global state: the last timestamp and E. A new millisecond (or
// any change of timestamp, including the clock going backwards) draws 10 fresh random
// bytes; the same millisecond adds 1 to E as an 80-bit big-endian counter, so ids from
// one process within one millisecond sort strictly increasing. As in storh, the counter
// may carry into bits the text discards (after ~2^56 increments from a random start); the
// id then sorts lower. That never happens in practice and is kept for byte-for-byte parity.
//
// Thread safety: every function may be called from any thread. The generator's state
// is shared by all threads of the process and guarded by a lock. A forked child forgets
// the state and the random bytes it inherited, so parent and child never repeat each
// other's ids.
//
// Random bytes come from a common/csprng.h generator (ChaCha20 keyed from getrandom(2),
// or from a fixed seed in the host's counting runs: common/run_clock.h), so a new
// millisecond costs ~10 ns of keystream rather than a system call.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace storh::engines::uuid_v7 {

inline constexpr std::size_t kTextSize = 36;
// Bytes of the entropy buffer E: 74 of its 80 bits appear in an id.
inline constexpr std::size_t kEntropySize = 10;
// Timestamps are 48-bit: 0 ... kMaxTimestampMs (year 10889).
inline constexpr std::int64_t kMaxTimestampMs = (std::int64_t{1} << 48) - 1;

// Wall-clock Unix time in milliseconds, rounded down (common/run_clock.h: fixed in the
// host's counting runs).
std::int64_t now_ms();

// A new id for `ts_ms` (default: now_ms()). Throws std::out_of_range if ts_ms is outside
// 0 ... kMaxTimestampMs, and std::system_error if the kernel's random source fails.
std::string generate(std::int64_t ts_ms);
std::string generate();

// Same as generate(ts_ms), written to out[0..36) without a terminator and without
// allocating: the form for hot loops that keep ids in their own buffers.
void generate_to(std::int64_t ts_ms, char* out);

// True when `text` is exactly a UUIDv7 in text form: hex digits in either case, dashes
// at 8, 13, 18 and 23, version '7', variant 8, 9, a, b, A or B. Nothing may precede or
// follow it (a trailing "\n" fails).
bool is_valid(std::string_view text) noexcept;

// Throws std::invalid_argument("Invalid UUIDv7 value.") unless is_valid(text).
void assert_valid(std::string_view text);

// The timestamp of a valid id (either case). Throws like assert_valid.
std::int64_t timestamp_ms(std::string_view id);

// The smallest and largest id text possible for a timestamp:
//   min: <ts>-7000-8000-000000000000    max: <ts>-7fff-bfff-ffffffffffff
// where <ts> is the 12-hex-digit timestamp split 8-4. Used as inclusive bounds of
// time-range queries. Throws std::out_of_range outside 0 ... kMaxTimestampMs: storh did
// not check, and formatted such values into bounds that meant nothing.
std::string min_for_timestamp_ms(std::int64_t ts_ms);
std::string max_for_timestamp_ms(std::int64_t ts_ms);

// Starts the ids that follow as a new process would: forgets the last timestamp and E,
// so the next id draws fresh random bytes instead of counting on from an id made earlier
// in the same millisecond. A benchmark calls it at the start of a run, so its ids (made
// from fixed timestamps) do not depend on an earlier run or repetition in the process.
// Affects every thread.
void start_fresh_sequence() noexcept;
// The same, under the name the tests use.
inline void reset_for_tests() noexcept {
  start_fresh_sequence();
}

// For tests of the counter: continue as if the last id had been made from `last_ts_ms`
// and entropy buffer `entropy` (E0..E9), so generate(last_ts_ms) yields E + 1.
void set_state_for_tests(std::int64_t last_ts_ms,
                         const std::array<unsigned char, kEntropySize>& entropy) noexcept;

}  // namespace storh::engines::uuid_v7
