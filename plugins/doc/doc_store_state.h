// doc_store_state.h: DocStore's private state and the helpers its three source files
// share (doc_store.cpp: open, single-record operations, scans; doc_store_bulk.cpp: bulk
// writes and JSONL; doc_store_maintenance.cpp: stats, verify, repair, reindex).
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "common/file_lock.h"
#include "common/memory_cache.h"
#include "common/writer_markers.h"
#include "doc/change_watch.h"
#include "doc/disk_scan.h"
#include "doc/doc_store.h"
#include "doc/record_cache.h"
#include "doc/record_writer.h"

namespace storh::engines::doc {

// What a get knows about the record it read, passed to the caches it fills: the hashes it
// computed (so they are not computed again; 0: not known) and whether the data is what
// parsing the file's bytes yields. Only such data is handed to other instances through
// the shared cache: a written record's data may differ from its file's decoding (an empty
// object is written as [], as storh's PHP encoder does), and storh's other instances
// decode the file's text.
struct ReadFacts {
  std::uint64_t record_hash = 0;  // RecordCache::hash(id)
  std::uint64_t shared_hash = 0;  // MemoryCache::key_hash of the id's shared-cache key
  bool parsed_from_bytes = false;

  // The hashes, computed when not known.
  std::uint64_t record_hash_of(std::string_view id) const noexcept {
    return record_hash != 0 ? record_hash : RecordCache::hash(id);
  }
  std::uint64_t shared_hash_of(std::string_view key) const noexcept {
    return shared_hash != 0 ? shared_hash : MemoryCache::key_hash(key);
  }
};

struct DocStore::State {
  std::filesystem::path root;
  std::string collection;
  std::filesystem::path collection_path;
  std::filesystem::path data_dir;
  DocStoreOptions options;
  // xxh128 of collection_path: the shared-cache tuples' scope, one pointer for all of them.
  std::shared_ptr<const std::string> scope;
  std::string prefix;
  std::string shared_prefix;  // "doc:<collection>:"
  std::string shared_key;     // reused buffer for shared-cache keys
  std::string file_name;      // reused buffer for find()'s record file name
  std::string file_bytes;     // reused buffer for find()'s file reads

  std::optional<FileLock> lock;
  WriterMarker marker;
  ShardDirs dirs;
  RecordWriter writer;
  RecordCache cache;
  std::unique_ptr<IndexHooks> hooks;

  // NOTIFY (doc_store_notify.cpp). `watch` is null in other modes and after a fallback.
  std::optional<ChangeWatch> watch;
  std::string notify_fallback;
  // The complete cache matched the disk at a walk since which every change to the file
  // set was reported and applied: the fast path needs no walk.
  bool fast_ok = false;
  bool fast_held = false;  // fast_ok during an own write (see begin_own_write)
  int scanning = 0;        // > 0 while a fast-path scan iterates the cache: no drain

  State(std::filesystem::path root_dir, std::string name, DocStoreOptions opts,
        std::string writer_prefix, bool data_missing);

  const std::string& key_for(std::string_view id) {
    shared_key.resize(shared_prefix.size());
    shared_key.append(id);
    return shared_key;
  }

  // record_file_name(id) in a buffer kept for find() (no allocation per get); valid until
  // the next call.
  const std::string& file_name_for(std::string_view id) {
    assign_record_file_name(file_name, id);
    return file_name;
  }

  // A buffer for the bytes of the record file find() reads, kept from get to get (one
  // allocation and free less per cold get). A buffer a large record grew is given back by
  // trim_file_buffer() after the read, or at the next read when parsing it threw.
  std::string& file_buffer() {
    trim_file_buffer();
    return file_bytes;
  }
  void trim_file_buffer() noexcept {
    constexpr std::size_t kKeptCapacity = std::size_t{64} << 10;
    if (file_bytes.capacity() > kKeptCapacity) std::string().swap(file_bytes);
  }

  std::string new_id();
  // The record from disk (no cache involved): nullopt when absent. Throws when unreadable.
  std::optional<Json> read_from_disk(std::string_view id);
  // Caches the result of a write (or a verified read) in the in-process map and the shared
  // cache. `bytes` are the file's bytes.
  void remember(std::string_view id, std::shared_ptr<const Json> data, const FileStamp& stamp,
                std::string_view bytes, bool canonical, bool in_process = true,
                const ReadFacts& read = {});
  void remember_missing(std::string_view id);
  // A STAT or HASH get through the shared cache (section 4.6): the data when the tuple of
  // `id` (in file `name` of `shard`) still matches the file, null when it records the
  // record as missing and the file is still absent, nullopt when the file must be read
  // (no tuple, or a stale or foreign one, which is removed). Fills the in-process cache.
  // `read.shared_hash` must be known.
  std::optional<SharedJson> from_shared_cache(std::string_view id, std::string_view shard,
                                              const std::string& name, const ReadFacts& read);
  // NOTIFY: drains the watch and applies what it reports, (re)arming it when needed.
  // A no-op in other modes, after a fallback and inside a fast-path scan.
  void sync_watch();
  // The ShardDirs hook: data/<shard> was just made by this instance.
  void shard_made(std::string_view shard);
  // Gives up the watches for good (STAT from now on), keeping `error` as the reason.
  void fall_back(const WatchError& error);
  // Anything that may leave the complete cache unlike the disk.
  void invalidate_fast() noexcept { fast_ok = fast_held = false; }
  // Around an own write and its cache update: a write that throws half-way (a file
  // renamed, the cache not updated) leaves fast_ok false.
  void begin_own_write() noexcept { fast_held = std::exchange(fast_ok, false); }
  void end_own_write() noexcept { fast_ok = std::exchange(fast_held, false); }
  std::uint32_t watch_tick() const noexcept { return watch ? watch->tick() : 0; }
  std::uint32_t watch_since(std::string_view shard) const noexcept {
    return watch ? watch->since(shard) : 0;
  }
  void shared_set(std::string_view id, const std::shared_ptr<const Json>& data,
                  const FileStamp& stamp, std::string_view bytes, const ReadFacts& read);
};

}  // namespace storh::engines::doc
