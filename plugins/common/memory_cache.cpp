// The entries live in a table of chunks (freed slots are reused); `links` is the recency list
// over their slot numbers (least recent at `head`), and a FlatIndex maps keys to slots.
// An entry holds either a JSON value or a typed record tuple.
#include "common/memory_cache.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "common/canonical_json.h"
#include "common/flat_index.h"
#include "common/memory_cache_entries.h"
#include "common/run_clock.h"

namespace storh::engines {
namespace {

// The entry layout and table (memory_cache_entries.h) are this file's own parts.
using namespace memory_cache_detail;

enum TupleField : std::size_t { kExists, kScope, kMtime, kSize, kHash, kPayload };

bool well_formed_tuple(const Json& entry) {
  return entry.is_array() && entry.size() >= 5 && entry[kExists].is_boolean() &&
         entry[kScope].is_string() && entry[kMtime].is_number_integer() &&
         entry[kSize].is_number_integer() && entry[kHash].is_string() &&
         (!entry[kExists].get<bool>() || entry.size() == 6);
}

// A typed entry's tuple, all but its scope, into `out` (which get_tuple's caller keeps).
void copy_tuple(const Entry& entry, RecordTuple& out) {
  out.exists = entry.exists;
  out.mtime_ns = entry.mtime_ns;
  out.size = entry.size;
  if (entry.has_file_hash) {
    out.hash = entry.file_hash;
  } else {
    out.hash.clear();
  }
  out.payload = entry.value;
  out.payload_is_data = entry.payload_is_data;
}

// How get() shows a tuple: [exists, scope, mtime, size, hash, payload], without the
// payload when !exists.
CacheValue tuple_json(const RecordTuple& tuple) {
  Json array = Json::array({tuple.exists, *tuple.scope, tuple.mtime_ns, tuple.size, tuple.hash});
  if (tuple.exists) {
    if (!tuple.payload) {
      array.push_back(Json());
    } else if (tuple.payload_is_data) {
      array.push_back(encode_compact(*tuple.payload));
    } else {
      array.push_back(*tuple.payload);
    }
  }
  return std::make_shared<const Json>(std::move(array));
}

std::int64_t system_seconds() {
  return run_clock::wall_clock_seconds();
}

}  // namespace

struct MemoryCache::State {
  mutable std::mutex mutex;
  EntryTable entries;
  std::vector<Link> links;
  std::vector<std::uint32_t> free_slots;
  FlatIndex index;
  // index.bucket_base() and bucket_mask(), published for prefetch() (which holds no lock)
  // after every change of the index's buckets.
  std::atomic<std::uintptr_t> hint_base{0};
  std::atomic<std::size_t> hint_mask{0};
  std::uint32_t head = kNone;  // least recently touched
  std::uint32_t tail = kNone;  // most recently touched
  std::size_t bytes = 0;
  Clock clock;

  std::size_t size() const noexcept { return index.size(); }

  void reserve(std::size_t keys) {
    entries.reserve_chunks(keys);
    links.reserve(keys);
    index.reserve(keys);
    publish_buckets();
  }

  void publish_buckets() noexcept {
    hint_base.store(index.bucket_base(), std::memory_order_relaxed);
    hint_mask.store(index.bucket_mask(), std::memory_order_relaxed);
  }

  std::uint32_t find(std::string_view key, std::uint64_t hash) const {
    return index.find(hash, [&](std::uint32_t slot) {
      return entries[slot].hash == hash && entries[slot].key() == key;
    });
  }

  void unlink(std::uint32_t slot) noexcept {
    const Link link = links[slot];
    (link.prev == kNone ? head : links[link.prev].next) = link.next;
    (link.next == kNone ? tail : links[link.next].prev) = link.prev;
  }

  void append(std::uint32_t slot) noexcept {
    links[slot] = Link{tail, kNone};
    (tail == kNone ? head : links[tail].next) = slot;
    tail = slot;
  }

  void touch(std::uint32_t slot) noexcept {
    if (slot == tail) return;
    unlink(slot);
    append(slot);
  }

  // The live, unexpired slot of `key` (an expired one is erased), or kNone.
  // `hash` is FlatIndex::hash(key), computed by the caller before it takes the mutex.
  std::uint32_t lookup(std::string_view key, std::uint64_t hash) {
    const std::uint32_t slot = find(key, hash);
    if (slot == kNone) return kNone;
    if (entries[slot].expires_at != kNever && clock() >= entries[slot].expires_at) {
      erase(slot);
      return kNone;
    }
    return slot;
  }

