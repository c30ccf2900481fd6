#include "doc/record_cache.h"

#include <algorithm>

namespace storh::engines::doc {
namespace {

bool id_less(const RecordCache::Entry* a, const RecordCache::Entry* b) {
  return a->id() < b->id();
}

}  // namespace

CachedRecord& RecordCache::upsert(std::string_view id, std::uint64_t id_hash, CachedRecord record) {
  const auto placed = map_.emplace(id, id_hash);
  Entry* entry = placed.slot;
  entry->value = std::move(record);
  if (placed.made && order_valid_) {
    if (order_.empty() || order_.back()->id() < entry->id()) {
      order_.push_back(entry);
    } else {
      order_valid_ = false;
      order_.clear();
    }
  }
  return entry->value;
}

void RecordCache::erase(std::string_view id) {
  if (order_valid_) {  // lower_bound() keeps a valid order as it is
    const std::size_t position = lower_bound(id, false);
    if (position < order_.size() && order_[position]->id() == id) {
      order_.erase(order_.begin() + static_cast<std::ptrdiff_t>(position));
    }
  }
  map_.erase(id);
}

void RecordCache::discard() {
  complete_ = false;
  map_.clear();
  order_.clear();
  order_valid_ = true;
}

const std::vector<RecordCache::Entry*>& RecordCache::ordered() {
  if (!order_valid_) {
    order_.clear();
    order_.reserve(map_.size());
    for (Entry& entry : map_.slots()) {
      if (entry.live) order_.push_back(&entry);
    }
    std::sort(order_.begin(), order_.end(), id_less);
    order_valid_ = true;
  }
  return order_;
}

std::size_t RecordCache::lower_bound(std::string_view id, bool exclusive) {
  const auto& order = ordered();
  auto position =
      exclusive ? std::upper_bound(
                      order.begin(), order.end(), id,
                      [](std::string_view key, const Entry* entry) { return key < entry->id(); })
                : std::lower_bound(
                      order.begin(), order.end(), id,
                      [](const Entry* entry, std::string_view key) { return entry->id() < key; });
  return static_cast<std::size_t>(position - order.begin());
}

}  // namespace storh::engines::doc
