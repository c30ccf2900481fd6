// segment_io.h: file-level work on segments: scanning a segment line by line (with the
// recovery cut at the first bad line), and syncing a batch of written files in one pass.
//
// Not thread-safe; every failure throws StoreError naming the file.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "common/durable_io.h"
#include "log/segment_line.h"

namespace storh::engines::log {

struct ScanResult {
  bool missing = false;          // the file does not exist
  bool clean = true;             // every byte belongs to a good line
  bool open_tail = false;        // the last good line lacks its LF (served; see below)
  std::uint64_t good_bytes = 0;  // where the first bad line (or the torn tail) starts
  std::uint64_t file_bytes = 0;
  LineStatus bad_status = LineStatus::ok;  // why the scan stopped (malformed for a tail)
};

// Called for each good line: the decoded view, its offset and its size with the LF (a
// final line without one has its size without it).
using LineFn = std::function<void(const LineView& line, std::uint64_t offset, std::uint64_t size)>;

// Reads `file` and calls `fn` for each line up to the first that does not decode. A
// final line without its LF is good when it decodes (length and checksum intact; storh
// serves it too, engine-spec.md 13.1) and sets `open_tail`; one that does not decode is a
// torn tail. The writer terminates an open tail before its next append. With `cut` set,
// the file is truncated where the bad line starts and fsynced (`sync`). `buffer` is
// reused between calls to avoid reallocations.
ScanResult scan_segment(const std::filesystem::path& file, bool cut, Sync sync, std::string& buffer,
                        const LineFn& fn);

// One descriptor to make durable: fsync when `metadata` (directories, files whose
// size or name matter), else fdatasync. `path` is for messages.
struct SyncTarget {
  int fd = -1;
  const std::filesystem::path* path = nullptr;
  bool metadata = false;
};
// Syncs every target, several at a time from helper threads (their journal commits
// and device requests overlap). Returns when all are durable; throws StoreError for the
// first that failed, after waiting for the others.
void sync_together(const std::vector<SyncTarget>& targets);

// Files written without a sync, synced together. A pass of at least
// kFilesystemSyncMinFiles files is one syncfs of their filesystem, which makes them and
// their directory entries durable, when open_for_syncfs gave a descriptor of `dir`
// (BulkSync::filesystem on a filesystem whose syncfs reports failures). Otherwise each
// is fdatasynced, several at a time from a few helper threads (their journal commits and
// device requests overlap), and the directory is fsynced. flush() returns only after
// every sync succeeded.
class SyncBatch {
 public:
  // Construct it before writing the first file it will sync: its syncfs descriptor must
  // be open by then to see every writeback error of theirs.
  SyncBatch(Sync sync, BulkSync bulk_sync, const std::filesystem::path& dir)
      : sync_(sync), syncfs_dir_(open_for_syncfs(dir, sync, bulk_sync)) {}
  // Creates (or truncates) `path`, writes `bytes`, keeps the descriptor until flush().
  void write_file(const std::filesystem::path& path, std::string_view bytes);
  // Takes an already written descriptor to sync at flush().
  void add(UniqueFd fd, std::filesystem::path path);
  // Syncs every file, closes them, and makes `dir`'s entries durable if a file was
  // created. Also syncs `also_fd` (an open file the caller keeps, e.g. the active
  // segment) when >= 0.
  void flush(const std::filesystem::path& dir, int also_fd = -1,
             const std::filesystem::path& also_path = {});
  bool empty() const noexcept { return files_.empty(); }

 private:
  Sync sync_;
  UniqueFd syncfs_dir_;  // empty: sync each file
  std::vector<std::pair<UniqueFd, std::filesystem::path>> files_;
};

}  // namespace storh::engines::log
