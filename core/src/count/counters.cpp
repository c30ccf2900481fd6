#include "count/counters.h"

#include <dlfcn.h>
#include <sys/resource.h>

#include <algorithm>

#include <fmt/format.h>

#include "count/count_abi.h"
#include "util/did_you_mean.h"

namespace storh::count {
namespace {

using enum Counter;

constexpr std::array<CounterInfo, kCounterCount> kCounters = {{
    {fsync, "fsync", "fsync(2) calls", Instrument::syscalls},
    {fdatasync, "fdatasync", "fdatasync(2) calls", Instrument::syscalls},
    {opens, "opens", "open/openat/creat calls (64-bit variants included)", Instrument::syscalls},
    {creates, "creates", "opens with O_CREAT (creat included)", Instrument::syscalls},
    {renames, "renames", "rename/renameat/renameat2 calls", Instrument::syscalls},
    {unlinks, "unlinks", "unlink/unlinkat calls", Instrument::syscalls},
    {stats, "stats", "stat/lstat/fstat/fstatat/statx calls (all variants)", Instrument::syscalls},
    {read_calls, "read_calls", "read/pread/readv/preadv calls", Instrument::syscalls},
    {read_bytes, "read_bytes", "bytes the read calls returned", Instrument::syscalls},
    {write_calls, "write_calls", "write/pwrite/writev/pwritev calls", Instrument::syscalls},
    {write_bytes, "write_bytes", "bytes the write calls reported written", Instrument::syscalls},
    {close, "close", "close/closedir calls", Instrument::syscalls},
    {getdents, "getdents", "directory reads: getdents64 calls and readdir calls (one per entry)",
     Instrument::syscalls},
    {mkdir, "mkdir", "mkdir/mkdirat calls", Instrument::syscalls},
    {mmap, "mmap", "mmap calls (libc's own, for malloc, not included)", Instrument::syscalls},
    {munmap, "munmap", "munmap calls (libc's own, for free, not included)", Instrument::syscalls},
    {syncfs, "syncfs", "syncfs(2) calls (each makes a whole filesystem durable)",
     Instrument::syscalls},
    {minor_faults, "minor_faults", "page faults served without I/O (getrusage)",
     Instrument::syscalls},
    {major_faults, "major_faults", "page faults that needed I/O (getrusage)", Instrument::syscalls},
    {voluntary_switches, "voluntary_switches",
     "context switches while waiting, e.g. for I/O (getrusage)", Instrument::syscalls},
    {involuntary_switches, "involuntary_switches",
     "context switches by preemption (getrusage; depends on the machine's load)",
     Instrument::syscalls},
    {instructions, "instructions", "instructions executed (valgrind callgrind, Ir)",
     Instrument::instructions},
}};

constexpr std::size_t kFirstRusage = static_cast<std::size_t>(minor_faults);

storh_count_snapshot_fn snapshot_function() noexcept {
  // Looked up once: the interposer is preloaded or it is not, for the whole process.
  static const auto function =
      reinterpret_cast<storh_count_snapshot_fn>(::dlsym(RTLD_DEFAULT, STORH_COUNT_SNAPSHOT_SYMBOL));
  return function;
}

std::uint64_t to_count(long value) {
  return value > 0 ? static_cast<std::uint64_t>(value) : 0;
}

}  // namespace

std::optional<Instrument> parse_instrument(std::string_view name) {
  if (name == "syscalls") return Instrument::syscalls;
  if (name == "instructions") return Instrument::instructions;
  return std::nullopt;
}

std::string_view instrument_name(Instrument instrument) {
  return instrument == Instrument::syscalls ? "syscalls" : "instructions";
}

std::string instrument_choices() {
  return "instructions, syscalls";
}

std::span<const CounterInfo> counter_infos() {
  return kCounters;
}

const CounterInfo* find_counter(std::string_view name) {
  for (const CounterInfo& info : kCounters) {
    if (info.name == name) return &info;
  }
  return nullptr;
}

bool is_engine_counter_name(std::string_view name) {
  const std::size_t dot = name.find('.');
  if (dot == 0 || dot == std::string_view::npos || dot + 1 == name.size()) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
  });
}

std::vector<std::string> in_counter_order(const std::vector<std::string>& names) {
  auto listed = [&](std::string_view name) {
    return std::find(names.begin(), names.end(), name) != names.end();
  };
  std::vector<std::string> ordered;
  for (const CounterInfo& info : kCounters) {
    if (listed(info.name)) ordered.emplace_back(info.name);
  }
  std::vector<std::string> unknown;
  for (const std::string& name : names) {
    if (find_counter(name) == nullptr &&
        std::find(unknown.begin(), unknown.end(), name) == unknown.end()) {
      unknown.push_back(name);
    }
  }
  std::sort(unknown.begin(), unknown.end());
  ordered.insert(ordered.end(), unknown.begin(), unknown.end());
  return ordered;
}

