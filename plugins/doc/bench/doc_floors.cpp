#include "doc/bench/doc_floors.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "common/bench/answers.h"
#include "common/bench/bench_row.h"
#include "common/canonical_json.h"
#include "common/store_error.h"
#include "common/uuid_v7.h"
#include "doc/record_file.h"
#include "doc/record_writer.h"

namespace storh::engines::doc {
namespace {

// put_floor: the write protocol without an engine, one record at a time.
void floor_writes(const std::filesystem::path& dir, const FloorRecords& records, Sync sync) {
  for (std::size_t i = 0; i < records.size(); ++i) {
    const std::string_view body = records.body(i);
    const std::string_view id = records.id(i);
    const std::filesystem::path shard = dir / shard_of(id);
    const std::filesystem::path temp = shard / (".floor." + std::to_string(i) + ".tmp");
    UniqueFd fd = open_or_throw(temp, O_WRONLY | O_CREAT | O_EXCL, 0644);
    write_all(fd.get(), body, temp);
    sync_file(fd.get(), temp, sync);
    fd.close_or_throw(temp);
    const std::filesystem::path target = shard / record_file_name(id);
    if (::rename(temp.c_str(), target.c_str()) != 0) throw_errno("rename", temp);
    sync_directory(shard, sync);
  }
}

// bulk_floor: RecordWriter::write_batch's protocol without an engine, `batch` records at
// a time: create and write every temp file of the batch, make them durable (one syncfs,
// or an fsync of each after starting its writeback early), fstat and close each, rename
// each into place, and make the renames durable (a second syncfs, or an fsync of every
// shard directory the batch touched).
void floor_bulk_writes(ShardDirs& shards, const FloorRecords& records, std::size_t batch, Sync sync,
                       BulkSync bulk_sync) {
  const std::size_t n = records.size();
  std::vector<UniqueFd> fds;
  std::vector<int> touched;
  char temp[64];
  for (std::size_t first = 0; first < n; first += batch) {
    const std::size_t last = std::min(n, first + batch);
    UniqueFd whole_filesystem;
    if (syncs_filesystem(sync, bulk_sync, last - first)) {
      whole_filesystem = open_for_syncfs(shards.data_dir(), sync, bulk_sync);
    }
    const bool each_file = sync == Sync::durable && !whole_filesystem.valid();
    fds.clear();
    touched.clear();
    for (std::size_t i = first; i < last; ++i) {
      const std::string_view body = records.body(i);
      const int dir = shards.get(shard_of(records.id(i)), false);
      std::snprintf(temp, sizeof temp, ".floor.%zu.tmp", i);
      const int raw = ::openat(dir, temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
      if (raw < 0) throw_errno("openat", temp);
      fds.emplace_back(raw);
      write_all(raw, body, temp);
      if (each_file && last - first > 1) ::sync_file_range(raw, 0, 0, SYNC_FILE_RANGE_WRITE);
      if (each_file && std::find(touched.begin(), touched.end(), dir) == touched.end()) {
        touched.push_back(dir);
      }
    }
    if (whole_filesystem.valid() && syncfs_fd(whole_filesystem.get()) != 0) {
      throw_errno("syncfs", "bulk_floor");
    }
    struct stat info {};
    for (std::size_t i = first; i < last; ++i) {
      UniqueFd& fd = fds[i - first];
      if (each_file && fsync_fd(fd.get()) != 0) throw_errno("fsync", "bulk_floor temp file");
      if (::fstat(fd.get(), &info) != 0) throw_errno("fstat", "bulk_floor temp file");
      fd.close_or_throw("bulk_floor temp file");
    }
    for (std::size_t i = first; i < last; ++i) {
      const std::string_view id = records.id(i);
      const int dir = shards.get(shard_of(id), false);
      std::snprintf(temp, sizeof temp, ".floor.%zu.tmp", i);
      const std::string target = record_file_name(id);
      if (rename_at(dir, temp, target.c_str()) != 0) throw_errno("rename", target);
    }
    if (whole_filesystem.valid()) {
      syncfs_fd(whole_filesystem.get());
    } else if (each_file) {
      for (int dir : touched) sync_directory_fd(dir, sync);
    }
  }
}

// scan_floor: readdir every shard directory under `dir` and fstatat each entry; returns
// the number of regular files seen.
std::size_t floor_scan(const std::filesystem::path& dir) {
  std::size_t files = 0;
  DIR* shards = ::opendir(dir.c_str());
  if (shards == nullptr) throw_errno("opendir", dir);
  while (const dirent* shard = ::readdir(shards)) {
    if (shard->d_name[0] == '.') continue;
    const int fd = ::openat(::dirfd(shards), shard->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR* entries = fd >= 0 ? ::fdopendir(fd) : nullptr;
    if (entries == nullptr) {
      ::closedir(shards);
      throw_errno("opendir", dir / shard->d_name);
    }
    struct stat info {};
    while (const dirent* entry = ::readdir(entries)) {
      if (entry->d_name[0] == '.') continue;
      if (::fstatat(::dirfd(entries), entry->d_name, &info, 0) == 0 && S_ISREG(info.st_mode)) {
        ++files;
      }
    }
    ::closedir(entries);
  }
  ::closedir(shards);
  return files;
}

std::size_t regular_files(const std::filesystem::path& dir) {
  std::size_t files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    files += entry.is_regular_file() ? 1 : 0;
  }
  return files;
}

}  // namespace

FloorRecords::FloorRecords(std::uint64_t n) {
  offsets.push_back(0);
  for (std::uint64_t i = 0; i < n; ++i) {
    add(uuid_v7::generate(kBenchStartMs + static_cast<std::int64_t>(i)), bench_row(i));
  }
}

FloorRecords::FloorRecords(const std::vector<SharedRecord>& records) {
  offsets.push_back(0);
  for (const SharedRecord& record : records) add(record.id, *record.data);
}

void FloorRecords::add(std::string_view id, const Json& data) {
  append_record_bytes(bytes, id, data);
  offsets.push_back(bytes.size());
}

namespace {

// Every shard directory the records need under `dir`, created and opened before the
// clock starts, as the store keeps its shard directories open.
ShardDirs open_shards(const std::filesystem::path& dir, const FloorRecords& records) {
  ShardDirs shards(dir);
  for (std::size_t i = 0; i < records.size(); ++i) shards.get(shard_of(records.id(i)), true);
  return shards;
}

}  // namespace

Status measure_put_and_scan_floors(RunContext& ctx, const std::filesystem::path& dir,
                                   const FloorRecords& records, Sync sync) {
  const std::uint64_t n = records.size();
  open_shards(dir, records);
  STORH_TRY(ctx.measure("put_floor", n, [&] { floor_writes(dir, records, sync); }));
  STORH_TRY(bench::expect_count("put_floor", regular_files(dir), n));
  return ctx.measure("scan_floor", n,
                     [&] { return bench::expect_count("scan_floor", floor_scan(dir), n); });
}

Status measure_bulk_floor(RunContext& ctx, const std::filesystem::path& dir,
                          const FloorRecords& records, std::size_t batch_size, Sync sync,
                          BulkSync bulk_sync) {
  ShardDirs shards = open_shards(dir, records);
  const std::size_t batch = std::max<std::size_t>(1, batch_size);
  STORH_TRY(ctx.measure("bulk_floor", records.size(),
                        [&] { floor_bulk_writes(shards, records, batch, sync, bulk_sync); }));
  return bench::expect_count("bulk_floor", regular_files(dir), records.size());
}

Status measure_delete_floor(RunContext& ctx, const std::filesystem::path& dir,
                            const FloorRecords& records, std::uint64_t deletes, Sync sync) {
  deletes = std::min<std::uint64_t>(deletes, records.size());
  ShardDirs shards = open_shards(dir, records);
  std::vector<std::pair<int, std::string>> victims;
  for (std::size_t i = 0; i < deletes; ++i) {
    const std::string_view id = records.id(i);
    victims.emplace_back(shards.get(shard_of(id), false), record_file_name(id));
    const std::filesystem::path path = shards.shard_path(shard_of(id)) / victims.back().second;
    UniqueFd fd = open_or_throw(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    write_all(fd.get(), records.body(i), path);
    sync_file(fd.get(), path, sync);  // written back, as a stored record is
    fd.close_or_throw(path);
  }
  for (const auto& [shard, name] : victims) sync_directory_fd(shard, sync);
  STORH_TRY(ctx.measure("delete_floor", std::max<std::uint64_t>(deletes, 1), [&] {
    for (const auto& [shard, name] : victims) {
      if (::unlinkat(shard, name.c_str(), 0) != 0) throw_errno("unlink", name);
    }
  }));
  return bench::expect_count("delete_floor", regular_files(dir), 0);
}

Status measure_get_floor(RunContext& ctx, const std::filesystem::path& data_dir,
                         const std::vector<std::string>& ids) {
  ShardDirs shards(data_dir);
  std::vector<std::pair<int, std::string>> files;
  files.reserve(ids.size());
  for (const std::string& id : ids) {
    const int shard = shards.get(shard_of(id), false);
    if (shard < 0) return Status::error("get_floor: no shard directory for " + id);
    files.emplace_back(shard, record_file_name(id));
  }
  return ctx.measure("get_floor", std::max<std::size_t>(files.size(), 1), [&]() -> Status {
    struct stat info {};
    for (const auto& [shard, name] : files) {
      if (::fstatat(shard, name.c_str(), &info, 0) != 0 || info.st_size <= 0) {
        return Status::error("get_floor: cannot stat " + name);
      }
    }
    return {};
  });
}

}  // namespace storh::engines::doc
