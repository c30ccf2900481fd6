// env/environment.h: what the machine and the host build were when a suite ran, and
// the warnings that make a reader distrust the numbers (debug build, sanitizers, CPU
// frequency scaling, a single CPU, a RAM-backed work directory).
//
// capture_environment reads Linux sources (/etc/os-release, /proc, /sys, uname). Any
// source that cannot be read leaves its field empty (0 for numbers); nothing throws
// except std::bad_alloc. The parsers below are pure functions of text so tests can
// feed canned files.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "result/result.h"

namespace storh::env {

// The host's own build, from compile-time macros of storh_core.
struct HostBuild {
  std::string type;         // CMAKE_BUILD_TYPE ("Release"), "unknown" if not defined
  std::string flags;        // compiler flags of that build type, "unknown" if not defined
  std::string compiler;     // "g++ 12.2.0", "clang++ 16.0.6"
  bool assertions = false;  // NDEBUG undefined
  bool sanitizers = false;  // AddressSanitizer or UBSan (STORH_SANITIZE) compiled in
};

HostBuild host_build();

// Fills every field of the environment for a run whose work directories live under
// `work_dir` (which need not exist yet: its nearest existing ancestor decides the
// filesystem). `now` is the time recorded; the runner passes its clock's time.
result::Environment capture_environment(
    const std::filesystem::path& work_dir,
    std::chrono::system_clock::time_point now = std::chrono::system_clock::now());

// The warnings for an environment, in a fixed order; see environment.cpp for the
// texts. Uses env.cpu_count, cpu_governor and work_dir_filesystem, and `build`.
std::vector<std::string> environment_warnings(const result::Environment& env,
                                              const HostBuild& build);

// --- Parsers (pure) --------------------------------------------------------------

// PRETTY_NAME of an os-release file, unquoted and unescaped; NAME if there is no
// PRETTY_NAME; empty if neither.
std::string parse_os_release(std::string_view text);

// The "model name" of /proc/cpuinfo (x86), else "Hardware" (some ARM kernels); empty
// if neither.
std::string parse_cpu_model(std::string_view cpuinfo);

// MemTotal of /proc/meminfo in bytes (the file says kB, meaning KiB); 0 if absent.
std::uint64_t parse_meminfo_total(std::string_view meminfo);

// The filesystem type of the mount containing `path`, given the text of
// /proc/self/mounts: the mount point that is the longest whole-component prefix of
// `path` (the last such line wins, as later mounts hide earlier ones). `path` must be
// absolute and already resolved (no symlinks, "." or ".."). Mount points are
// unescaped (\040 is a space). Empty if no line matches.
std::string filesystem_for(const std::filesystem::path& path, std::string_view mounts);

// "2026-11-30T03:22:07Z": ISO-8601 in UTC, whole seconds.
std::string format_utc(std::chrono::system_clock::time_point time);

}  // namespace storh::env
