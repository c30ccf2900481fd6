// map_store.h: the example key-value engine (docs/ycsb.md, "A new engine"): a std::map
// under one mutex, in memory only, with the five calls storh::KeyValueAdapter asks of
// a store. Every call is safe from any thread; false means the key was absent.
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "storh/key_value.h"

namespace storh_example {

class MapStore {
 public:
  bool read(std::string_view key, const std::vector<std::string>& fields, storh::KvRecord& out) {
    const std::lock_guard lock(mutex_);
    const auto it = records_.find(key);
    if (it != records_.end()) out = storh::kv_select(it->second, fields);
    return it != records_.end();
  }
  void scan(std::string_view start, std::size_t count, const std::vector<std::string>& fields,
            std::vector<storh::KvRow>& out) {
    const std::lock_guard lock(mutex_);
    for (auto it = records_.lower_bound(start); it != records_.end() && out.size() < count; ++it) {
      out.push_back({it->first, storh::kv_select(it->second, fields)});
    }
  }
  bool update(std::string_view key, const storh::KvRecord& fields) {
    const std::lock_guard lock(mutex_);
    const auto it = records_.find(key);
    if (it != records_.end()) storh::kv_merge(it->second, fields);
    return it != records_.end();
  }
  void insert(std::string_view key, const storh::KvRecord& fields) {
    const std::lock_guard lock(mutex_);
    records_.insert_or_assign(std::string(key), fields);
  }
  bool remove(std::string_view key) {
    const std::lock_guard lock(mutex_);
    return records_.erase(std::string(key)) > 0;
  }

 private:
  std::mutex mutex_;
  std::map<std::string, storh::KvRecord, std::less<>> records_;
};

}  // namespace storh_example
