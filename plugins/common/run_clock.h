// run_clock.h: the wall clock and the random keys every engine reads, fixed in the
// host's counting runs (docs/counters.md, "Reproducible counts").
//
// Why: a counting run reports instructions per item, and two runs of one build must
// agree. With the real clock and the kernel's randomness they do not: UUIDv7 ids get
// other random bytes and cross other milliseconds, file names made from them sort and
// hash differently, and a run under valgrind reads a clock 50 times slower than a
// timed run does. So every engine reads the time through wall_clock_*() and draws
// random keys through fill_fixed_key(); in a counting run both follow a fixed,
// reproducible sequence, elsewhere they are the real clock and the kernel's randomness.
//
// The switch: the host's counting worker sets kEnvironmentVariable to
// "<origin_ms>:<seed>" (decimal) before it loads the plugin, and removes it in every
// other worker, so a timed run never sees it. The variable is read once, at the first
// call of any function below (reload_for_tests reads it again).
//
// In a counting run:
//   * the clock starts at origin_ms and advances kTickNs per read, whoever reads it:
//     a deterministic, strictly increasing sequence for a deterministic program;
//   * the n-th key drawn in the process is a function of (seed, n) alone.
// A forked child gets no fixed keys (its caller says it is one) so that
// children forked from one parent never repeat each other's ids; the host does not
// count work done in children anyway.
//
// Thread safety: every function may be called from any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace storh::engines::run_clock {

inline constexpr char kEnvironmentVariable[] = "STORH_DETERMINISTIC";

// What the host fixes for a counting run.
struct FixedRun {
  std::int64_t origin_ms = 0;  // the clock's first reading, Unix milliseconds, >= 0
  std::uint64_t seed = 0;
};

// "<origin_ms>:<seed>", both decimal; nullopt for anything else (the variable is then
// ignored and the run uses the real clock and randomness).
std::optional<FixedRun> parse_fixed_run(std::string_view text) noexcept;

// A clock that advances kTickNs per read from its origin.
class FixedClock {
 public:
  // One microsecond: a thousand reads per millisecond, so UUIDv7 ids both count
  // within a millisecond and cross into new ones, as they do at full speed.
  static constexpr std::int64_t kTickNs = 1000;

  explicit FixedClock(std::int64_t origin_ns) noexcept : origin_ns_(origin_ns) {}

  // origin + (reads so far) * kTickNs.
  std::int64_t next_ns() noexcept {
    const auto reads = static_cast<std::int64_t>(reads_.fetch_add(1, std::memory_order_relaxed));
    return origin_ns_ + reads * kTickNs;
  }

 private:
  std::int64_t origin_ns_;
  std::atomic<std::uint64_t> reads_{0};
};

// Keys from a seed: the n-th fill (from 0) is the splitmix64 stream seeded with
// hash(seed, n), so the bytes depend on the seed and on how many fills came before.
class SeedStream {
 public:
  explicit SeedStream(std::uint64_t seed) noexcept : seed_(seed) {}
  void fill(std::span<std::uint8_t> out) noexcept;

 private:
  std::uint64_t seed_;
  std::atomic<std::uint64_t> fills_{0};
};

// The host's settings for this process, read from the environment once; nullopt in
// timed runs.
const std::optional<FixedRun>& fixed_run() noexcept;

// Reads the environment again and starts the clock and the keys over, as a new process
// would: for tests, which set and remove the variable themselves. Not thread-safe.
void reload_for_tests() noexcept;

// Unix time: the real system clock, or the fixed clock in a counting run.
std::int64_t wall_clock_ns() noexcept;
std::int64_t wall_clock_ms() noexcept;
std::int64_t wall_clock_seconds() noexcept;

// In a counting run, unless `in_forked_child`, fills `out` from the seed stream and
// returns true; otherwise leaves `out` alone and returns false, and the caller draws
// from the kernel.
bool fill_fixed_key(std::span<std::uint8_t> out, bool in_forked_child) noexcept;

}  // namespace storh::engines::run_clock
