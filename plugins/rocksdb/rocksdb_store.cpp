// rocksdb_store.cpp: the RocksDB byte store (rocksdb_store.h).
//
// This namespace is storh::engines::rocksdb, so RocksDB's own is spelled ::rocksdb.
#include "rocksdb/rocksdb_store.h"

#include <rocksdb/convenience.h>
#include <rocksdb/db.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/iterator.h>
#include <rocksdb/options.h>
#include <rocksdb/perf_level.h>
#include <rocksdb/statistics.h>
#include <rocksdb/table.h>

#include <algorithm>
#include <limits>
#include <utility>

#include "common/store_error.h"

namespace storh::engines::rocksdb {

namespace {

::rocksdb::CompressionType compression_type(Compression compression) {
  switch (compression) {
    case Compression::snappy:
      return ::rocksdb::kSnappyCompression;
    case Compression::lz4:
      return ::rocksdb::kLZ4Compression;
    case Compression::zstd:
      return ::rocksdb::kZSTD;
    case Compression::none:
      break;
  }
  return ::rocksdb::kNoCompression;
}

::rocksdb::CompactionStyle compaction_style(CompactionStyle style) {
  switch (style) {
    case CompactionStyle::universal:
      return ::rocksdb::kCompactionStyleUniversal;
    case CompactionStyle::fifo:
      return ::rocksdb::kCompactionStyleFIFO;
    case CompactionStyle::level:
      break;
  }
  return ::rocksdb::kCompactionStyleLevel;
}

// RocksDB counts into a thread-local PerfContext by default (kEnableCount): an increment
// per key comparison and per block read, a few thread-local lookups in every get and put.
// db_bench runs with counting off (its --perf_level default), and nothing here reads the
// PerfContext, so each call turns it off for its thread (perf level is per thread, and
// the host's client threads are not ours to set up).
void no_perf_counting() {
  ::rocksdb::SetPerfLevel(::rocksdb::PerfLevel::kDisable);
}

::rocksdb::Slice slice(std::string_view bytes) {
  return {bytes.data(), bytes.size()};
}

::rocksdb::Options rocksdb_options(const Options& options) {
  ::rocksdb::Options result;
  result.create_if_missing = true;
  result.write_buffer_size = options.write_buffer_size;
  result.max_background_jobs = options.max_background_jobs;
  result.compression = compression_type(options.compression);
  result.compaction_style = compaction_style(options.compaction_style);
  // FIFO deletes the oldest files beyond this size; unbounded, every key stays readable.
  result.compaction_options_fifo.max_table_files_size = std::numeric_limits<std::uint64_t>::max();

  ::rocksdb::BlockBasedTableOptions table;
  if (options.block_cache_size == 0) {
    table.no_block_cache = true;
  } else {
    table.block_cache = ::rocksdb::NewLRUCache(options.block_cache_size);
  }
  if (options.bloom_bits > 0) {
    table.filter_policy.reset(::rocksdb::NewBloomFilterPolicy(options.bloom_bits, false));
  }
  result.table_factory.reset(::rocksdb::NewBlockBasedTableFactory(table));
  if (options.statistics) {
    // Tickers only: histograms and timers cost a clock read per call.
    result.statistics = ::rocksdb::CreateDBStatistics();
    result.statistics->set_stats_level(::rocksdb::StatsLevel::kExceptHistogramOrTimers);
  }
  return result;
}

}  // namespace

bool supported(Compression compression) {
  const std::vector<::rocksdb::CompressionType> types = ::rocksdb::GetSupportedCompressions();
  return compression == Compression::none ||
         std::find(types.begin(), types.end(), compression_type(compression)) != types.end();
}

std::string_view name(Compression compression) {
  switch (compression) {
    case Compression::snappy:
      return "snappy";
    case Compression::lz4:
      return "lz4";
    case Compression::zstd:
      return "zstd";
    case Compression::none:
      break;
  }
  return "none";
}

struct Store::Impl {
  std::filesystem::path dir;
  std::shared_ptr<::rocksdb::Statistics> statistics;  // null when Options::statistics is off
  std::unique_ptr<::rocksdb::DB> db;
  ::rocksdb::WriteOptions write;
  ::rocksdb::ReadOptions read;
  bool wal = true;

