// record_cache.h: the in-process caches of engine-spec.md section 4.5 in one map. Internal to
// the DocStore; not thread-safe.
//
// An entry holds what this instance knows of one record: its data, the stamp (mtime_ns,
// size) and, in HASH mode, the hash of the file it came from, and the canonical file
// bytes when this instance wrote them (export copies those instead of re-encoding).
// storh's path cache is the key set (a record's path follows from its id), its data
// cache the data, its validated cache the stamp.
//
// Layout: ids are UUIDv7 text (36 characters; the store validates every id before it gets
// here) and are kept inside the entries, the entries live in a deque (stable addresses) and
// a FlatIndex maps ids to them, so a lookup reads a bucket and one entry rather than
// walking heap nodes (std::unordered_map was 19% of a warm STAT get, the fstatat ~60%).
//
// "complete" means the map holds every record of the collection: true from an open that
// found no data/ directory until something discards the caches. Ordered iteration uses
// the insertion order while inserts came in increasing id order, else a sorted list
// built lazily and kept until the next insert or delete.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/flat_index.h"
#include "common/record.h"
#include "doc/record_file.h"
#include "doc/record_writer.h"

namespace storh::engines::doc {

struct CachedRecord {
  std::shared_ptr<const Json> data;
  FileStamp stamp;  // size -1: stamp unknown (not validated)
  Hash128 hash;     // valid when has_hash
  bool has_hash = false;
  std::string bytes;  // canonical file bytes when written by this instance, else empty
};

class RecordCache {
 public:
  static constexpr std::size_t kIdSize = 36;

  // 64-byte aligned, the id first: a STAT hit reads the id, data and stamp, which lie in
  // the entry's first two (adjacent) cache lines.
  struct alignas(64) Entry {
    std::array<char, kIdSize> id_text{};
    bool live = false;
    CachedRecord record;

    std::string_view id() const noexcept { return {id_text.data(), id_text.size()}; }
  };

  explicit RecordCache(bool complete) : complete_(complete) {}

  bool complete() const noexcept { return complete_; }
  std::size_t size() const noexcept { return index_.size(); }

  // nullptr when unknown (always for an id that is not 36 characters long).
  CachedRecord* find(std::string_view id);
  // Inserts or replaces the entry of `id` (36 characters, else std::invalid_argument).
  CachedRecord& upsert(std::string_view id, CachedRecord record);
  void erase(std::string_view id);
  // Drops everything; the caches become "unknown" (not complete) for good.
  void discard();

  // Every entry in ascending id order (builds the sorted list when needed). The pointers
  // stay valid until the next upsert of a new id, erase or discard.
  const std::vector<Entry*>& ordered();
  // Index of the first entry with id >= `id` (or > when `exclusive`) in ordered().
  std::size_t lower_bound(std::string_view id, bool exclusive);

 private:
  std::uint32_t slot_of(std::string_view id, std::uint64_t hash) const;

  bool complete_;
  std::deque<Entry> entries_;
  std::vector<std::uint32_t> free_slots_;
  FlatIndex index_;
  std::vector<Entry*> order_;
  bool order_valid_ = true;
};

}  // namespace storh::engines::doc
