// index_bucket_cache.h: bucket files (equality and compound, index_files.h) parsed once
// and kept in memory while the file is unchanged, so an indexed count or lookup costs one
// stat instead of an open, a read, a parse and a close.
//
// Validation: one stat of the file per lookup, as a STAT-mode get (engines.md 4.6). Every
// bucket write is an atomic rename, so a rewritten file is a new inode; a stamp (inode,
// size, mtime to the nanosecond) equal to the cached one is taken as unchanged. That is
// the STAT blind spot of section 4.6, which a rename cannot hit on ext4 (a freed inode is
// not reused for seconds) and a hand edit hits only when it keeps size and mtime. The
// stamp and the bytes come from one open file (fstat of the descriptor read), so a file
// replaced between the stat and the read is cached under its own stamp.
//
// Files larger than kMaxCachedBytes are parsed on every lookup and never kept (the ids
// of a huge bucket would cost more memory than the read saves).
//
// Not thread-safe: owned by one IndexManager, used by one thread at a time. Failures
// (unreadable, malformed) throw StoreError naming the file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "doc/record_writer.h"

namespace storh::engines::doc {

class BucketCache {
 public:
  static constexpr std::size_t kMaxCachedBytes = 8u << 20;

  struct Bucket {
    std::int64_t count = 0;        // the file's "count" (trusted, as in storh)
    std::vector<std::string> ids;  // ascending, as written
  };

  // The bucket at `path`, or nullptr when the file does not exist.
  std::shared_ptr<const Bucket> get(const std::string& path);
  // Drops what is cached for `path` (this instance just rewrote or removed it).
  void forget(const std::string& path) { entries_.erase(path); }
  void clear() noexcept { entries_.clear(); }
  std::size_t size() const noexcept { return entries_.size(); }

 private:
  struct Entry {
    FileStamp stamp;
    std::shared_ptr<const Bucket> bucket;
  };
  std::unordered_map<std::string, Entry> entries_;
};

}  // namespace storh::engines::doc
