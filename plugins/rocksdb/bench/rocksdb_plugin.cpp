// The rocksdb plugin: db_bench's core operations (common/bench/db_bench.h) on a RocksDB
// database (rocksdb::Store), and the key-value capability (storh/key_value.h) for
// YCSB's workloads. The only file of the engine that knows about the host.
//
// Scenario, in db_bench's order, each step's starting state as db_bench.h gives it:
// fillseq, fillrandom, overwrite, readrandom, readseq, readwhilewriting, on a database
// in <work>/rocksdb that is removed and created again, empty, before fillrandom;
// `threads` and `fill_keys` shape the steps as db_bench's --threads and fillrandom
// (bench::DbBenchShape), so scripts/db-bench-peer.sh can run both the same way.
//
// Key-value store: one database in <work>/rocksdb with the cell's parameters; every
// session is a ByteStoreSession over it (RocksDB's DB is thread-safe).
//
// `durability` as RocksDB's WriteOptions:
//   none   disableWAL: a write lives in the memtable until a flush (lost on a crash)
//   os     the WAL is written, not synced: it survives a process crash, not a power loss
//   fsync  sync = true: the WAL is synced before each write returns
// wal = false writes no WAL, so no write survives a crash before its flush: only none
// keeps its promise without it, and with os or fsync it is refused (preflight and run).
#include <fmt/format.h>

#include <array>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/bench/db_bench.h"
#include "common/bench/kv_adapter.h"
#include "common/bench/kv_record.h"
#include "rocksdb/rocksdb_store.h"
#include "storh/key_value.h"
#include "storh/plugin.h"

namespace {

namespace bench = storh::engines::bench;
namespace rdb = storh::engines::rocksdb;
using bench::IntParam;
using storh::ParamValue;
using storh::Status;

constexpr std::int64_t kMiB = 1 << 20;

constexpr IntParam kWriteBufferSize{
    "write_buffer_size", 64 * kMiB, 64 << 10, std::int64_t{1} << 36,
    "memtable bytes before a flush to an SST file (RocksDB's default, 64 MiB); larger: fewer "
    "flushes and compactions, more memory"};
constexpr IntParam kBlockCacheSize{
    "block_cache_size", 8 * kMiB, 0, std::int64_t{1} << 40,
    "LRU block cache bytes (db_bench's cache_size, 8 MiB); above the data size reads come from "
    "memory; 0: no block cache"};
constexpr IntParam kMaxBackgroundJobs{
    "max_background_jobs", 2, 1, 64,
    "flush and compaction threads (RocksDB's default, 2); raise it with spare cores for "
    "write-heavy cells"};
constexpr IntParam kBloomBits{"bloom_bits", 10, 0, 64,
                              "bloom filter bits per key (10: about 1% false positives); 0: "
                              "no filter, every lookup of an SST file reads a block"};
constexpr IntParam kValueSize{
    "value_size", 100, 1, 4 * kMiB,
    "bytes per value of the scenario (db_bench's default, 100); the key-value capability "
    "stores the host's records instead"};

constexpr IntParam kThreads{
    "threads", 1, 1, 64,
    "threads per scenario step (db_bench's --threads): each does the step's whole work, as "
    "db_bench's num is per thread, so a step counts threads * n items; readwhilewriting's "
    "writer is one thread more"};

constexpr IntParam kReadseqPasses{
    "readseq_passes", 1, 1, 1000,
    "whole-database iterations per readseq thread, timed as one step (db_bench runs readseq "
    "once; `--benchmarks=readseq,readseq` runs it twice): more passes outlast a shared "
    "machine's noise"};

constexpr std::array<std::string_view, 2> kFillKeyNames{"shuffled", "uniform"};
constexpr bench::TextParam kFillKeys{
    "fill_keys", "shuffled", kFillKeyNames,
    "fillrandom's keys: shuffled puts each once, so every read finds its key; uniform draws n "
    "of [0, n) per thread as db_bench's fillrandom does, so about 1/e stay unwritten and reads "
    "miss them"};
// In rdb::Compression's order, as kCompactionStyleNames is in rdb::CompactionStyle's.
constexpr std::array<std::string_view, 4> kCompressionNames{"none", "snappy", "lz4", "zstd"};
constexpr bench::TextParam kCompression{
    "compression", "none", kCompressionNames,
    "SST block compression; none measures the engine alone, the others add their CPU cost and "
    "save I/O (one the build lacks is refused)"};
constexpr std::array<std::string_view, 3> kCompactionStyleNames{"level", "universal", "fifo"};
constexpr bench::TextParam kCompactionStyle{
    "compaction_style", "level", kCompactionStyleNames,
    "level (RocksDB's default, for reads), universal (less write amplification) or fifo (no "
    "compaction; no file is dropped here)"};
constexpr bench::BoolParam kWal{
    "wal", true,
    "the write-ahead log; false only with durability = none, which disables it anyway"};
constexpr bench::BoolParam kStatistics{
    "statistics", true,
    "RocksDB's tickers (bytes written, compaction bytes, block cache hits and misses, write "
    "stalls) as engine counters of each step; false saves their small CPU cost"};
constexpr bench::TextParam kDurability = bench::kv_durability_param(
    "none: WAL disabled (disableWAL), writes lost on a crash until flushed; os: WAL written, not "
    "synced; fsync: WriteOptions::sync, the WAL synced per write");

// The store's Options for the cell; throws std::invalid_argument for a value out of
// range, a compression this build lacks, or wal = false with os or fsync.
rdb::Options store_options(const bench::Lookup& param) {
  rdb::Options options;
  options.write_buffer_size = static_cast<std::uint64_t>(bench::integer(param, kWriteBufferSize));
  options.block_cache_size = static_cast<std::uint64_t>(bench::integer(param, kBlockCacheSize));
  options.max_background_jobs = static_cast<int>(bench::integer(param, kMaxBackgroundJobs));
  options.bloom_bits = static_cast<int>(bench::integer(param, kBloomBits));
  options.compression = static_cast<rdb::Compression>(bench::choice(param, kCompression));
  options.compaction_style =
      static_cast<rdb::CompactionStyle>(bench::choice(param, kCompactionStyle));
  if (!rdb::supported(options.compression)) {
    throw std::invalid_argument(
        fmt::format("compression {}: this RocksDB build lacks it", rdb::name(options.compression)));
  }
  const bench::KvDurability durability = bench::kv_durability(param);
  if (!bench::boolean(param, kWal) && durability != bench::KvDurability::none) {
    throw std::invalid_argument(fmt::format(
        "wal = false with durability = {}: without the WAL a write is lost on a crash until "
        "its memtable is flushed; use durability = none (which disables the WAL) or wal = true",
        bench::kKvDurabilities[static_cast<std::size_t>(durability)]));
  }
  options.statistics = bench::boolean(param, kStatistics);
  options.wal = durability != bench::KvDurability::none;
  options.sync = durability == bench::KvDurability::fsync;
  return options;
}

// The scenario's threads and fillrandom keys; throws std::invalid_argument for a bad value.
bench::DbBenchShape scenario_shape(const bench::Lookup& param) {
  bench::DbBenchShape shape;
  shape.threads = static_cast<unsigned>(bench::integer(param, kThreads));
  shape.uniform_fill = bench::choice(param, kFillKeys) == 1;
  shape.readseq_passes = static_cast<unsigned>(bench::integer(param, kReadseqPasses));
  return shape;
}

class RocksKeyValue final : public storh::KeyValueStore {
 public:
  Status open(storh::RunContext& ctx) noexcept override {
    return storh::guarded("rocksdb open", [&] {
      store_ = std::make_unique<rdb::Store>(ctx.work_dir() / "rocksdb",
                                            store_options(bench::lookup(ctx)));
    });
  }

