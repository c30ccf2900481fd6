// index_range.h: reads of one range-indexed field (engine-spec.md 4.7.4, 4.7.7 "Range
// scans", "Counts"): the sorted base file, its checkpoints and the delta file.
//
// The key window comes from the condition: eq -> [key(v), key(v)]; gt/gte/lt/lte/between
// with ordered bounds (index_keys.h is_ordered) -> the bounds' keys; prefix with a string
// -> every key starting with s-<hex(prefix)>. Lines strictly inside a window match
// without parsing their value; lines on a window edge are confirmed with the condition
// (compare() / strict identity). A window is only trusted when every base line lies in
// the bounds' key region (first and last key checked), so mixed-type fields, negative
// numbers and floats take a full scan that confirms every value: answers always equal
// QueryCondition semantics over the indexed (scalar) values.
//
// The checkpoints and edge keys of the base file are kept while its stat stamp (inode,
// size, mtime ns) is unchanged: the base is only ever replaced by a rename, so a changed
// file is a new stamp. A query preads its window from the nearest checkpoint (a few KB
// for a narrow window), so a first query does not pay for reading the whole file. Once
// queries have read as many bytes of one version as it holds (a full scan, or many
// windowed reads), its whole text (up to kMaxCachedBase bytes) is kept in memory, and a
// query then costs one stat of the base and one of the delta before the scan.
//
// NOTIFY (index_hooks.h): while the watch vouches for them, the base file's metadata and
// whether the delta file exists are used without those two stats; an event on the base
// or checkpoint file drops the metadata (changed()), one on the delta's name updates
// whether it exists (its bytes are read by every query that needs them, never kept).
//
// Not thread-safe (caches file metadata); the owning IndexManager serialises use.
// Failures throw StoreError naming the file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/query/query_condition.h"
#include "doc/index_files.h"
#include "doc/index_hooks.h"

namespace storh::engines::doc {

// The three files of a range field: <dir>/<hex>.jsonl, .delta.jsonl, .idx.jsonc.
struct RangePaths {
  std::filesystem::path base;
  std::filesystem::path delta;
  std::filesystem::path checkpoints;
  static RangePaths in(const std::filesystem::path& range_dir, const std::string& field);
};

class RangeIndex {
 public:
  static constexpr std::uint64_t kMaxCachedBase = 16u << 20;

  // `watch`: NOTIFY's ticks (empty: stat on every query).
  explicit RangeIndex(RangePaths paths, IndexWatchSource watch = {})
      : paths_(std::move(paths)), watch_(std::move(watch)) {}

  const RangePaths& paths() const noexcept { return paths_; }
  // Whether the delta file exists (ordered reads and early stops are off while it does).
  bool has_delta();

  // NOTIFY: an event reported `change` of the file at `path` (any path: those of other
  // fields are ignored).
  void changed(std::string_view path, IndexChange change);
  // This instance appended to the delta file.
  void own_delta_append();
  // NOTIFY: checks the base and delta files now if the watch does not vouch for what is
  // known of them (after a rebuild), so the next query needs no stat.
  void revalidate();

  // Whether `condition` can be answered here (eq, gt, gte, lt, lte, between, prefix with
  // an indexable/scalar operand).
  static bool supports(const QueryCondition& condition);
  // Whether the condition has an ordered key window (needed for ordered reads).
  static bool has_ordered_window(const QueryCondition& condition);

  // Ids of records matching `condition` (base then delta applied), ascending id order.
  std::vector<std::string> ids(const QueryCondition& condition);
  // Ids in key order (ascending, or descending with ties kept in ascending id order),
  // at most `limit`. nullopt when an ordered read is not possible (delta file, no
  // ordered window, mixed key regions); the caller then takes ids() and sorts.
  std::optional<std::vector<std::string>> ordered_ids(const QueryCondition& condition,
                                                      bool descending, std::size_t limit);
  // Number of matching ids, stopping at `limit` (0 = none) when there is no delta.
  std::size_t count(const QueryCondition& condition, std::size_t limit);

 private:
  struct Window;
  struct BaseInfo {
    std::uint64_t ino = 0, size = 0;
    std::int64_t mtime_ns = 0;
    bool valid = false;
    std::vector<Checkpoint> checkpoints;
    std::string first_key, last_key;
    std::shared_ptr<const std::string> text;  // the whole base file, when cached
    std::uint64_t bytes_read = 0;             // read by pread scans of this version
  };
  // Stats the base file and refreshes info_; false when the base file is missing.
  bool refresh_base();
  // Reads and keeps the whole base once scans have read as many bytes of it as it holds
  // (and it is at most kMaxCachedBase bytes, and still the version refresh_base saw).
  void cache_text();
  Window window_for(const QueryCondition& condition);
  std::uint64_t seek_offset(const Window& window) const;
  // Calls visit(line, interior) for every base line from the window's start until visit
  // returns false or the window ends; without ids, lines carry key, value and count only.
  template <typename Visit>
  void scan_base(const Window& window, Visit&& visit, bool with_ids = true);
  template <typename Visit>
  void scan_delta(Visit&& visit);

  IndexWatchTicks ticks() const { return watch_ ? watch_() : IndexWatchTicks{}; }

  RangePaths paths_;
  IndexWatchSource watch_;
  BaseInfo info_;
  std::uint32_t base_seen_ = 0;  // the tick info_ was last checked against the base at
  bool delta_exists_ = false;
  std::uint32_t delta_seen_ = 0;  // the tick delta_exists_ was last checked at
};

}  // namespace storh::engines::doc
