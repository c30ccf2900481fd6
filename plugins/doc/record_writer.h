// record_writer.h: the record write path of engine-spec.md section 4.2 (single and batched),
// over cached shard-directory descriptors. Internal to the DocStore.
//
// Single write: temp .<prefix>.<counter>.tmp in data/<shard>, write, fsync, fstat,
// close, rename to <id>.jsonc, fsync the shard directory.
// Batch write (the bulk protocol documented in doc_store.h): every temp file written,
// then made durable, then all renamed in order, then the renames made durable. With
// BulkSync::filesystem (batches of kFilesystemSyncMinFiles or more, where open_for_syncfs
// in durable_io.h allows it) each "made durable" is one syncfs(2) of the store's
// filesystem. Otherwise each temp file has its writeback started as it is written
// (sync_file_range) and is fsynced after the others are written, and each touched
// directory is fsynced once. Either way a failure unlinks
// the temp files not yet renamed and throws StoreError("Could not write storage file
// <path>: <reason>").
//
// Not thread-safe (owned by one DocStore).
#pragma once

#include <sys/stat.h>

#include <array>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>

#include "common/durable_io.h"
#include "storh/function_ref.h"

namespace storh::engines::doc {

// What the caches compare to detect external changes: mtime to the nanosecond, size and
// inode number (a rename-based rewrite by another writer makes a new inode).
struct FileStamp {
  std::int64_t mtime_ns = 0;
  std::int64_t size = -1;  // -1: missing
  std::uint64_t inode = 0;
  friend bool operator==(const FileStamp&, const FileStamp&) = default;
};
FileStamp stamp_of(const struct stat& info) noexcept;

// Open descriptors of data/ and its shard directories, kept for the instance's life so
// reads resolve one path component (fstatat/openat) and writes fsync without opening.
class ShardDirs {
 public:
  explicit ShardDirs(std::filesystem::path data_dir);
  // The descriptor of data/<shard>, or -1 when it does not exist and !create. With
  // create, makes data/ and the shard (not fsynced, as in storh). Throws on failure.
  int get(std::string_view shard, bool create);
  // Forgets a descriptor that may be stale (the directory was removed behind us).
  void forget(std::string_view shard);
  // Runs `op(dir_fd)` on data/<shard>, where `op` acts on <name> and returns 0 or an
  // errno value. When that is ENOENT but data/<shard>/<name> exists at its path, the
  // directory was replaced behind us: the descriptor is reopened and `op` runs once
  // more. Returns the last result; ENOENT when the shard does not exist.
  int at_name(std::string_view shard, const std::string& name, FunctionRef<int(int)> op);
  void clear();
  // Called with the shard name after get(shard, true) made data/<shard> (and data/ when
  // missing), before anything is written in it: the notify validation watches it there.
  void on_made(std::function<void(std::string_view shard)> hook) { on_made_ = std::move(hook); }
  const std::filesystem::path& data_dir() const noexcept { return data_dir_; }
  std::filesystem::path shard_path(std::string_view shard) const;
  // 0-255 for a two-lower-case-hex-digit shard (the shards a store makes), else nullopt.
  static std::optional<std::size_t> hex_index(std::string_view shard) noexcept;

 private:
  std::filesystem::path data_dir_;
  // A store's shards are two lower-case hex digits of the id (shard_of), so their
  // descriptors sit in a table indexed by those digits: a get() on the read path is an
  // array load, not a hash-map probe (4% of an indexed query's time). Other names (never
  // made by a store, but allowed) are kept in the map.
  std::array<UniqueFd, 256> hex_fds_;
  std::unordered_map<std::uint32_t, UniqueFd> other_fds_;
  std::function<void(std::string_view)> on_made_;
};

// Reads <name> in `dir_fd` whole. Returns false when it does not exist; fills `info` from
// fstat of the same open file (so bytes and stamp describe one inode). Throws otherwise.
bool read_file_at(int dir_fd, const std::string& name, std::string& bytes, struct stat& info,
                  const std::filesystem::path& where);
// The same, building the path for an error message only when one is thrown (the read
// path of a get: a path per call costs more than the parse).
bool read_file_at(int dir_fd, const std::string& name, std::string& bytes, struct stat& info,
                  FunctionRef<std::filesystem::path()> where);

// Test seam: called at each step of the write path, so crash tests can _exit there.
enum class WriteStep { temp_created, temp_written, temp_synced, renamed, directory_synced };
using WriteStepHook = void (*)(WriteStep step);
void set_write_step_hook(WriteStepHook hook) noexcept;

class RecordWriter {
 public:
  RecordWriter(ShardDirs& dirs, std::string prefix, Sync sync, BulkSync bulk_sync);

  // One durable record write; returns the new file's stamp.
  FileStamp write(std::string_view id, std::string_view bytes);

  struct BatchItem {
    std::string_view id;
    std::string_view bytes;
    FileStamp stamp;  // filled by write_batch
  };
  // The batched protocol; every item is durable when it returns.
  void write_batch(std::span<BatchItem> items);

 private:
  std::string temp_name();

  ShardDirs& dirs_;
  std::string prefix_;
  Sync sync_;
  BulkSync bulk_sync_;
  std::uint64_t counter_ = 0;
};

}  // namespace storh::engines::doc
