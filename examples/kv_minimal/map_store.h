// map_store.h: a key-value engine in one std::map under one mutex (storh/key_value.h),
// in memory only: the store of the example plugin kv_minimal_plugin.cpp (docs/ycsb.md,
// "A new engine"). MapStore is what a plugin offers; each client gets a MapSession over
// its map. Every call is safe from any thread and never throws.
#pragma once

#include <algorithm>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "storh/key_value.h"

namespace storh_example {

using storh::guarded;
using storh::KeyValueSession;
using storh::KeyValueStore;
using storh::KvCode;
using storh::KvField;
using storh::KvRecord;
using storh::KvRow;
using storh::RunContext;
using storh::Status;

struct Map {
  using Records = std::map<std::string, KvRecord, std::less<>>;
  std::mutex mutex;
  Records records;
};

class MapSession final : public KeyValueSession {
 public:
  explicit MapSession(Map& map) : map_(map) {}

  Status read(std::string_view key, const std::vector<std::string>& fields, KvRecord& out,
              KvCode& code) noexcept override {
    return locked([&] {
      const auto it = find(key, code);
      out = it != map_.records.end() ? project(it->second, fields) : KvRecord{};
    });
  }
  Status scan(std::string_view start, std::size_t count, const std::vector<std::string>& fields,
              std::vector<KvRow>& out) noexcept override {
    return locked([&] {
      out.clear();
      for (auto it = map_.records.lower_bound(start);
           it != map_.records.end() && out.size() < count; ++it) {
        out.push_back({it->first, project(it->second, fields)});
      }
    });
  }
  Status update(std::string_view key, const KvRecord& fields, KvCode& code) noexcept override {
    return locked([&] {
      const auto it = find(key, code);
      for (std::size_t i = 0; it != map_.records.end() && i < fields.size(); ++i) {
        auto at = std::find_if(it->second.begin(), it->second.end(),
                               [&](const KvField& f) { return f.name == fields[i].name; });
        if (at != it->second.end()) {
          at->value = fields[i].value;
        } else {
          it->second.push_back(fields[i]);
        }
      }
    });
  }
  Status insert(std::string_view key, const KvRecord& fields) noexcept override {
    return locked([&] { map_.records.insert_or_assign(std::string(key), fields); });
  }
  Status remove(std::string_view key, KvCode& code) noexcept override {
    return locked([&] {
      if (const auto it = find(key, code); it != map_.records.end()) map_.records.erase(it);
    });
  }

 private:
  // Runs `call` under the map's mutex; an exception (std::bad_alloc) becomes an error.
  template <typename F>
  Status locked(F&& call) {
    return guarded("kv_minimal", [&] {
      std::lock_guard lock(map_.mutex);
      call();
    });
  }
  Map::Records::iterator find(std::string_view key, KvCode& code) {
    const auto it = map_.records.find(key);
    code = it != map_.records.end() ? KvCode::ok : KvCode::not_found;
    return it;
  }
  // The fields asked for (all when `fields` is empty), in the record's order.
  static KvRecord project(const KvRecord& record, const std::vector<std::string>& fields) {
    KvRecord out;
    std::copy_if(record.begin(), record.end(), std::back_inserter(out), [&](const KvField& f) {
      return fields.empty() || std::count(fields.begin(), fields.end(), f.name) > 0;
    });
    return out;
  }

  Map& map_;
};

class MapStore final : public KeyValueStore {
 public:
  Status open(RunContext& /*ctx*/) noexcept override { return {}; }
  Status open_session(std::uint32_t /*client*/,
                      std::unique_ptr<KeyValueSession>& out) noexcept override {
    return guarded("kv_minimal", [&] { out = std::make_unique<MapSession>(map_); });
  }
  Status close() noexcept override { return {}; }

 private:
  Map map_;
};

}  // namespace storh_example
