// The cache plugin: storh's read-cache benchmark (engine-spec.md section 11.5) over the
// DocStore with a shared MemoryCache. The only file of the engine that knows the host.
//
// Setup (untimed): a plain writer stores bench_row(i) under cache_bench_id(i) for all n
// (put_stream: the same files a loop of puts makes), and is dropped; a second writer
// stores the same records in a twin collection, for read_floor. A new store opens with
// MemoryCache(n + 10) and the `validation` mode (a notify store that fell back to stat
// says why in a progress message). data/ exists, so the store's own caches start unknown.
//   cold  get(cache_bench_id(i)), i = 0..n-1, through the fresh instance
//   warm  the same n gets again
// Each timed loop keeps the returned data (a shared pointer, no copy); after the loop
// every result is compared with bench_row(i), and a missing or wrong record fails the
// run, so a wrong answer never reports a time. The memory the caches hold per entry is
// reported as a progress message.
//
// Three floors, with no engine: two time the raw syscalls under the gets, one the
// decoding:
//   stat_floor  fstatat every record file of the store, after the warm gets, in the
//               state they leave (shard directories opened untimed, as the store keeps
//               them open): a warm STAT get is one of these
//   read_floor  openat, fstat, read, close every file of the twin collection: the I/O of
//               a cold get, with the store's open flags (open_for_reading_at: no
//               access-time update), each shard directory opened at its first file, as a
//               fresh store does. The twin files are untouched since they were written,
//               as the store's were when the cold gets began; the store's own files, just
//               read by the cold gets, are in another state (docs/engines/cache.md)
//   decode_floor  the twin files' bytes (read untimed) decoded by the store's record
//               decoder into the shared Json a get returns, each dropped at once: the
//               CPU of a cold get that no engine returning parsed records can skip
// So warm/stat_floor and cold/read_floor show what the engine adds on this machine, and
// cold/(read_floor + decode_floor) what its caches and the get itself add.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "common/bench/answers.h"
#include "common/bench/bench_row.h"
#include "common/bench/durability.h"
#include "common/durable_io.h"
#include "common/memory_cache.h"
#include "doc/bench/doc_params.h"
#include "doc/doc_store.h"
#include "doc/record_file.h"
#include "storh/plugin.h"

namespace {

namespace engines = storh::engines;
namespace doc = storh::engines::doc;
using storh::Status;

constexpr engines::bench::TextParam kValidation = doc::validation_param(
    "how cached reads are checked: hash (stat + re-read + xxh128), stat (size, mtime, inode), "
    "trust (no filesystem access), notify (stat until inotify vouches for the entry)");
constexpr engines::bench::TextParam kDurability =
    engines::bench::durability_param("fsync the untimed setup writes (durable) or not (none)");

// printf %08x-%04x-7000-8000-%012x of (t >> 16, t & 0xffff, ((i+1) * 1103515245) & 2^48-1)
// with t = 1700100000000 + i (section 11.0).
std::string cache_bench_id(std::uint64_t i) {
  const std::uint64_t t = 1700100000000ULL + i;
  const std::uint64_t tail = ((i + 1) * 1103515245ULL) & 0xffffffffffffULL;
  return fmt::format("{:08x}-{:04x}-7000-8000-{:012x}", t >> 16, t & 0xffff, tail);
}

// Resident set size in bytes (Linux /proc/self/statm), 0 when unknown.
std::size_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::size_t pages = 0;
  std::size_t resident = 0;
  statm >> pages >> resident;
  return resident * static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
}

Status check_results(std::string_view operation, const std::vector<doc::SharedJson>& results,
                     const std::vector<std::string>& ids) {
  for (std::size_t i = 0; i < results.size(); ++i) {
    if (!results[i]) {
      return Status::error(fmt::format("{}: record {} (i={}) not found", operation, ids[i], i));
    }
    if (*results[i] != engines::bench_row(i)) {
      return Status::error(fmt::format("{}: record {} (i={}) has wrong data {}", operation, ids[i],
                                       i, results[i]->dump()));
    }
  }
  return {};
}

