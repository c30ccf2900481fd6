// record_cache.h: the in-process caches of engine-spec.md section 4.5 in one map. Internal to
// the DocStore; not thread-safe.
//
// An entry holds what this instance knows of one record: its data, the stamp (mtime_ns,
// size) and, in HASH mode, the hash of the file it came from, and the canonical file
// bytes when this instance wrote them (export copies those instead of re-encoding).
// storh's path cache is the key set (a record's path follows from its id), its data
// cache the data, its validated cache the stamp.
//
// The map is an IdMap (ids are UUIDv7 text; the store validates every id before it gets
// here): a lookup reads a bucket and one entry rather than walking heap nodes
// (std::unordered_map was 19% of a warm STAT get, the fstatat ~60%).
//
// "complete" means the map holds every record of the collection: true from an open that
// found no data/ directory until something discards the caches. Ordered iteration uses
// the insertion order while inserts came in increasing id order, else a sorted list
// built lazily and kept until the next insert or delete.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/id_map.h"
#include "common/record.h"
#include "doc/record_file.h"
#include "doc/record_writer.h"

namespace storh::engines::doc {

struct CachedRecord {
  std::shared_ptr<const Json> data;
  FileStamp stamp;  // size -1: stamp unknown (not validated)
  Hash128 hash;     // valid when has_hash
  bool has_hash = false;
  // NOTIFY: the change-watch tick at which the stamp was last known to hold (written,
  // read or stat-checked); trusted without a stat while >= the shard watch's since().
  std::uint32_t seen = 0;
  std::string bytes;  // canonical file bytes when written by this instance, else empty
};

class RecordCache {
 public:
  // An entry: id() and value (the CachedRecord).
  using Entry = IdMap<CachedRecord>::Slot;

  explicit RecordCache(bool complete) : complete_(complete) {}

  bool complete() const noexcept { return complete_; }
  std::size_t size() const noexcept { return map_.size(); }

  // nullptr when unknown. `id_hash` (hash(id)) saves computing it again.
  CachedRecord* find(std::string_view id) { return map_.find(id); }
  CachedRecord* find(std::string_view id, std::uint64_t id_hash) { return map_.find(id, id_hash); }
  static std::uint64_t hash(std::string_view id) noexcept { return IdMap<CachedRecord>::hash(id); }
  // IdMap's two prefetch steps for the entry of `id` (see there).
  void prefetch_bucket(std::uint64_t id_hash) const { map_.prefetch_bucket(id_hash); }
  bool prefetch_entry(std::string_view id, std::uint64_t id_hash) const {
    return map_.prefetch_slot(id, id_hash);
  }
  // Inserts or replaces the entry of `id` (36 characters, else std::invalid_argument).
  CachedRecord& upsert(std::string_view id, CachedRecord record) {
    return upsert(id, hash(id), std::move(record));
  }
  // The same with `id_hash` = hash(id).
  CachedRecord& upsert(std::string_view id, std::uint64_t id_hash, CachedRecord record);
  void erase(std::string_view id);
  // Drops everything; the caches become "unknown" (not complete) for good.
  void discard();

  // Every entry in ascending id order (builds the sorted list when needed). The pointers
  // stay valid until the next upsert of a new id, erase or discard.
  const std::vector<Entry*>& ordered();
  // Index of the first entry with id >= `id` (or > when `exclusive`) in ordered().
  std::size_t lower_bound(std::string_view id, bool exclusive);

 private:
  bool complete_;
  IdMap<CachedRecord> map_;
  std::vector<Entry*> order_;
  bool order_valid_ = true;
};

}  // namespace storh::engines::doc
