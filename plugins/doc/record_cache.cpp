#include "doc/record_cache.h"

#include <algorithm>

namespace storh::engines::doc {

CachedRecord* RecordCache::find(std::string_view id) {
  // Transparent lookup needs C++20 heterogeneous unordered lookup (GCC 12: not for
  // std::unordered_map with std::hash<std::string>); a reused member key avoids the
  // allocation per lookup instead. (Not thread_local: a dlclose'd plugin's TLS makes
  // LeakSanitizer's tracer crash at exit, and the cache is single-threaded anyway.)
  key_.assign(id);
  auto found = map_.find(key_);
  return found == map_.end() ? nullptr : &found->second;
}

CachedRecord& RecordCache::upsert(std::string_view id, CachedRecord record) {
  auto [it, inserted] = map_.insert_or_assign(std::string(id), std::move(record));
  if (inserted && order_valid_) {
    if (order_.empty() || order_.back()->first < it->first) {
      order_.push_back(&*it);
    } else {
      order_valid_ = false;
      order_.clear();
    }
  }
  return it->second;
}

void RecordCache::erase(std::string_view id) {
  key_.assign(id);
  auto found = map_.find(key_);
  if (found == map_.end()) return;
  if (order_valid_) {
    auto position = std::lower_bound(
        order_.begin(), order_.end(), id,
        [](const Node* node, std::string_view key) { return std::string_view(node->first) < key; });
    if (position != order_.end() && *position == &*found) order_.erase(position);
  }
  map_.erase(found);
}

void RecordCache::discard() {
  complete_ = false;
  map_.clear();
  order_.clear();
  order_valid_ = true;
}

const std::vector<RecordCache::Node*>& RecordCache::ordered() {
  if (!order_valid_) {
    order_.clear();
    order_.reserve(map_.size());
    for (Node& node : map_) order_.push_back(&node);
    std::sort(order_.begin(), order_.end(),
              [](const Node* a, const Node* b) { return a->first < b->first; });
    order_valid_ = true;
  }
  return order_;
}

std::size_t RecordCache::lower_bound(std::string_view id, bool exclusive) {
  const auto& order = ordered();
  auto position = exclusive ? std::upper_bound(order.begin(), order.end(), id,
                                               [](std::string_view key, const Node* node) {
                                                 return key < std::string_view(node->first);
                                               })
                            : std::lower_bound(order.begin(), order.end(), id,
                                               [](const Node* node, std::string_view key) {
                                                 return std::string_view(node->first) < key;
                                               });
  return static_cast<std::size_t>(position - order.begin());
}

}  // namespace storh::engines::doc
