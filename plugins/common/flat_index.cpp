#include "common/flat_index.h"

#include <xxhash.h>

#include <algorithm>
#include <memory>

namespace storh::engines {

std::uint64_t FlatIndex::hash(std::string_view key) noexcept {
  return XXH3_64bits(key.data(), key.size());
}

void FlatIndex::insert(std::uint64_t hash, std::uint32_t slot) {
  if ((size_ + 1) * 2 > bucket_count_) rehash(bucket_count_ == 0 ? 16 : bucket_count_ * 2);
  const auto low = static_cast<std::uint32_t>(hash);
  const std::size_t mask = bucket_count_ - 1;
  std::size_t i = low & mask;
  while (buckets_.get()[i].slot_plus_one != 0) i = (i + 1) & mask;
  buckets_.get()[i] = Bucket{slot + 1, low};
  ++size_;
}

void FlatIndex::erase(std::uint64_t hash, std::uint32_t slot) noexcept {
  if (size_ == 0) return;
  const auto low = static_cast<std::uint32_t>(hash);
  const std::size_t mask = bucket_count_ - 1;
  std::size_t hole = low & mask;
  while (buckets_.get()[hole].slot_plus_one != slot + 1) {
    if (buckets_.get()[hole].slot_plus_one == 0) return;
    hole = (hole + 1) & mask;
  }
  // Backward shift: move each later bucket of the run into the hole when its home
  // position does not lie (cyclically) between the hole and itself.
  for (std::size_t next = (hole + 1) & mask; buckets_.get()[next].slot_plus_one != 0;
       next = (next + 1) & mask) {
    const std::size_t home = buckets_.get()[next].hash & mask;
    const bool home_in_gap =
        hole <= next ? (hole < home && home <= next) : (hole < home || home <= next);
    if (!home_in_gap) {
      buckets_.get()[hole] = buckets_.get()[next];
      hole = next;
    }
  }
  buckets_.get()[hole] = Bucket{};
  --size_;
}

void FlatIndex::clear() noexcept {
  size_ = 0;
  if (lent_) {
    buckets_.reset();
    bucket_count_ = 0;
    lent_ = false;
    return;
  }
  std::fill_n(buckets_.get(), bucket_count_, Bucket{});
}

LentMemory FlatIndex::reserve(std::size_t keys, LentMemory lent) {
  std::size_t buckets = bucket_count_ == 0 ? 16 : bucket_count_;
  while (buckets < keys * 2) buckets *= 2;
  if (buckets != bucket_count_) rehash(buckets, &lent);
  return lent;
}

namespace {

// `count` empty buckets in memory of their own, as HugePageAllocator places them.
template <class Bucket>
std::shared_ptr<Bucket[]> own_buckets(std::size_t count) {
  Bucket* const buckets = HugePageAllocator<Bucket>().allocate(count);
  std::uninitialized_value_construct_n(buckets, count);
  return std::shared_ptr<Bucket[]>(
      buckets, [count](Bucket* at) { HugePageAllocator<Bucket>().deallocate(at, count); });
}

}  // namespace

void FlatIndex::rehash(std::size_t buckets, LentMemory* lent) {
  constexpr std::size_t kLine = 64;
  const std::size_t bytes = buckets * sizeof(Bucket);
  std::shared_ptr<Bucket[]> fresh;
  const bool use_lent = lent != nullptr && lent->chars != nullptr && lent->bytes >= bytes &&
                        reinterpret_cast<std::uintptr_t>(lent->chars.get()) % kLine == 0;
  if (use_lent) {
    auto* const at = reinterpret_cast<Bucket*>(lent->chars.get());
    std::uninitialized_value_construct_n(at, buckets);
    fresh = std::shared_ptr<Bucket[]>(lent->chars, at);  // aliasing: the lender's count
    *lent = lend_rest(lent->chars, bytes, lent->bytes);
  } else {
    fresh = own_buckets<Bucket>(buckets);
  }
  const std::shared_ptr<Bucket[]> old = std::exchange(buckets_, std::move(fresh));
  lent_ = use_lent;
  const std::size_t old_count = std::exchange(bucket_count_, buckets);
  const std::size_t mask = bucket_count_ - 1;
  for (std::size_t at = 0; at < old_count; ++at) {
    const Bucket& bucket = old.get()[at];
    if (bucket.slot_plus_one == 0) continue;
    std::size_t i = bucket.hash & mask;
    while (buckets_.get()[i].slot_plus_one != 0) i = (i + 1) & mask;
    buckets_.get()[i] = bucket;
  }
}

}  // namespace storh::engines