  // The slot of `key`, made when absent (an empty value, bytes 0), touched.
  // `hash` is FlatIndex::hash(key).
  std::uint32_t slot_for(std::string_view key, std::uint64_t hash) {
    std::uint32_t slot = find(key, hash);
    if (slot != kNone) {
      bytes -= entries[slot].bytes;
      touch(slot);
      return slot;
    }
    if (free_slots.empty()) {
      slot = entries.add();
      links.emplace_back();
    } else {
      slot = free_slots.back();
      free_slots.pop_back();
    }
    Entry& entry = entries[slot];
    entry.set_key(key);
    entry.hash = hash;
    entry.live = true;
    index.insert(hash, slot);
    publish_buckets();
    append(slot);
    return slot;
  }

  void erase(std::uint32_t slot) {
    Entry& entry = entries[slot];
    bytes -= entry.bytes;
    index.erase(entry.hash, slot);
    unlink(slot);
    entry = Entry{};
    free_slots.push_back(slot);
  }

  void clear() {
    entries.clear();
    links.clear();
    free_slots.clear();
    index.clear();
    publish_buckets();
    head = tail = kNone;
    bytes = 0;
  }
};

MemoryCache::MemoryCache(std::size_t max_entries, std::optional<std::size_t> max_bytes, Clock clock)
    : max_entries_(max_entries), max_bytes_(max_bytes), state_(std::make_unique<State>()) {
  if (max_entries_ < 1) throw std::invalid_argument("MemoryCache max_entries must be >= 1");
  if (max_bytes_ && *max_bytes_ < 1) {
    throw std::invalid_argument("MemoryCache max_bytes must be >= 1");
  }
  state_->clock = clock ? std::move(clock) : Clock(system_seconds);
  // One more than the bound: set() adds the new key before it evicts down to the bound.
  state_->reserve(std::min(max_entries_, kReservedKeys) + 1);
}

MemoryCache::~MemoryCache() = default;

CacheValue MemoryCache::get(std::string_view key) {
  const std::uint64_t hash = FlatIndex::hash(key);
  std::unique_lock lock(state_->mutex);
  State& s = *state_;
  const std::uint32_t slot = s.lookup(key, hash);
  if (slot == kNone) return nullptr;
  s.touch(slot);
  const Entry& entry = s.entries[slot];
  if (!entry.is_tuple) return entry.value;
  // Copied under the lock, shown after it: encoding a payload held as data takes a while.
  RecordTuple tuple;
  copy_tuple(entry, tuple);
  tuple.scope = entry.scope;
  lock.unlock();
  return tuple_json(tuple);
}

std::uint64_t MemoryCache::key_hash(std::string_view key) noexcept {
  return FlatIndex::hash(key);
}

void MemoryCache::prefetch(std::uint64_t hash) const noexcept {
  const std::uintptr_t base = state_->hint_base.load(std::memory_order_relaxed);
  const std::size_t mask = state_->hint_mask.load(std::memory_order_relaxed);
  // Integer arithmetic: base and mask may come from two different bucket arrays, and a
  // prefetch of any address is harmless, but forming an out-of-range pointer is not.
  if (base != 0) {
    const std::uintptr_t bucket = base + (hash & mask) * FlatIndex::kBucketBytes;
    // NOLINTNEXTLINE(performance-no-int-to-ptr): an address to prefetch, never dereferenced
    __builtin_prefetch(reinterpret_cast<const void*>(bucket));
  }
}

TupleLookup MemoryCache::get_tuple(std::string_view key, std::uint64_t hash,
                                   const std::shared_ptr<const std::string>& scope,
                                   RecordTuple& out) {
  std::lock_guard lock(state_->mutex);
  State& s = *state_;
  const std::uint32_t slot = s.lookup(key, hash);
  if (slot == kNone) return TupleLookup::absent;
  const Entry& entry = s.entries[slot];
  if (entry.is_tuple) {
    if (entry.scope != scope && *entry.scope != *scope) return TupleLookup::other;
    copy_tuple(entry, out);
  } else {
    const Json& json = *entry.value;
    if (!well_formed_tuple(json) || json[kScope].get_ref<const std::string&>() != *scope) {
      return TupleLookup::other;
    }
    out.exists = json[kExists].get<bool>();
    out.mtime_ns = json[kMtime].get<std::int64_t>();
    out.size = json[kSize].get<std::int64_t>();
    out.hash = json[kHash].get_ref<const std::string&>();
    out.payload = out.exists ? CacheValue(entry.value, &json[kPayload]) : nullptr;
    out.payload_is_data = false;
  }
  s.touch(slot);
  return TupleLookup::found;
}

void MemoryCache::set(std::string_view key, CacheValue value,
                      std::optional<std::int64_t> ttl_seconds) {
  if (!value) {
    remove(key);
    return;
  }
  const std::size_t value_bytes = estimate_bytes(*value);
  std::lock_guard lock(state_->mutex);
  State& s = *state_;
  const std::int64_t expires =
      ttl_seconds ? s.clock() + std::max<std::int64_t>(1, *ttl_seconds) : kNever;
  const std::uint32_t slot = s.slot_for(key, FlatIndex::hash(key));
  Entry& entry = s.entries[slot];
  entry.value = std::move(value);
  entry.is_tuple = false;
  entry.payload_is_data = false;
  entry.exists = false;
  entry.scope = nullptr;
  entry.file_hash.clear();
  entry.has_file_hash = false;
  entry.expires_at = expires;
  entry.bytes = kEntryOverhead + entry.key_bytes() + value_bytes;
  s.bytes += entry.bytes;
  evict(slot);
}

void MemoryCache::set_tuple(std::string_view key, std::uint64_t hash, RecordTuple tuple) {
  if (!tuple.scope) throw std::invalid_argument("MemoryCache::set_tuple: the tuple has no scope");
  std::size_t value_bytes = tuple.hash.capacity();
  if (tuple.payload) value_bytes += estimate_bytes(*tuple.payload);
  std::lock_guard lock(state_->mutex);
  State& s = *state_;
  const std::uint32_t slot = s.slot_for(key, hash);
  Entry& entry = s.entries[slot];
  entry.is_tuple = true;
  entry.exists = tuple.exists;
  entry.scope = std::move(tuple.scope);
  entry.mtime_ns = tuple.mtime_ns;
  entry.size = tuple.size;
  entry.file_hash = std::move(tuple.hash);
  entry.has_file_hash = !entry.file_hash.empty();
  entry.value = std::move(tuple.payload);
  entry.payload_is_data = tuple.payload_is_data;
  entry.expires_at = kNever;
  entry.bytes = kEntryOverhead + entry.key_bytes() + value_bytes;
  s.bytes += entry.bytes;
  evict(slot);
}

void MemoryCache::evict(std::uint32_t just_set) {
  // From the least recent end; the key just set (the most recent) goes last.
  State& s = *state_;
  while (s.size() > 1 && (s.size() > max_entries_ || (max_bytes_ && s.bytes > *max_bytes_))) {
    s.erase(s.head);
  }
  if (max_bytes_ && s.bytes > *max_bytes_ && s.size() == 1) s.erase(just_set);
}

bool MemoryCache::remove(std::string_view key) {
  std::lock_guard lock(state_->mutex);
  const std::uint32_t slot = state_->find(key, FlatIndex::hash(key));
  if (slot == kNone) return false;
  state_->erase(slot);
  return true;
}

std::size_t MemoryCache::clear_prefix(std::string_view prefix) {
  std::lock_guard lock(state_->mutex);
  State& s = *state_;
  std::size_t removed = 0;
  for (std::uint32_t slot = 0; slot < s.entries.size(); ++slot) {
    if (s.entries[slot].live && s.entries[slot].key().starts_with(prefix)) {
      s.erase(slot);
      ++removed;
    }
  }
  return removed;
}

void MemoryCache::clear() {
  std::lock_guard lock(state_->mutex);
  state_->clear();
}

std::size_t MemoryCache::size() const {
  std::lock_guard lock(state_->mutex);
  return state_->size();
}

std::size_t MemoryCache::bytes() const {
  std::lock_guard lock(state_->mutex);
  return state_->bytes;
}

std::size_t MemoryCache::estimate_bytes(const Json& value) noexcept {
  // get_ptr, not get_ref or items(): those may throw, and this must not.
  std::size_t total = sizeof(Json);
  if (const auto* text = value.get_ptr<const Json::string_t*>()) {
    total += sizeof(std::string) + text->capacity();
  } else if (const auto* array = value.get_ptr<const Json::array_t*>()) {
    total += sizeof(Json::array_t);
    for (const Json& element : *array) total += estimate_bytes(element);
  } else if (const auto* object = value.get_ptr<const Json::object_t*>()) {
    total += sizeof(Json::object_t);
    for (const auto& [key, element] : *object) {
      total += sizeof(std::string) + key.capacity() + estimate_bytes(element);
    }
  }
  return total;
}

}  // namespace storh::engines