class CacheEngine final : public storh::Engine {
 public:
  storh::EngineInfo describe() const noexcept override {
    storh::EngineInfo info;
    info.description = "DocStore reads through a shared MemoryCache (cold, then warm)";
    info.params = {engines::bench::spec(kValidation), engines::bench::spec(kDurability)};
    info.operations = {
        {"cold", "gets", storh::Direction::lower_is_better,
         "get(cache_bench_id(i)) for every i through a fresh instance: stat, read, parse, "
         "cache inserts"},
        {"warm", "gets", storh::Direction::lower_is_better,
         "the same gets again: validated-cache hits (stat/hash) or shared-cache hits (trust)"},
        {"stat_floor", "files", storh::Direction::lower_is_better,
         "fstatat every record file, no engine (the syscall under a warm STAT get)"},
        {"read_floor", "files", storh::Direction::lower_is_better,
         "openat, fstat, read, close every file of a twin collection, no engine (the I/O of a "
         "cold get)"},
        {"decode_floor", "records", storh::Direction::lower_is_better,
         "decode every record file's bytes (read untimed) into the Json a get returns, no "
         "system call, no cache (the decoding of a cold get)"},
    };
    return info;
  }

  Status run(storh::RunContext& ctx) noexcept override {
    return storh::guarded("cache", [&] { return run_scenario(ctx); });
  }

 private:
  static Status run_scenario(storh::RunContext& ctx) {
    const std::uint64_t n = ctx.dataset_size();
    const doc::Validation mode = doc::validation(ctx);
    const engines::Sync sync = engines::bench::durability(ctx);
    std::vector<std::string> ids;
    ids.reserve(n);
    for (std::uint64_t i = 0; i < n; ++i) ids.push_back(cache_bench_id(i));

    ctx.progress(fmt::format("cache: writing {} records, twice", n));
    write_records(ctx, "cache", ids, sync);
    const FloorFiles twin = write_records(ctx, "cache-floor", ids, sync);

    auto cache = std::make_shared<engines::MemoryCache>(n + 10);
    doc::DocStoreOptions options;
    options.validation = mode;
    options.sync = sync;
    options.cache = cache;
    doc::DocStore store(ctx.work_dir(), "cache", options);
    std::vector<doc::SharedJson> results(n);

    const std::size_t rss_before = resident_bytes();
    Status status = ctx.measure("cold", n, [&]() -> Status {
      for (std::uint64_t i = 0; i < n; ++i) results[i] = store.find(ids[i]);
      return {};
    });
    if (!status.ok()) return status;
    STORH_TRY(check_results("cold", results, ids));
    const std::size_t rss_after = resident_bytes();
    ctx.progress(fmt::format(
        "cache: {} shared entries, ~{} B/entry (cache estimate); {} in-process entries; "
        "RSS +{} B/record after cold",
        cache->size(), cache->bytes() / std::max<std::size_t>(1, cache->size()),
        store.cached_records(), (rss_after > rss_before ? rss_after - rss_before : 0) / n));

    std::fill(results.begin(), results.end(), nullptr);
    status = ctx.measure("warm", n, [&]() -> Status {
      for (std::uint64_t i = 0; i < n; ++i) results[i] = store.find(ids[i]);
      return {};
    });
    if (!status.ok()) return status;
    STORH_TRY(check_results("warm", results, ids));
    if (const std::string& why = store.notify_fallback_reason(); !why.empty()) {
      ctx.progress("cache: " + why);
    }
    return floors(ctx, floor_files(store, ids), twin, ids);
  }

  // The record files as (index of their shard directory, file name).
  struct FloorFiles {
    std::vector<std::string> dirs;
    std::vector<std::pair<std::size_t, std::string>> files;
  };

  static FloorFiles floor_files(const doc::DocStore& store, const std::vector<std::string>& ids) {
    FloorFiles out;
    std::map<std::string, std::size_t, std::less<>> known;
    for (const std::string& id : ids) {
      std::string dir = store.record_path(id).parent_path().string();
      auto it = known.find(dir);
      if (it == known.end()) {
        it = known.emplace(dir, out.dirs.size()).first;
        out.dirs.push_back(std::move(dir));
      }
      out.files.emplace_back(it->second, doc::record_file_name(id));
    }
    return out;
  }

  // Stores bench_row(i) under ids[i] in a fresh collection with a plain writer (put_stream:
  // the files a loop of puts makes), and returns where the files are.
  static FloorFiles write_records(storh::RunContext& ctx, const std::string& collection,
                                  const std::vector<std::string>& ids, engines::Sync sync) {
    doc::DocStoreOptions options;
    options.sync = sync;
    doc::DocStore writer(ctx.work_dir(), collection, options);
    std::size_t next = 0;
    writer.put_stream([&]() -> std::optional<engines::Json> {
      if (next == ids.size()) return std::nullopt;
      const std::size_t i = next++;
      return engines::Json{{"id", ids[i]}, {"data", engines::bench_row(i)}};
    });
    return floor_files(writer, ids);
  }