std::string unknown_counter_message(std::string_view name) {
  std::vector<std::string> names;
  names.reserve(kCounters.size());
  for (const CounterInfo& info : kCounters) names.emplace_back(info.name);
  std::sort(names.begin(), names.end());
  return fmt::format("unknown counter \"{}\" (valid: {}){}", name, fmt::join(names, ", "),
                     did_you_mean(name, names));
}

bool interposer_loaded() noexcept {
  return snapshot_function() != nullptr;
}

Snapshot take_snapshot() noexcept {
  Snapshot snapshot;
  if (const storh_count_snapshot_fn function = snapshot_function()) {
    storh_count_snapshot_v1 raw{};
    raw.struct_size = sizeof raw;
    function(&raw);
    const std::uint64_t fields[] = {
        raw.fsync,    raw.fdatasync,  raw.opens,      raw.creates,     raw.renames,     raw.unlinks,
        raw.stats,    raw.read_calls, raw.read_bytes, raw.write_calls, raw.write_bytes, raw.close,
        raw.getdents, raw.mkdir,      raw.mmap,       raw.munmap,      raw.syncfs};
    static_assert(std::size(fields) == kFirstRusage);
    // An older library fills the counters it knows; the rest are not reported.
    if (raw.struct_size >= STORH_COUNT_SIZE_V1_2) {
      snapshot.interposed = std::size(fields);
    } else if (raw.struct_size >= STORH_COUNT_SIZE_V1_1) {
      snapshot.interposed = static_cast<std::size_t>(syncfs);
    } else if (raw.struct_size >= STORH_COUNT_SIZE_V1_0) {
      snapshot.interposed = static_cast<std::size_t>(close);
    }
    std::copy(std::begin(fields), std::end(fields), snapshot.values.begin());
  }
  rusage usage{};
  if (::getrusage(RUSAGE_SELF, &usage) == 0) {
    snapshot.values[static_cast<std::size_t>(minor_faults)] = to_count(usage.ru_minflt);
    snapshot.values[static_cast<std::size_t>(major_faults)] = to_count(usage.ru_majflt);
    snapshot.values[static_cast<std::size_t>(voluntary_switches)] = to_count(usage.ru_nvcsw);
    snapshot.values[static_cast<std::size_t>(involuntary_switches)] = to_count(usage.ru_nivcsw);
  }
  return snapshot;
}

std::uint64_t children_activity() noexcept {
  rusage usage{};
  if (::getrusage(RUSAGE_CHILDREN, &usage) != 0) return 0;
  return to_count(usage.ru_minflt) + to_count(usage.ru_majflt) + to_count(usage.ru_nvcsw) +
         to_count(usage.ru_nivcsw) +
         to_count(usage.ru_utime.tv_sec * 1000000 + usage.ru_utime.tv_usec) +
         to_count(usage.ru_stime.tv_sec * 1000000 + usage.ru_stime.tv_usec);
}

Deltas difference(const Snapshot& before, const Snapshot& after) {
  Deltas deltas;
  const std::size_t interposed = std::min(before.interposed, after.interposed);
  for (const CounterInfo& info : kCounters) {
    const auto index = static_cast<std::size_t>(info.counter);
    if (info.counter == instructions || (index < kFirstRusage && index >= interposed)) continue;
    const std::uint64_t a = before.values[index];
    const std::uint64_t b = after.values[index];
    deltas.emplace_back(std::string(info.name), b >= a ? b - a : 0);
  }
  return deltas;
}

std::optional<std::filesystem::path> find_interposer(const std::filesystem::path& host_executable) {
  constexpr std::string_view kLibrary = "libstorh_count.so";
  // The CLI's host is /proc/self/exe: resolve it to where the binary really is.
  std::error_code resolved;
  std::filesystem::path host = std::filesystem::canonical(host_executable, resolved);
  if (resolved) host = host_executable;
  const std::filesystem::path dir = host.parent_path();
  const std::filesystem::path candidates[] = {
      dir / kLibrary,
      dir.parent_path() / STORH_INSTALL_LIBDIR / "storh" / kLibrary,
      std::filesystem::path(STORH_INSTALLED_COUNT_DIR) / kLibrary,
  };
  for (const std::filesystem::path& candidate : candidates) {
    std::error_code ec;
    if (std::filesystem::is_regular_file(candidate, ec)) {
      return std::filesystem::absolute(candidate, ec).lexically_normal();
    }
  }
  return std::nullopt;
}

}  // namespace storh::count