  [[noreturn]] void fail(std::string_view operation, const ::rocksdb::Status& status) const {
    throw StoreError("rocksdb " + std::string(operation) + " " + dir.string() + ": " +
                     status.ToString());
  }
};

Store::Store(std::filesystem::path dir, const Options& options) : impl_(std::make_unique<Impl>()) {
  impl_->dir = std::move(dir);
  if (options.sync && !options.wal) {
    throw StoreError("rocksdb open " + impl_->dir.string() +
                     ": sync needs the WAL (wal = false writes no log to sync)");
  }
  if (!supported(options.compression)) {
    std::string have = "none";
    for (Compression c : {Compression::snappy, Compression::lz4, Compression::zstd}) {
      if (supported(c)) have += ", " + std::string(name(c));
    }
    throw StoreError("rocksdb open " + impl_->dir.string() + ": this RocksDB build lacks " +
                     std::string(name(options.compression)) + " compression (it has: " + have +
                     ")");
  }
  impl_->wal = options.wal;
  impl_->write.disableWAL = !options.wal;
  impl_->write.sync = options.sync;

  std::error_code ec;
  std::filesystem::create_directories(impl_->dir, ec);
  if (ec) throw StoreError("rocksdb open " + impl_->dir.string() + ": " + ec.message());
  ::rocksdb::DB* db = nullptr;
  const ::rocksdb::Options opened = rocksdb_options(options);
  impl_->statistics = opened.statistics;
  const ::rocksdb::Status status = ::rocksdb::DB::Open(opened, impl_->dir.string(), &db);
  if (!status.ok()) impl_->fail("open", status);
  impl_->db.reset(db);
}

Store::~Store() {
  try {
    close();
  } catch (...) {
    // Documented: the destructor cannot report a failed close; close() can.
  }
}

bool Store::get(std::string_view key, std::string& value) const {
  no_perf_counting();
  const ::rocksdb::Status status =
      impl_->db->Get(impl_->read, impl_->db->DefaultColumnFamily(), slice(key), &value);
  if (status.IsNotFound()) return false;
  if (!status.ok()) impl_->fail("get", status);
  return true;
}

std::optional<std::string> Store::get(std::string_view key) const {
  std::string value;
  if (!get(key, value)) return std::nullopt;
  return value;
}

void Store::put(std::string_view key, std::string_view value) {
  no_perf_counting();
  const ::rocksdb::Status status = impl_->db->Put(impl_->write, slice(key), slice(value));
  if (!status.ok()) impl_->fail("put", status);
}

bool Store::erase(std::string_view key) {
  no_perf_counting();
  // RocksDB's Delete writes a tombstone whether or not the key exists; the get tells.
  ::rocksdb::PinnableSlice existing;
  const ::rocksdb::Status found =
      impl_->db->Get(impl_->read, impl_->db->DefaultColumnFamily(), slice(key), &existing);
  if (found.IsNotFound()) return false;
  if (!found.ok()) impl_->fail("erase", found);
  const ::rocksdb::Status status = impl_->db->Delete(impl_->write, slice(key));
  if (!status.ok()) impl_->fail("erase", status);
  return true;
}

void Store::scan(std::string_view start, std::size_t count, const ScanRow& row) const {
  no_perf_counting();
  const std::unique_ptr<::rocksdb::Iterator> it(impl_->db->NewIterator(impl_->read));
  const ::rocksdb::Status status = scan_ordered(*it, slice(start), count, row);
  if (!status.ok()) impl_->fail("scan", status);
}

std::vector<EngineCount> Store::take_counts() const {
  struct Ticker {
    const char* name;
    const char* unit;
    ::rocksdb::Tickers ticker;
    bool repeats;
  };
  // What repeats was measured by running a scenario twice (docs/counters.md).
  static constexpr Ticker kTickers[] = {
      {"rocksdb.bytes_written", "bytes", ::rocksdb::BYTES_WRITTEN, true},
      {"rocksdb.compact_read_bytes", "bytes", ::rocksdb::COMPACT_READ_BYTES, false},
      {"rocksdb.compact_write_bytes", "bytes", ::rocksdb::COMPACT_WRITE_BYTES, false},
      {"rocksdb.block_cache_hits", "blocks", ::rocksdb::BLOCK_CACHE_HIT, false},
      {"rocksdb.block_cache_misses", "blocks", ::rocksdb::BLOCK_CACHE_MISS, false},
      {"rocksdb.stall_micros", "microseconds", ::rocksdb::STALL_MICROS, false},
  };
  std::vector<EngineCount> counts;
  if (!impl_->statistics) return counts;
  for (const Ticker& t : kTickers) {
    counts.push_back({t.name, t.unit,
                      static_cast<double>(impl_->statistics->getAndResetTickerCount(t.ticker)),
                      t.repeats});
  }
  return counts;
}

void Store::close() {
  if (!impl_->db) return;
  // Whatever happens below, the handle is gone: Close() is not retried.
  const std::unique_ptr<::rocksdb::DB> db = std::move(impl_->db);
  if (!impl_->wal) {
    const ::rocksdb::Status flushed = db->Flush(::rocksdb::FlushOptions());
    if (!flushed.ok()) impl_->fail("flush", flushed);
  }
  const ::rocksdb::Status status = db->Close();
  if (!status.ok()) impl_->fail("close", status);
}

const std::filesystem::path& Store::dir() const noexcept {
  return impl_->dir;
}

}  // namespace storh::engines::rocksdb