  static std::vector<engines::UniqueFd> open_dirs(const FloorFiles& floor) {
    std::vector<engines::UniqueFd> fds;
    fds.reserve(floor.dirs.size());
    for (const std::string& dir : floor.dirs) {
      fds.push_back(engines::open_or_throw(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0));
    }
    return fds;
  }

  // `floor` is the store's own files (warm, as the warm gets left them); `twin` the same
  // records in a second collection, written in the same setup and read by no one, as the
  // store's files were when the cold gets began.
  static Status floors(storh::RunContext& ctx, const FloorFiles& floor, const FloorFiles& twin,
                       const std::vector<std::string>& ids) {
    // A warm get finds its shard directory open: opened before the clock starts.
    const std::vector<engines::UniqueFd> warm_dirs = open_dirs(floor);
    Status status = ctx.measure("stat_floor", floor.files.size(), [&]() -> Status {
      struct stat info {};
      for (const auto& [dir, name] : floor.files) {
        if (::fstatat(warm_dirs[dir].get(), name.c_str(), &info, 0) != 0 || info.st_size <= 0) {
          return Status::error(fmt::format("stat_floor: cannot stat {}", name));
        }
      }
      return {};
    });
    if (!status.ok()) return status;
    // A cold pass is a fresh store's first: it opens each shard directory at its first
    // record, by path, and keeps it open; so does this floor, inside the clock.
    std::vector<char> buffer(std::size_t{64} * 1024);
    std::vector<engines::UniqueFd> dirs(twin.dirs.size());
    status = ctx.measure("read_floor", twin.files.size(), [&]() -> Status {
      for (engines::UniqueFd& dir : dirs) dir = engines::UniqueFd();
      struct stat info {};
      for (const auto& [dir, name] : twin.files) {
        if (!dirs[dir].valid()) {
          dirs[dir] = engines::open_or_throw(twin.dirs[dir], O_RDONLY | O_DIRECTORY, 0);
        }
        engines::UniqueFd fd(engines::open_for_reading_at(dirs[dir].get(), name.c_str()));
        if (fd.get() < 0 || ::fstat(fd.get(), &info) != 0 ||
            ::read(fd.get(), buffer.data(), buffer.size()) != info.st_size || info.st_size <= 0) {
          return Status::error(fmt::format("read_floor: cannot read {}", name));
        }
      }
      return {};
    });
    if (!status.ok()) return status;
    return decode_floor(ctx, twin, ids);
  }

  // decode_floor: each twin file's bytes, read before the clock starts, decoded by the
  // store's own record decoder into the shared Json a get returns; no system call, no
  // cache. read_floor + decode_floor is what any get that hands back storh's parsed
  // record pays on this machine; what cold adds beyond both is the caches and the get.
  // Each decoded record is dropped at once, so the loop reuses the same heap memory:
  // the memory cold's caches keep (new pages, which cost what this VM's memory state
  // makes them cost) is theirs, not the decoding's. Every record is decoded and checked
  // once before the clock starts, and the timed pass must decode the same bytes again.
  static Status decode_floor(storh::RunContext& ctx, const FloorFiles& twin,
                             const std::vector<std::string>& ids) {
    std::vector<std::string> bytes;
    bytes.reserve(twin.files.size());
    for (const auto& [dir, name] : twin.files) {
      bytes.push_back(engines::read_file_bytes(std::filesystem::path(twin.dirs[dir]) / name));
    }
    const auto decode = [&](std::size_t i) {
      return std::make_shared<const engines::Json>(
          doc::parse_record(bytes[i], ids[i], twin.files[i].second));
    };
    // The members of the checked records: what the timed pass must decode again.
    std::size_t expected = 0;
    {
      std::vector<doc::SharedJson> results(bytes.size());
      for (std::size_t i = 0; i < bytes.size(); ++i) results[i] = decode(i);
      STORH_TRY(check_results("decode_floor", results, ids));
      for (const doc::SharedJson& record : results) expected += record->size();
    }
    std::size_t members = 0;
    STORH_TRY(ctx.measure("decode_floor", bytes.size(), [&]() -> Status {
      for (std::size_t i = 0; i < bytes.size(); ++i) {
        const doc::SharedJson record = decode(i);
        storh::do_not_optimize(*record);
        members += record->size();
      }
      return {};
    }));
    if (members != expected) {
      return Status::error(
          fmt::format("decode_floor: decoded {} members, expected {}", members, expected));
    }
    return {};
  }
};

}  // namespace

STORH_PLUGIN(cache, "1.0.0", CacheEngine)
