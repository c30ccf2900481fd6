// memory_cache_entries.h: how MemoryCache (memory_cache.cpp) lays out its entries: one
// Entry of three cache lines per key, its recency Link, and the EntryTable of chunks
// they live in. Private to memory_cache.cpp; not part of any engine's interface.
//
// Contract: an Entry never moves once made (chunks are never reallocated), so a slot
// number stays valid until the entry is erased or the table cleared. Not thread-safe:
// MemoryCache's mutex guards every use.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/flat_index.h"
#include "common/memory_cache.h"

namespace storh::engines::memory_cache_detail {

inline constexpr std::uint32_t kNone = FlatIndex::kNone;
inline constexpr std::int64_t kNever = std::numeric_limits<std::int64_t>::max();

inline constexpr std::size_t kInlineKey = 48;

// Laid out for cold CPU caches: a hit on a tuple reads the first line and the second (the
// key, when it is short enough to sit inline: "doc:<collection>:<uuid>" for collection
// names of up to 7 characters), nothing else; the third line (a long key, the file hash
// of HASH mode) only when there is one.
struct alignas(64) Entry {
  // line 0
  std::uint64_t hash = 0;
  std::int64_t expires_at = kNever;
  std::uint16_t key_size = 0;  // the key's length when inline, else kInlineKey + 1
  bool live = false;
  bool is_tuple = false;
  bool exists = false;                       // tuple
  bool has_file_hash = false;                // tuple: file_hash is not empty
  bool payload_is_data = false;              // tuple: see RecordTuple
  std::shared_ptr<const std::string> scope;  // tuple
  CacheValue value;                          // the JSON value, or the tuple's payload
  std::int64_t mtime_ns = 0;                 // tuple
  // line 1
  std::int64_t size = -1;  // tuple
  std::array<char, kInlineKey> inline_key{};
  std::size_t bytes = 0;
  // line 2
  std::string long_key;   // the key when longer than kInlineKey
  std::string file_hash;  // tuple

  std::string_view key() const noexcept {
    return key_size <= kInlineKey ? std::string_view(inline_key.data(), key_size)
                                  : std::string_view(long_key);
  }
  void set_key(std::string_view key) {
    key_size = static_cast<std::uint16_t>(std::min(key.size(), kInlineKey + 1));
    if (key.size() <= kInlineKey) {
      std::copy(key.begin(), key.end(), inline_key.begin());
    } else {
      long_key.assign(key);
    }
  }
  std::size_t key_bytes() const noexcept { return long_key.capacity(); }
};

// Three cache lines, as laid out above.
static_assert(sizeof(Entry) == 192 && alignof(Entry) == 64);

struct Link {
  std::uint32_t prev = kNone;
  std::uint32_t next = kNone;
};

// Bookkeeping per entry beyond key and value: the entry, its link and two index buckets.
inline constexpr std::size_t kEntryOverhead = sizeof(Entry) + sizeof(Link) + 16;

// The entries by slot number, in chunks allocated as the cache fills. An entry never
// moves, and a chunk (48 KiB) is small enough for malloc to serve from memory the process
// already uses. One reservation for every key was a fresh mapping instead, whose pages
// faulted on first touch inside the sets that filled them: about one fault per 21 new
// keys, each costing as much as the system calls of a cold read.
class EntryTable {
 public:
  static constexpr std::uint32_t kChunkEntries = 256;

  Entry& operator[](std::uint32_t slot) noexcept {
    return chunks_[slot / kChunkEntries][slot % kChunkEntries];
  }
  const Entry& operator[](std::uint32_t slot) const noexcept {
    return chunks_[slot / kChunkEntries][slot % kChunkEntries];
  }
  std::uint32_t size() const noexcept { return size_; }

  // The slot of a new default entry at the end.
  std::uint32_t add() {
    if (size_ == chunks_.size() * kChunkEntries) {
      chunks_.push_back(std::make_unique<Entry[]>(kChunkEntries));
    }
    return size_++;
  }
  void reserve_chunks(std::size_t keys) {
    chunks_.reserve((keys + kChunkEntries - 1) / kChunkEntries);
  }
  void clear() noexcept {
    chunks_.clear();
    size_ = 0;
  }

 private:
  std::vector<std::unique_ptr<Entry[]>> chunks_;
  std::uint32_t size_ = 0;
};

}  // namespace storh::engines::memory_cache_detail
