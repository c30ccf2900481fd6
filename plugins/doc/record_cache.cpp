#include "doc/record_cache.h"

#include <algorithm>
#include <stdexcept>

namespace storh::engines::doc {
namespace {

bool id_less(const RecordCache::Entry* a, const RecordCache::Entry* b) {
  return a->id() < b->id();
}

}  // namespace

std::uint32_t RecordCache::slot_of(std::string_view id, std::uint64_t hash) const {
  return index_.find(hash, [&](std::uint32_t slot) { return entries_[slot].id() == id; });
}

CachedRecord* RecordCache::find(std::string_view id) {
  if (id.size() != kIdSize) return nullptr;
  const std::uint32_t slot = slot_of(id, FlatIndex::hash(id));
  return slot == FlatIndex::kNone ? nullptr : &entries_[slot].record;
}

CachedRecord& RecordCache::upsert(std::string_view id, CachedRecord record) {
  if (id.size() != kIdSize) {
    throw std::invalid_argument("RecordCache: a record id is 36 characters (a UUIDv7)");
  }
  const std::uint64_t hash = FlatIndex::hash(id);
  std::uint32_t slot = slot_of(id, hash);
  if (slot != FlatIndex::kNone) {
    entries_[slot].record = std::move(record);
    return entries_[slot].record;
  }
  if (free_slots_.empty()) {
    slot = static_cast<std::uint32_t>(entries_.size());
    entries_.emplace_back();
  } else {
    slot = free_slots_.back();
    free_slots_.pop_back();
  }
  Entry& entry = entries_[slot];
  std::copy(id.begin(), id.end(), entry.id_text.begin());
  entry.live = true;
  entry.record = std::move(record);
  index_.insert(hash, slot);
  if (order_valid_) {
    if (order_.empty() || order_.back()->id() < entry.id()) {
      order_.push_back(&entry);
    } else {
      order_valid_ = false;
      order_.clear();
    }
  }
  return entry.record;
}

void RecordCache::erase(std::string_view id) {
  if (id.size() != kIdSize) return;
  const std::uint64_t hash = FlatIndex::hash(id);
  const std::uint32_t slot = slot_of(id, hash);
  if (slot == FlatIndex::kNone) return;
  Entry& entry = entries_[slot];
  if (order_valid_) {
    auto position = std::lower_bound(order_.begin(), order_.end(), &entry, id_less);
    if (position != order_.end() && *position == &entry) order_.erase(position);
  }
  index_.erase(hash, slot);
  entry = Entry{};
  free_slots_.push_back(slot);
}

void RecordCache::discard() {
  complete_ = false;
  entries_.clear();
  free_slots_.clear();
  index_.clear();
  order_.clear();
  order_valid_ = true;
}

const std::vector<RecordCache::Entry*>& RecordCache::ordered() {
  if (!order_valid_) {
    order_.clear();
    order_.reserve(index_.size());
    for (Entry& entry : entries_) {
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
