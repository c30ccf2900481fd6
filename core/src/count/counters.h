// count/counters.h: deterministic counters of one step (docs/counters.md).
//
// Two instruments, each run in its own counting pass after the timed repeats, so
// counting never distorts a timed sample:
//   - "syscalls": libstorh_count.so preloaded into the worker (count/count_abi.h)
//     counts the file-system calls a storage engine makes, and getrusage(RUSAGE_SELF)
//     adds page faults and context switches;
//   - "instructions": the worker runs under valgrind's callgrind, which counts the
//     instructions executed inside each step (count/callgrind.h).
// Counters are named with the stable names below; result files, the gate's
// tolerances and the docs use these names.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace storh::count {

enum class Instrument { syscalls, instructions };

// "syscalls" / "instructions"; nullopt for anything else.
std::optional<Instrument> parse_instrument(std::string_view name);
std::string_view instrument_name(Instrument instrument);
// The valid instrument names, sorted: "instructions, syscalls".
std::string instrument_choices();

// Every counter, in this order in a Snapshot.
enum class Counter : std::size_t {
  fsync,
  fdatasync,
  opens,
  creates,
  renames,
  unlinks,
  stats,
  read_calls,
  read_bytes,
  write_calls,
  write_bytes,
  close,
  getdents,
  mkdir,
  mmap,
  munmap,
  syncfs,
  minor_faults,
  major_faults,
  voluntary_switches,
  involuntary_switches,
  instructions,
};
inline constexpr std::size_t kCounterCount = 22;

struct CounterInfo {
  Counter counter;
  std::string_view name;         // "fsync"
  std::string_view description;  // one line, for docs and help
  Instrument instrument;         // the pass that measures it
};

// Every counter, in Counter order.
std::span<const CounterInfo> counter_infos();
// The counter with this name, or nullptr.
const CounterInfo* find_counter(std::string_view name);
// `names` in Counter order, then names of no counter (from a newer host) by name;
// each name once.
std::vector<std::string> in_counter_order(const std::vector<std::string>& names);

// Whether `name` names an engine counter (plugin ABI 1.7, docs/counters.md): an engine,
// a dot and a snake_case counter, "pg.blks_read". Engine counters are the engine's to
// name, so any such name is accepted; the gate warns when no file has it.
bool is_engine_counter_name(std::string_view name);

// `unknown counter "fsyncs" (valid: ...); did you mean "fsync"?`: every counter name,
// sorted, and the likely one.
std::string unknown_counter_message(std::string_view name);

// Counter values at one instant; instructions are never in a snapshot (callgrind
// reports them in its dump files).
struct Snapshot {
  // How many of the syscall counters (fsync .. syncfs, in Counter order) the interposer
  // filled: 0 when it is not loaded, fewer than all from an older library.
  std::size_t interposed = 0;
  std::array<std::uint64_t, kCounterCount> values{};
};

// Named counter differences, in Counter order.
using Deltas = std::vector<std::pair<std::string, std::uint64_t>>;

// The interposer's counters when it is preloaded (found with dlsym(RTLD_DEFAULT)),
// plus getrusage(RUSAGE_SELF). Thread-safe; allocates nothing.
Snapshot take_snapshot() noexcept;

// A sum over getrusage(RUSAGE_CHILDREN) (faults, switches, CPU microseconds): it
// changes when a child process that did any work is waited for. Children still running
// or never waited for are not in it. Thread-safe; allocates nothing.
std::uint64_t children_activity() noexcept;

// Whether storh_count_snapshot is in the process (the interposer was preloaded).
bool interposer_loaded() noexcept;

// after - before for every counter the snapshots hold: the syscall counters both
// snapshots have from the interposer, the rusage counters always.
Deltas difference(const Snapshot& before, const Snapshot& after);

// The interposer library for this host (symlinks such as /proc/self/exe resolved):
// next to the executable (a build tree), then
// <prefix>/<libdir>/storh/ relative to it, then the configured install directory.
// nullopt when none exists.
std::optional<std::filesystem::path> find_interposer(const std::filesystem::path& host_executable);

}  // namespace storh::count
