// log_state.h: the log's in-memory state (engine-spec.md section 5.4), rebuilt on every
// open: the state index (id -> latest location), per-segment statistics with sparse
// offsets, and the equality counters behind count().
//
// Nothing here touches the filesystem. Not thread-safe: owned by one SegmentedLog.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/record.h"
#include "log/manifest.h"

namespace storh::engines::log {

// A UUIDv7 in text form, as a fixed 36-byte key (ids are always 36 characters).
using IdKey = std::array<char, 36>;
IdKey make_key(std::string_view id) noexcept;  // `id` must have 36 characters
inline std::string_view key_view(const IdKey& key) noexcept {
  return std::string_view(key.data(), key.size());
}

struct IdKeyHash {
  std::size_t operator()(const IdKey& key) const noexcept;
};

// Where a line starts: a file of the log's file registry and a byte offset.
struct Location {
  std::uint32_t file = 0;
  std::uint64_t offset = 0;
  friend bool operator==(const Location&, const Location&) = default;
};

struct StateEntry {
  IdKey id{};
  Location location;
  bool deleted = false;
};

// id -> StateEntry, open addressing with linear probing (one allocation for the whole
// table; ~10 ns lookups), plus the rare aliases (older locations of the current version
// that compaction leaves for paused readers).
class StateIndex {
 public:
  const StateEntry* find(std::string_view id) const noexcept;
  // The entry for `id`, inserted (deleted = false, location {}) when missing.
  StateEntry& upsert(std::string_view id, bool& inserted);
  // Removes `id` and its aliases; false when it was not present.
  bool erase(std::string_view id);
  std::size_t size() const noexcept { return size_; }
  void clear();
  void reserve(std::size_t count);

  void add_alias(std::string_view id, Location location);
  void clear_aliases(std::string_view id) {
    if (!aliases_.empty()) aliases_.erase(make_key(id));
  }
  // Empty when `id` has none.
  const std::vector<Location>& aliases(std::string_view id) const;

  template <typename F>
  void for_each(F&& fn) const {
    for (std::size_t i = 0; i < slots_.size(); ++i) {
      if (used_[i]) fn(slots_[i]);
    }
  }

 private:
  std::size_t slot_of(std::string_view id) const noexcept;
  void grow();

  std::vector<StateEntry> slots_;
  std::vector<bool> used_;
  std::size_t size_ = 0;
  std::unordered_map<IdKey, std::vector<Location>, IdKeyHash> aliases_;
};

// One segment of the manifest (or a file a compaction retired), as the log knows it.
struct SegmentState {
  std::uint32_t file = 0;  // index into the file registry
  SegmentEntry entry;      // name, index name, min, max, records, ordered, compacted
  std::uint64_t bytes = 0;
  bool exists = true;               // false: the file was missing at open
  std::vector<SparseEntry> sparse;  // (id, offset) of lines 0, interval, 2*interval, ...

  // Accounts one line at `offset` of `size` bytes with id `id`.
  void add_line(std::string_view id, std::uint64_t offset, std::uint64_t size,
                std::uint64_t interval);
  void reset_stats();
};

// Live records per (field, scalar value), for count() of one equality (section 5.4).
// Valid only while every put adds a new id and nothing is deleted; the log invalidates
// it otherwise and rebuilds it with one parsing scan when a count needs it.
class EqualityCounters {
 public:
  static constexpr std::size_t kMaxDistinct = 64;

  bool valid() const noexcept { return valid_; }
  void invalidate() noexcept {
    valid_ = false;
    fields_.clear();
  }
  // Starts from zero and marks the counters valid.
  void reset_valid() {
    fields_.clear();
    valid_ = true;
  }
  // Counts the scalar top-level fields of a new live record's data.
  void add(const Json& data);
  // The live count of records with `field` == `value`, or -1 when the counters cannot
  // answer (invalid, field disabled, value not scalar).
  std::int64_t count(const std::string& field, const Json& value) const;

 private:
  struct Field {
    bool disabled = false;
    std::unordered_map<std::string, std::uint64_t> counts;
  };
  void add_value(std::string_view field, const Json& value);

  bool valid_ = false;
  std::map<std::string, Field, std::less<>> fields_;
};

// "s:page", "i:3", "b:1", "f:<%.17G>", "n:" for scalars; empty for arrays and objects.
std::string counter_key(const Json& value);

}  // namespace storh::engines::log
