#include "common/run_clock.h"

#include <charconv>
#include <chrono>
#include <cstdlib>
#include <cstring>

#include "common/splitmix64.h"

namespace storh::engines::run_clock {
namespace {

constexpr std::int64_t kNsPerMs = 1'000'000;
// Keeps origin_ms * kNsPerMs, and a long run's ticks after it, inside int64.
constexpr std::int64_t kMaxOriginMs = std::int64_t{1} << 48;

template <typename T>
bool parse_decimal(std::string_view text, T& out) noexcept {
  const char* end = text.data() + text.size();
  const auto [at, error] = std::from_chars(text.data(), end, out);
  return !text.empty() && error == std::errc() && at == end;
}

// The process's counting-run state, made at first use from the environment.
struct Process {
  std::optional<FixedRun> run;
  std::optional<FixedClock> clock;
  std::optional<SeedStream> keys;

  Process() { load(); }

  void load() {
    run.reset();
    clock.reset();
    keys.reset();
    const char* value = std::getenv(kEnvironmentVariable);
    if (value == nullptr) return;
    run = parse_fixed_run(value);
    if (!run) return;
    clock.emplace(run->origin_ms * kNsPerMs);
    keys.emplace(run->seed);
  }
};

Process& process() noexcept {
  static Process state;
  return state;
}

}  // namespace

std::optional<FixedRun> parse_fixed_run(std::string_view text) noexcept {
  const std::size_t colon = text.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  FixedRun run;
  if (!parse_decimal(text.substr(0, colon), run.origin_ms) ||
      !parse_decimal(text.substr(colon + 1), run.seed)) {
    return std::nullopt;
  }
  if (run.origin_ms < 0 || run.origin_ms > kMaxOriginMs) return std::nullopt;
  return run;
}

void SeedStream::fill(std::span<std::uint8_t> out) noexcept {
  std::uint64_t state = seed_;
  const std::uint64_t index = fills_.fetch_add(1, std::memory_order_relaxed);
  state = splitmix64(state) ^ index;
  while (!out.empty()) {
    const std::uint64_t word = splitmix64(state);
    const std::size_t n = std::min(out.size(), sizeof word);
    std::memcpy(out.data(), &word, n);
    out = out.subspan(n);
  }
}

void reload_for_tests() noexcept {
  process().load();
}

const std::optional<FixedRun>& fixed_run() noexcept {
  return process().run;
}

std::int64_t wall_clock_ns() noexcept {
  if (std::optional<FixedClock>& fixed = process().clock) return fixed->next_ns();
  const auto since_epoch = std::chrono::system_clock::now().time_since_epoch();
  return std::chrono::duration_cast<std::chrono::nanoseconds>(since_epoch).count();
}

std::int64_t wall_clock_ms() noexcept {
  const std::chrono::nanoseconds ns{wall_clock_ns()};
  return std::chrono::floor<std::chrono::milliseconds>(ns).count();
}

std::int64_t wall_clock_seconds() noexcept {
  const std::chrono::nanoseconds ns{wall_clock_ns()};
  return std::chrono::floor<std::chrono::seconds>(ns).count();
}

bool fill_fixed_key(std::span<std::uint8_t> out, bool in_forked_child) noexcept {
  std::optional<SeedStream>& keys = process().keys;
  if (!keys || in_forked_child) return false;
  keys->fill(out);
  return true;
}

}  // namespace storh::engines::run_clock
