// leveldb_store.h: a LevelDB database (Debian's libleveldb 1.23) as a plain byte store,
// the `leveldb` engine. It knows nothing of benchmarks: bench/leveldb_plugin.cpp is its
// adapter.
//
// A Store opens one database in a directory (creating it if missing) with the Options
// below and offers get, put, erase and scan over byte strings, in LevelDB's default
// (bytewise) key order.
//
// Durability: LevelDB always writes its log, so a write survives a process crash once
// put() returns; with Options::sync (WriteOptions::sync) the log is synced first, so it
// also survives a power loss. There is no way to write without the log.
//
// Threading: get, put, erase and scan may be called concurrently from any number of
// threads (LevelDB's DB is thread-safe). close() and the destructor need every other
// call finished.
//
// Failure: every function throws StoreError "leveldb <operation> <dir>: <LevelDB's
// status>", e.g. "leveldb put /w/leveldb: IO error: /w/leveldb/000005.log: No space left
// on device".
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "common/ordered_scan.h"

namespace storh::engines::leveldb {

enum class Compression { none, snappy };

struct Options {
  // The LRU block cache (db_bench's default, 8 MiB); 0 caches nothing.
  std::uint64_t cache_size = 8 << 20;
  // Block compression. Debian's libleveldb links snappy (without it LevelDB would
  // silently store blocks uncompressed).
  Compression compression = Compression::none;
  // Memtable size before it is written as a level-0 table (LevelDB's default, 4 MiB).
  // LevelDB clips it to [64 KiB, 1 GiB].
  std::uint64_t write_buffer_size = 4 << 20;
  // Bits per key of a bloom filter in each table; 0: no filter.
  int bloom_bits = 10;
  // WriteOptions::sync: the log is synced before each write returns.
  bool sync = false;
};

class Store {
 public:
  // Opens (or creates) the database in `dir`; the directory is created if missing.
  Store(std::filesystem::path dir, const Options& options);
  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  // The value of `key` into `value`; false (value untouched) when absent.
  bool get(std::string_view key, std::string& value) const;
  std::optional<std::string> get(std::string_view key) const;
  // Stores `value` under `key`, replacing any, with the Options' durability.
  void put(std::string_view key, std::string_view value);
  // Removes `key`; false when it was absent. A get then a delete: the answer is exact
  // unless another thread writes the same key at the same time.
  bool erase(std::string_view key);
  // Calls `row` for up to `count` entries in key order from the first key >= `start`.
  void scan(std::string_view start, std::size_t count, const ScanRow& row) const;

  // Closes the database (the log replays the memtable at the next open). Idempotent;
  // no other call is allowed after it.
  void close() noexcept;

  const std::filesystem::path& dir() const noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace storh::engines::leveldb
