// fault_injection.h: a test hook at the engines' write boundaries, so crash and
// error-path tests can stop an operation at every point where data meets the disk.
//
// A *boundary* is one call that changes or commits file contents: a write (write_all,
// pwrite_all), a file sync (sync_file, sync_data), a rename (rename_or_throw) and a
// directory sync (sync_directory), all in durable_io.h, plus the same steps that the
// document store's record writer issues itself. Engines reach the disk only through
// these, so counting them enumerates an operation's crash points.
//
// The hook is process-global and thread-safe. Disarmed (the default and the only state
// production code ever sees) it costs one relaxed atomic load per boundary. Armed:
//
//   * fault::count_only() counts boundaries and changes nothing; fault::crossed()
//     reports how many were crossed since the last arm.
//   * fault::arm(n, Action::fail, EIO) makes the n-th boundary from now (1-based) fail
//     with that errno, once: the call reports the error as a real one would and every
//     later boundary proceeds. A failing write first writes the first half of its
//     bytes when the errno is ENOSPC (a disk that filled up mid-write), nothing for any
//     other errno.
//   * fault::arm(n, Action::exit) makes the n-th boundary call _exit(kExitCode) before
//     doing anything: a process crash at that point (run it in a forked child).
//
// This is no part of the plugin SDK; only tests arm it. Implemented in durable_io.cpp,
// beside the boundaries it watches.
#pragma once

#include <atomic>
#include <cstdint>

namespace storh::engines::fault {

enum class Boundary { write, sync, rename, dir_sync };
enum class Action { fail, exit };

// The status of a process that fault::arm(n, Action::exit) stopped.
inline constexpr int kExitCode = 77;

// Counts boundaries from zero, injecting nothing.
void count_only() noexcept;
// Counts from zero and injects `action` at the n-th boundary (n >= 1).
void arm(std::uint64_t n, Action action, int error = 0) noexcept;
// Back to the production state: nothing counted, nothing injected.
void disarm() noexcept;
// Boundaries crossed since the last count_only() or arm() (the failing one included).
std::uint64_t crossed() noexcept;
// Whether an armed failure has fired since the last arm().
bool fired() noexcept;

namespace detail {
extern std::atomic<bool> g_armed;
int on_boundary(Boundary boundary) noexcept;
}  // namespace detail

// Called by the code at each boundary, before the call: 0 to proceed, or the errno
// the call must fail with. Never returns when the boundary is armed with Action::exit.
inline int at_boundary(Boundary boundary) noexcept {
  if (!detail::g_armed.load(std::memory_order_relaxed)) return 0;
  return detail::on_boundary(boundary);
}

}  // namespace storh::engines::fault
