// fixed_run.h: what a counting worker fixes for the engine it runs, so that two
// counting runs of one build count the same work (docs/counters.md, "Reproducible
// counts"): the wall clock engines read and the seed of their random keys.
//
// The channel is one environment variable, set by the worker before it loads the
// plugin. Engines read it through plugins/common/run_clock.h; the two sides share only
// the variable's name and its text, "<origin_ms>:<seed>" in decimal.
#pragma once

#include <cstdint>
#include <string>

namespace storh::count {

inline constexpr char kFixedRunVariable[] = "STORH_DETERMINISTIC";
// 2026-01-01T00:00:00Z: any fixed instant in the 48-bit UUIDv7 range would do.
inline constexpr std::int64_t kFixedClockOriginMs = 1'767'225'600'000;
inline constexpr std::uint64_t kFixedSeed = 0x73746f7268636e74;  // "storhcnt"

// "<kFixedClockOriginMs>:<kFixedSeed>".
std::string fixed_run_value();

// Sets kFixedRunVariable when `counting`, and removes it otherwise, so a timed run never
// sees a fixed clock whatever the host's environment holds. Call while the process has
// one thread (setenv is not thread-safe) and before the plugin is loaded. Returns "" or
// why the environment could not be changed.
std::string apply_fixed_run(bool counting);

}  // namespace storh::count
