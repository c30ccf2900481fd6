// rocksdb_store.h: a RocksDB database (Debian's librocksdb 7.8) as a plain byte store,
// the `rocksdb` engine. It knows nothing of benchmarks: bench/rocksdb_plugin.cpp is its
// adapter.
//
// A Store opens one database in a directory (creating it if missing) with the Options
// below and offers get, put, erase and scan over byte strings, in RocksDB's default
// (bytewise) key order.
//
// Durability is Options::wal and Options::sync, RocksDB's own settings: with the WAL a
// write survives a process crash once put() returns, and with sync also a power loss;
// without the WAL a write lives only in the memtable until a flush (close() flushes).
//
// Threading: get, put, erase and scan may be called concurrently from any number of
// threads (RocksDB's DB is thread-safe). close() and the destructor need every other
// call finished.
//
// Failure: every function throws StoreError "rocksdb <operation> <dir>: <RocksDB's
// status>", e.g. "rocksdb put /w/rocksdb: IO error: No space left on device". A
// refused Options value throws StoreError from the constructor naming the value and
// the valid choices.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/engine_count.h"
#include "common/ordered_scan.h"

namespace storh::engines::rocksdb {

enum class Compression { none, snappy, lz4, zstd };
enum class CompactionStyle { level, universal, fifo };

struct Options {
  // Memtable size before a flush to an SST file (RocksDB's default, 64 MiB).
  std::uint64_t write_buffer_size = 64 << 20;
  // The LRU block cache (db_bench's cache_size default, 8 MiB); 0: no block cache.
  std::uint64_t block_cache_size = 8 << 20;
  // SST block compression. The constructor refuses one this build of RocksDB lacks.
  Compression compression = Compression::none;
  // fifo never drops a file here (its size limit is unbounded), so no data is lost:
  // it only means no compaction.
  CompactionStyle compaction_style = CompactionStyle::level;
  // Flush and compaction threads (RocksDB's default, 2). >= 1.
  int max_background_jobs = 2;
  // Bits per key of a bloom filter in each SST file; 0: no filter.
  int bloom_bits = 10;
  // false: WriteOptions::disableWAL, no write-ahead log at all.
  bool wal = true;
  // WriteOptions::sync: each write's WAL record is synced before it returns. Needs wal.
  bool sync = false;
  // RocksDB's Statistics, at the level that keeps its tickers and skips its histograms
  // and timers (kExceptHistogramOrTimers), for take_counts(); false: none kept.
  bool statistics = true;
};

// Whether this build of RocksDB has `compression` (Debian's has all four).
bool supported(Compression compression);
// "none", "snappy", "lz4", "zstd".
std::string_view name(Compression compression);

class Store {
 public:
  // Opens (or creates) the database in `dir`; the directory is created if missing.
  Store(std::filesystem::path dir, const Options& options);
  // Closes as close() does; an error there is lost (call close() to see it).
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

  // RocksDB's tickers since the previous call (which resets them), as EngineCounts:
  // "rocksdb.bytes_written" (BYTES_WRITTEN: the bytes of every write, WAL and memtable),
  // "compact_read_bytes", "compact_write_bytes" (COMPACT_READ_BYTES, COMPACT_WRITE_BYTES),
  // "block_cache_hits", "block_cache_misses" (BLOCK_CACHE_HIT, BLOCK_CACHE_MISS) and
  // "stall_micros" (STALL_MICROS: writers held back for a flush or compaction). Empty
  // when Options::statistics is false. A background compaction counts in the call after
  // it ran, whichever work caused it. Thread-safe.
  std::vector<EngineCount> take_counts() const;

  // Flushes the memtable when the WAL is off (else the log replays it at the next
  // open), then closes the database. Idempotent; no other call is allowed after it.
  void close();

  const std::filesystem::path& dir() const noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace storh::engines::rocksdb
