// flat_index.h: an open-addressing hash index from keys to the slot numbers (uint32) of a
// table its owner keeps: the entries of MemoryCache and of the DocStore's record cache.
//
// Why not std::unordered_map: a lookup there walks heap nodes, a cache miss or more per
// node, and the gets these tables serve run between syscalls, with cold CPU caches (in perf,
// the bucket walk of MemoryCache's map was the largest part of a warm TRUST get). Here a
// lookup reads one 8-byte bucket, rarely two, then the owner's entry to compare the key.
// Boost 1.74 has no flat map (unordered_flat_map came with 1.81).
//
// Contract: the owner hashes keys with FlatIndex::hash, keeps the keys in its entries and
// says whether a slot holds a given key (`matches`). Linear probing at a load of at most
// 1/2, backward-shift deletion (no tombstones). A bucket holds slot + 1 (0: empty) and the
// low 32 bits of the hash, so most non-matching buckets are skipped without touching the
// owner's entries. Not thread-safe; failure is std::bad_alloc only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <utility>

#include "common/huge_pages.h"

namespace storh::engines {

class FlatIndex {
 public:
  static constexpr std::uint32_t kNone = 0xffffffffU;

  FlatIndex() = default;
  // Moving leaves the source empty; a copy would share the buckets, so there is none.
  FlatIndex(FlatIndex&& other) noexcept
      : buckets_(std::move(other.buckets_)),
        bucket_count_(std::exchange(other.bucket_count_, 0)),
        size_(std::exchange(other.size_, 0)),
        lent_(std::exchange(other.lent_, false)) {}
  FlatIndex& operator=(FlatIndex&& other) noexcept {
    buckets_ = std::move(other.buckets_);
    bucket_count_ = std::exchange(other.bucket_count_, 0);
    size_ = std::exchange(other.size_, 0);
    lent_ = std::exchange(other.lent_, false);
    return *this;
  }
  FlatIndex(const FlatIndex&) = delete;
  FlatIndex& operator=(const FlatIndex&) = delete;
  ~FlatIndex() = default;

  // XXH3-64 of the key (not a file-format hash: only ever kept in memory).
  static std::uint64_t hash(std::string_view key) noexcept;

  // The slot whose key `matches` (bool(std::uint32_t slot)), or kNone.
  template <class Matches>
  std::uint32_t find(std::uint64_t hash, Matches&& matches) const {
    if (size_ == 0) return kNone;
    const auto low = static_cast<std::uint32_t>(hash);
    const std::size_t mask = bucket_count_ - 1;
    for (std::size_t i = low & mask;; i = (i + 1) & mask) {
      const Bucket& bucket = buckets_.get()[i];
      if (bucket.slot_plus_one == 0) return kNone;
      if (bucket.hash == low && matches(bucket.slot_plus_one - 1)) return bucket.slot_plus_one - 1;
    }
  }

  // Starts loading the bucket a find(hash, ...) reads first, without waiting for it.
  void prefetch(std::uint64_t hash) const noexcept {
    if (bucket_count_ != 0) __builtin_prefetch(&buckets_.get()[hash & (bucket_count_ - 1)]);
  }
  // Where the bucket find(hash, ...) reads first lies: the address of bucket 0 and the
  // mask of bucket numbers (both 0 until the first insert or reserve). For an owner that
  // publishes them to threads that prefetch without its lock; an insert or a reserve may
  // change them.
  std::uintptr_t bucket_base() const noexcept {
    return reinterpret_cast<std::uintptr_t>(buckets_.get());
  }
  std::size_t bucket_mask() const noexcept { return bucket_count_ == 0 ? 0 : bucket_count_ - 1; }
  static constexpr std::size_t kBucketBytes = 8;
  // Adds `slot` under `hash`. The key must not be indexed yet.
  void insert(std::uint64_t hash, std::uint32_t slot);
  // Removes `slot`, indexed under `hash`; nothing when it is not there.
  void erase(std::uint64_t hash, std::uint32_t slot) noexcept;
  // Empties the index. Buckets of its own are kept for what comes next; lent ones are
  // let go, so the lender's block is not kept for an index that no longer needs it.
  void clear() noexcept;
  // Makes room for `keys` keys in all without growing again. The buckets go into the
  // front of `lent` when they fit there (the rest of the huge block the owner's table was
  // just given, huge_pages.h), and take memory of their own otherwise. Returns what is
  // left of `lent`, from the next cache line on (all of it when the buckets took none).
  LentMemory reserve(std::size_t keys, LentMemory lent = {});
  std::size_t size() const noexcept { return size_; }

 private:
  struct Bucket {
    std::uint32_t slot_plus_one = 0;
    std::uint32_t hash = 0;
  };
  static_assert(sizeof(Bucket) == kBucketBytes);
  // Takes the buckets from `lent` when they fit there, leaving the rest in it.
  void rehash(std::size_t buckets, LentMemory* lent = nullptr);

  // Large tables in huge pages (huge_pages.h): past 32,768 keys (131,072 buckets, 1 MiB);
  // from 4,096 keys (64 KiB) in a populated block; or in memory lent by reserve().
  std::shared_ptr<Bucket[]> buckets_;
  std::size_t bucket_count_ = 0;  // a power of two, or 0
  std::size_t size_ = 0;
  bool lent_ = false;  // the buckets are in memory reserve() was lent
};

}  // namespace storh::engines
