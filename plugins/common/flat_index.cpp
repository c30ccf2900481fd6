#include "common/flat_index.h"

#include <xxhash.h>

namespace storh::engines {

std::uint64_t FlatIndex::hash(std::string_view key) noexcept {
  return XXH3_64bits(key.data(), key.size());
}

void FlatIndex::insert(std::uint64_t hash, std::uint32_t slot) {
  if ((size_ + 1) * 2 > buckets_.size()) rehash(buckets_.empty() ? 16 : buckets_.size() * 2);
  const auto low = static_cast<std::uint32_t>(hash);
  const std::size_t mask = buckets_.size() - 1;
  std::size_t i = low & mask;
  while (buckets_[i].slot_plus_one != 0) i = (i + 1) & mask;
  buckets_[i] = Bucket{slot + 1, low};
  ++size_;
}

void FlatIndex::erase(std::uint64_t hash, std::uint32_t slot) noexcept {
  if (size_ == 0) return;
  const auto low = static_cast<std::uint32_t>(hash);
  const std::size_t mask = buckets_.size() - 1;
  std::size_t hole = low & mask;
  while (buckets_[hole].slot_plus_one != slot + 1) {
    if (buckets_[hole].slot_plus_one == 0) return;
    hole = (hole + 1) & mask;
  }
  // Backward shift: move each later bucket of the run into the hole when its home
  // position does not lie (cyclically) between the hole and itself.
  for (std::size_t next = (hole + 1) & mask; buckets_[next].slot_plus_one != 0;
       next = (next + 1) & mask) {
    const std::size_t home = buckets_[next].hash & mask;
    const bool home_in_gap =
        hole <= next ? (hole < home && home <= next) : (hole < home || home <= next);
    if (!home_in_gap) {
      buckets_[hole] = buckets_[next];
      hole = next;
    }
  }
  buckets_[hole] = Bucket{};
  --size_;
}

void FlatIndex::clear() noexcept {
  buckets_.assign(buckets_.size(), Bucket{});
  size_ = 0;
}

void FlatIndex::reserve(std::size_t keys) {
  std::size_t buckets = buckets_.empty() ? 16 : buckets_.size();
  while (buckets < keys * 2) buckets *= 2;
  if (buckets != buckets_.size()) rehash(buckets);
}

void FlatIndex::rehash(std::size_t buckets) {
  std::vector<Bucket, HugePageAllocator<Bucket>> old(buckets);
  old.swap(buckets_);
  const std::size_t mask = buckets_.size() - 1;
  for (const Bucket& bucket : old) {
    if (bucket.slot_plus_one == 0) continue;
    std::size_t i = bucket.hash & mask;
    while (buckets_[i].slot_plus_one != 0) i = (i + 1) & mask;
    buckets_[i] = bucket;
  }
}

}  // namespace storh::engines
