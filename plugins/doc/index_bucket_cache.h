// index_bucket_cache.h: bucket files (equality and compound, index_files.h) kept in
// memory while the file is unchanged, so a repeated indexed lookup costs one stat instead
// of an open, a read and a close.
//
// Two levels, each filled by the lookup that needs it, so a first (cold) lookup costs no
// more than reading the file directly: count() reads only up to the "count" field and
// keeps that number; text() reads the whole file and keeps its bytes (callers parse the
// ids they need from it, a limit's worth or all).
//
// Validation: one stat of the file per lookup, as a STAT-mode get (engine-spec.md 4.6). Every
// bucket write is an atomic rename, so a rewritten file is a new inode; a stamp (inode,
// size, mtime to the nanosecond) equal to the cached one is taken as unchanged. That is
// the STAT blind spot of section 4.6, which a rename cannot hit on ext4 (a freed inode is
// not reused for seconds) and a hand edit hits only when it keeps size and mtime. The
// stamp and the bytes come from one open file (fstat of the descriptor read), so a file
// replaced between the stat and the read is cached under its own stamp.
//
// Files larger than kMaxCachedBytes are read on every lookup and never kept.
//
// Not thread-safe: owned by one IndexManager, used by one thread at a time. Failures
// (unreadable, malformed) throw StoreError naming the file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "doc/record_writer.h"

namespace storh::engines::doc {

class BucketCache {
 public:
  static constexpr std::size_t kMaxCachedBytes = 8u << 20;

  // The file's "count" (trusted, as in storh), or nullopt when the file does not exist.
  std::optional<std::int64_t> count(const std::string& path);
  // The file's bytes, or null when the file does not exist.
  std::shared_ptr<const std::string> text(const std::string& path);
  // The first `limit` ids of a bucket whose text is not cached, from a read of the file's
  // head only (a limit's worth of bytes, not the whole file); nullopt when the text is
  // cached, the file is missing or its head holds fewer ids: then take text().
  std::optional<std::vector<std::string>> head_ids(const std::string& path, std::size_t limit);
  // Records the count of a file this instance just wrote, with the stamp of what it
  // wrote (as a count() read would, without reading it back).
  void remember_count(const std::string& path, const FileStamp& stamp, std::int64_t count);
  // Drops what is cached for `path` (this instance just rewrote or removed it).
  void forget(const std::string& path) { entries_.erase(path); }
  void clear() noexcept { entries_.clear(); }
  std::size_t size() const noexcept { return entries_.size(); }

 private:
  struct Entry {
    FileStamp stamp;
    std::int64_t count = 0;
    std::shared_ptr<const std::string> text;  // null: only the count was read
  };
  // The entry of `path` if it exists and its stamp still holds; erases a stale or
  // missing one. `exists` says whether the file exists.
  const Entry* current(const std::string& path, bool& exists);
  std::unordered_map<std::string, Entry> entries_;
};

}  // namespace storh::engines::doc
