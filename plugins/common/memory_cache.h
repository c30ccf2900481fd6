// memory_cache.h: the in-process key/value cache of engine-spec.md section 7 (storh's
// Cache::memory), usable on its own and as the DocStore's shared cache (section 4.6).
//
// Values are immutable JSON values held by shared_ptr, the C++ counterpart of the PHP
// values storh caches: a get hands out another reference, never a copy, so a reader may
// keep a value after it was replaced or evicted.
//
// Behaviour (section 7.2):
//   * LRU: every get hit and every set touches the key; eviction removes the least
//     recently touched key. The key just set is evicted only when nothing else is left.
//     storh keeps a lazy access log for this; we keep an intrusive recency list (same
//     order, O(1) touch, no log that grows with every get).
//   * Bounds: at most `max_entries` (>= 1) keys and, when `max_bytes` is set, at most
//     that many bytes by this cache's own estimate (key + value + bookkeeping). storh
//     measured the whole PHP process against max_bytes instead; an estimate of the
//     cache's own memory is the meaningful bound in C++. Eviction runs only inside set.
//   * TTL: a key set with ttl expires at now + max(1, ttl) seconds and is removed by the
//     first get that finds it expired.
//
// Record tuples: a DocStore keeps section 4.6's tuple [exists, scope, mtime, size, hash,
// payload] per record here. set_tuple() stores it typed (no JSON array to build, walk and
// check on every get) and get_tuple() reads it back; get() shows a tuple as that JSON
// array, and get_tuple() reads a well-formed JSON tuple set() by anyone, so the cache looks
// to its users as if it held JSON only.
//
// Layout: the entries sit in fixed chunks, the recency list is a vector of index links and
// the key index is a FlatIndex, so a get touches a few cache lines, not a chain of heap
// nodes (docs/engines/cache.md says what the chain cost).
//
// Thread safety: every method may be called from any thread; one mutex guards the
// state (DocStore instances in several threads may share one cache). Failure: only
// std::bad_alloc; the constructor throws std::invalid_argument for zero bounds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "common/record.h"

namespace storh::engines {

using CacheValue = std::shared_ptr<const Json>;

// Section 4.6's shared-cache tuple, typed.
struct RecordTuple {
  bool exists = false;
  // The store's scope (the xxh128 of its collection path); a store hands the same pointer
  // to all its tuples, so the scope check of a get is usually a pointer comparison.
  std::shared_ptr<const std::string> scope;
  std::int64_t mtime_ns = 0;
  std::int64_t size = -1;
  std::string hash;  // xxh128 hex of the file in HASH mode, else empty
  // exists: the data itself (TRUST) or a JSON text of it as a JSON string (STAT, HASH),
  // unless payload_is_data. Absent (null) when !exists.
  CacheValue payload;
  // STAT, HASH: the payload is the data itself, shown by get() as its canonical JSON text.
  // A DocStore sets this for data it parsed from the record's file, so the tuple keeps
  // section 4.6's shape without a second copy of the record as text, and a hit hands out
  // that parsed value (immutable, like every cached value) instead of decoding the text
  // again. A tuple set() as JSON always holds text.
  bool payload_is_data = false;
};

enum class TupleLookup {
  absent,  // no such key (or it expired)
  other,   // the key holds something else: not a well-formed tuple, or another scope
  found,
};

class MemoryCache {
 public:
  // Seconds on some monotonic or wall clock; injectable so TTL tests need no sleeps.
  using Clock = std::function<std::int64_t()>;

  // The constructor makes room for this many keys at most (or max_entries, when fewer): a
  // cache filling up to that many then never rehashes its index, whose buckets it zeroes
  // (8 bytes per bucket, two buckets a key), nor grows its recency list (reserved, not
  // touched). Entries never move: they sit in chunks allocated as the cache fills. (A
  // growing entry vector and the rehashes were once 44% of set_tuple on a cold read.)
  static constexpr std::size_t kReservedKeys = std::size_t{1} << 16;

  explicit MemoryCache(std::size_t max_entries = 10000,
                       std::optional<std::size_t> max_bytes = std::nullopt, Clock clock = {});
  ~MemoryCache();
  MemoryCache(const MemoryCache&) = delete;
  MemoryCache& operator=(const MemoryCache&) = delete;

  // The value, or nullptr when the key is absent or expired (an expired key is removed).
  // A hit touches the key.
  CacheValue get(std::string_view key);
  // Stores (replacing) and touches the key, then evicts down to the bounds. A null
  // value deletes the key. ttl_seconds: none = no expiry.
  void set(std::string_view key, CacheValue value,
           std::optional<std::int64_t> ttl_seconds = std::nullopt);
  void set(std::string_view key, Json value,
           std::optional<std::int64_t> ttl_seconds = std::nullopt) {
    set(key, std::make_shared<const Json>(std::move(value)), ttl_seconds);
  }
  // The record tuple of `key` when it is one of `scope`: fills `out` (all but out.scope,
  // which is left alone) and touches the key, as a get hit does.
  TupleLookup get_tuple(std::string_view key, const std::shared_ptr<const std::string>& scope,
                        RecordTuple& out) {
    return get_tuple(key, key_hash(key), scope, out);
  }
  // The same with `hash` = key_hash(key), for a caller that prefetched (below).
  TupleLookup get_tuple(std::string_view key, std::uint64_t hash,
                        const std::shared_ptr<const std::string>& scope, RecordTuple& out);
  // The hash a key is indexed by, and a hint that starts loading the index bucket a lookup
  // of that hash reads first, without the mutex and without waiting: a caller with other
  // work to do before its get (a DocStore validating the id) overlaps that cache miss with
  // it. Racing with a writer only makes the hint load the wrong line.
  static std::uint64_t key_hash(std::string_view key) noexcept;
  void prefetch(std::uint64_t hash) const noexcept;
  // Stores (replacing) a record tuple, as set() does; tuple.scope must not be null.
  void set_tuple(std::string_view key, RecordTuple tuple) {
    set_tuple(key, key_hash(key), std::move(tuple));
  }
  // The same with `hash` = key_hash(key), for a caller that looked the key up before.
  void set_tuple(std::string_view key, std::uint64_t hash, RecordTuple tuple);
  // storh's delete(key). Returns whether the key was present.
  bool remove(std::string_view key);
  // Deletes every key that starts with `prefix`; returns how many.
  std::size_t clear_prefix(std::string_view prefix);
  void clear();

  std::size_t size() const;
  // This cache's estimate of the memory its entries hold, in bytes.
  std::size_t bytes() const;
  std::size_t max_entries() const noexcept { return max_entries_; }
  std::optional<std::size_t> max_bytes() const noexcept { return max_bytes_; }

  // The estimate used for the byte bound: the heap bytes a JSON value holds.
  static std::size_t estimate_bytes(const Json& value) noexcept;

 private:
  struct State;
  // Evicts least recent keys down to the bounds; `just_set` goes only when it is alone.
  void evict(std::uint32_t just_set);

  std::size_t max_entries_;
  std::optional<std::size_t> max_bytes_;
  std::unique_ptr<State> state_;
};

}  // namespace storh::engines
