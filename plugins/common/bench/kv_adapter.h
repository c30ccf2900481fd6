// kv_adapter.h: what the adapters of the byte-store engines (rocksdb, leveldb, lmdb,
// sqlite) share: the `durability` parameter of a key-value engine, and the ByteStores
// (kv_record.h) over an engine store that many threads may use at once or over a
// connection a session owns. Their other parameters are declared with params.h.
#pragma once

#include <array>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "common/bench/kv_record.h"
#include "common/bench/params.h"
#include "storh/engine.h"

namespace storh::engines::bench {

// The `durability` of a key-value engine (KvDurability, kv_record.h), "fsync" by default.
inline constexpr std::array<std::string_view, 3> kKvDurabilities{"none", "os", "fsync"};
constexpr TextParam kv_durability_param(std::string_view description) {
  return {"durability", "fsync", kKvDurabilities, description};
}
inline KvDurability kv_durability(const Lookup& param) {
  return static_cast<KvDurability>(choice(param, kv_durability_param({})));
}

// The ByteStore of one key-value session over an engine store shared by every session
// (get, put, erase and scan safe from many threads at once, as Store's of rocksdb and
// leveldb are). The store must outlive it.
template <typename Store>
class SharedByteStore final : public ByteStore {
 public:
  explicit SharedByteStore(Store& store) : store_(store) {}
  std::optional<std::string> get(std::string_view key) override { return store_.get(key); }
  void put(std::string_view key, std::string_view value) override { store_.put(key, value); }
  bool erase(std::string_view key) override { return store_.erase(key); }
  void scan(std::string_view start, std::size_t count,
            const std::function<void(std::string_view, std::string_view)>& row) override {
    store_.scan(start, count, row);
  }

 private:
  Store& store_;
};

// The ByteStore of one key-value session over an engine connection it owns and uses
// from the session's thread only (sqlite's SqliteConnection).
template <typename Connection>
class OwningByteStore final : public ByteStore {
 public:
  explicit OwningByteStore(Connection connection) : connection_(std::move(connection)) {}
  std::optional<std::string> get(std::string_view key) override { return connection_.get(key); }
  void put(std::string_view key, std::string_view value) override { connection_.put(key, value); }
  bool erase(std::string_view key) override { return connection_.erase(key); }
  void scan(std::string_view start, std::size_t count,
            const std::function<void(std::string_view, std::string_view)>& row) override {
    connection_.scan(start, count, row);
  }

 private:
  Connection connection_;
};

}  // namespace storh::engines::bench
