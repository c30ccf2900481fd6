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
// NOTIFY (DocStore::index_watch() vouching, index_hooks.h): an entry the watch vouches for
// is returned without the stat, and a missing file is remembered as missing the same way
// (at most kMaxMissing such names); an event on the file drops its entry (forget()).
// Entries the watch does not vouch for are stat-checked once, as above. This instance's
// own bucket writes are remembered as written (remember_written, remember_missing), with
// no stamp: a later stat-check finds none and re-reads the file.
//
// Files larger than kMaxCachedBytes are read on every lookup and never kept.
//
// Not thread-safe: owned by one IndexManager, used by one thread at a time. Failures
// (unreadable, malformed) throw StoreError naming the file.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "doc/index_hooks.h"
#include "doc/record_writer.h"

namespace storh::engines::doc {

// A path's hash without its first `skip` characters: the folder every key of one table
// shares. The table's order, and with it the order its nodes are made and freed in, then
// does not depend on where the store lives. With whole paths hashed, two counting runs of
// one build in two work directories counted instructions up to 1.4% apart
// (doc.jsonl_export; docs/counters.md, "Reproducible counts").
struct PathTailHash {
  std::size_t skip = 0;
  std::size_t operator()(const std::string& path) const noexcept {
    const std::string_view view(path);
    return std::hash<std::string_view>{}(view.substr(std::min(skip, view.size())));
  }
};

class BucketCache {
 public:
  static constexpr std::size_t kMaxCachedBytes = 8u << 20;
  static constexpr std::size_t kMaxMissing = 4096;

  // `watch`: NOTIFY's ticks (empty: validate every lookup by stat). `root_size`: the
  // length of the folder path every cached path starts with (the index folder).
  explicit BucketCache(IndexWatchSource watch = {}, std::size_t root_size = 0)
      : watch_(std::move(watch)), entries_(0, PathTailHash{root_size}) {}

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
  // NOTIFY: this instance just wrote `text` (holding `count` ids) to `path`, or removed
  // `path`; kept as vouched for (nothing in other modes).
  void remember_written(const std::string& path, std::shared_ptr<const std::string> text,
                        std::int64_t count);
  void remember_missing(const std::string& path);
  // NOTIFY: stat-checks now every entry the watch does not vouch for (after a rebuild
  // re-armed the index side), so the next lookups need no stat.
  void revalidate();
  // Drops what is cached for `path` (rewritten or removed, by us or by an event).
  void forget(const std::string& path);
  void clear() noexcept {
    entries_.clear();
    missing_ = 0;
  }
  std::size_t size() const noexcept { return entries_.size(); }

 private:
  struct Entry {
    FileStamp stamp;  // of the bytes cached; none (size -1) for what this instance wrote
    std::int64_t count = 0;
    std::shared_ptr<const std::string> text;  // null: only the count was read
    bool exists = true;                       // false: remembered missing (NOTIFY only)
    std::uint32_t seen = 0;                   // the watch tick it was last validated at
  };
  using Entries = std::unordered_map<std::string, Entry, PathTailHash>;
  IndexWatchTicks ticks() const { return watch_ ? watch_() : IndexWatchTicks{}; }
  // The entry of `path` if the file exists and the entry still holds (vouched for, or
  // its stamp matches); erases a stale one. `exists` says whether the file exists.
  Entry* current(const std::string& path, bool& exists, const IndexWatchTicks& watch);
  void drop(Entries::iterator it);
  // Remembers `path` as missing when the watch can vouch for it.
  void keep_missing(const std::string& path, const IndexWatchTicks& watch);

  IndexWatchSource watch_;
  Entries entries_;
  std::size_t missing_ = 0;  // entries with exists == false
};

}  // namespace storh::engines::doc
