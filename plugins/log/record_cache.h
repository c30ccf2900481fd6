// record_cache.h: decoded lines of segment prefixes, so repeated reads of the log run
// at memory speed instead of re-reading and re-parsing segment files.
//
// For each file of the log's registry the cache may hold a PREFIX: every line from
// byte 0 up to `end`, in file order, with its id, op and parsed data. A prefix only
// grows by the line that starts exactly at `end`; anything else (another process
// appended in between, a line was not decoded) leaves it where it is, and readers go
// to the file for the bytes after `end`.
//
// Why a prefix stays true: segments are append-only; sealed ones never change, and the
// only rewrite is recovery cutting a segment at its first bad line. SegmentedLog checks
// every cached prefix against the lines its recovery scans (and drops mismatches), and
// a stream drops a prefix whose file is now shorter than it. Compaction writes new
// files and hands their lines over (install).
//
// Bounded: at most kMaxLineBytes of cached line bytes (about 2-3x that in memory);
// beyond it whole files are evicted, lowest registry index first. Not thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "common/record.h"
#include "log/log_state.h"

namespace storh::engines::log {

struct CachedLine {
  std::uint64_t offset = 0;
  std::uint64_t size = 0;  // bytes with the LF (without, for a final line that lacks it)
  IdKey id{};
  bool is_delete = false;
  Json data;  // puts only
};

struct CachedSegment {
  std::uint64_t end = 0;  // the prefix covers [0, end)
  std::vector<CachedLine> lines;

  // Index of the line that starts at `offset`, or lines.size() when none does.
  std::size_t index_of(std::uint64_t offset) const noexcept;
};

class RecordCache {
 public:
  static constexpr std::uint64_t kMaxLineBytes = 32ULL << 20;

  // The cached prefix of `file`, or nullptr. Valid until the next non-const call.
  const CachedSegment* find(std::uint32_t file) const noexcept {
    return file < files_.size() ? files_[file].get() : nullptr;
  }
  // The cached line that starts at (file, offset), or nullptr.
  const CachedLine* line_at(std::uint32_t file, std::uint64_t offset) const noexcept;
  // Whether a line at (file, offset) would extend the prefix (check before copying data).
  bool extends(std::uint32_t file, std::uint64_t offset) const noexcept;
  // Adds the line when it extends the prefix; ignores it otherwise.
  void append(std::uint32_t file, std::uint64_t offset, std::uint64_t size, std::string_view id,
              bool is_delete, Json data);
  // The writer added the missing LF of the line that ends at `end`: when the prefix
  // of `file` ends there, its last line grows by that byte.
  void terminate_last(std::uint32_t file, std::uint64_t end) noexcept;
  // Replaces the prefix of `file` (compaction output).
  void install(std::uint32_t file, CachedSegment segment);
  // Mutable access for compaction, which moves data out before dropping the file.
  CachedSegment* find_mutable(std::uint32_t file) noexcept {
    return file < files_.size() ? files_[file].get() : nullptr;
  }
  void drop(std::uint32_t file) noexcept;
  void clear() noexcept;

 private:
  void evict_for(std::uint32_t keep) noexcept;

  std::vector<std::unique_ptr<CachedSegment>> files_;  // by file registry index
  std::uint64_t bytes_ = 0;
};

}  // namespace storh::engines::log