  Status open_session(std::uint32_t,
                      std::unique_ptr<storh::KeyValueSession>& out) noexcept override {
    if (!store_) return Status::error("rocksdb open_session: the store is not open");
    return storh::guarded("rocksdb open_session", [&] {
      out = std::make_unique<bench::ByteStoreSession>(
          std::make_unique<bench::SharedByteStore<rdb::Store>>(*store_));
    });
  }

  Status close() noexcept override {
    return storh::guarded("rocksdb close", [&] {
      if (store_) store_->close();
      store_.reset();
    });
  }

 private:
  std::unique_ptr<rdb::Store> store_;
};

class RocksEngine final : public storh::Engine {
 public:
  storh::EngineInfo describe() const noexcept override {
    storh::EngineInfo info;
    info.description = "RocksDB (librocksdb 7.8): db_bench's fill, overwrite and read steps";
    info.params = {
        bench::spec(kWriteBufferSize),
        bench::spec(kBlockCacheSize),
        bench::spec(kCompression),
        bench::spec(kCompactionStyle),
        bench::spec(kWal),
        bench::spec(kDurability),
        bench::spec(kStatistics),
        bench::spec(kMaxBackgroundJobs),
        bench::spec(kBloomBits),
        bench::spec(kValueSize),
        bench::spec(kThreads),
        bench::spec(kFillKeys),
        bench::spec(kReadseqPasses),
    };
    for (std::string_view op : bench::kDbBenchOrder) {
      info.operations.push_back(bench::db_bench_operation(op));
    }
    return info;
  }

  std::vector<storh::ParamRange> param_ranges() const noexcept override {
    return {bench::range(kWriteBufferSize),   bench::range(kBlockCacheSize),
            bench::range(kMaxBackgroundJobs), bench::range(kBloomBits),
            bench::range(kValueSize),         bench::range(kThreads),
            bench::range(kReadseqPasses)};
  }

  Status preflight(
      const std::vector<std::pair<std::string, ParamValue>>& values) const noexcept override {
    return bench::check_params(
        values, store_options, scenario_shape,
        [](const bench::Lookup& param) { return bench::integer(param, kValueSize); });
  }

  Status run(storh::RunContext& ctx) noexcept override {
    return storh::guarded("rocksdb", [&] {
      const rdb::Options options = store_options(bench::lookup(ctx));
      const auto value_size =
          static_cast<std::size_t>(bench::integer(bench::lookup(ctx), kValueSize));
      const bench::DbBenchShape shape = scenario_shape(bench::lookup(ctx));
      const std::vector<std::string_view> operations(std::begin(bench::kDbBenchOrder),
                                                     std::end(bench::kDbBenchOrder));
      return bench::run_db_bench<rdb::Store>(
          ctx, "rocksdb", operations, value_size, ctx.work_dir() / "rocksdb",
          [&](const std::filesystem::path& dir) {
            return std::make_unique<rdb::Store>(dir, options);
          },
          shape);
    });
  }
};

}  // namespace

STORH_PLUGIN(rocksdb, "1.0.0", RocksEngine)
STORH_KEY_VALUE(RocksKeyValue)
