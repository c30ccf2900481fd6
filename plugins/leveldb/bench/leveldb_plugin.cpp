// The leveldb plugin: db_bench's core operations (common/bench/db_bench.h) on a LevelDB
// database (leveldb::Store), and the key-value capability (storh/key_value.h) for
// YCSB's workloads. The only file of the engine that knows about the host.
//
// Scenario, in db_bench's order, each step's starting state as db_bench.h gives it:
// fillseq, fillrandom, readrandom, readseq, on a database in <work>/leveldb that is
// removed and created again, empty, before fillrandom.
//
// Key-value store: one database in <work>/leveldb with the cell's parameters; every
// session is a ByteStoreSession over it (LevelDB's DB is thread-safe).
//
// `durability` as LevelDB's WriteOptions. LevelDB always writes its log and has no way
// not to, so none is the same as os:
//   none, os  sync = false: the log is written, not synced; a write survives a process
//             crash, not a power loss
//   fsync     sync = true: the log is synced before each write returns
#include <array>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/bench/db_bench.h"
#include "common/bench/kv_adapter.h"
#include "common/bench/kv_record.h"
#include "leveldb/leveldb_store.h"
#include "storh/key_value.h"
#include "storh/plugin.h"

namespace {

namespace bench = storh::engines::bench;
namespace ldb = storh::engines::leveldb;
using bench::IntParam;
using storh::ParamValue;
using storh::Status;

constexpr std::int64_t kMiB = 1 << 20;

constexpr IntParam kCacheSize{
    "cache_size", 8 * kMiB, 0, std::int64_t{1} << 40,
    "LRU block cache bytes (db_bench's default, 8 MiB); above the data size reads come from "
    "memory; 0 caches nothing"};
constexpr IntParam kWriteBufferSize{
    "write_buffer_size", 4 * kMiB, 64 << 10, std::int64_t{1} << 30,
    "memtable bytes before it is written as a level-0 table (LevelDB's default, 4 MiB); "
    "larger: fewer, bigger tables and a longer log replay at open"};
constexpr IntParam kBloomBits{"bloom_bits", 10, 0, 64,
                              "bloom filter bits per key (10: about 1% false positives); 0: "
                              "no filter, every lookup of a table reads a block"};
constexpr IntParam kValueSize{
    "value_size", 100, 1, 4 * kMiB,
    "bytes per value of the scenario (db_bench's default, 100); the key-value capability "
    "stores the host's records instead"};

// In ldb::Compression's order.
constexpr std::array<std::string_view, 2> kCompressionNames{"none", "snappy"};
constexpr bench::TextParam kCompression{
    "compression", "none", kCompressionNames,
    "block compression; none measures the engine alone, snappy adds its CPU cost and saves I/O"};
constexpr bench::TextParam kDurability = bench::kv_durability_param(
    "LevelDB always writes its log, so none is os: the log written, not synced; fsync: "
    "WriteOptions::sync, the log synced per write");

// The store's Options for the cell; throws std::invalid_argument for a value out of
// range.
ldb::Options store_options(const bench::Lookup& param) {
  ldb::Options options;
  options.cache_size = static_cast<std::uint64_t>(bench::integer(param, kCacheSize));
  options.write_buffer_size = static_cast<std::uint64_t>(bench::integer(param, kWriteBufferSize));
  options.bloom_bits = static_cast<int>(bench::integer(param, kBloomBits));
  options.compression = static_cast<ldb::Compression>(bench::choice(param, kCompression));
  options.sync = bench::kv_durability(param) == bench::KvDurability::fsync;
  return options;
}

class LevelKeyValue final : public storh::KeyValueStore {
 public:
  Status open(storh::RunContext& ctx) noexcept override {
    return storh::guarded("leveldb open", [&] {
      store_ = std::make_unique<ldb::Store>(ctx.work_dir() / "leveldb",
                                            store_options(bench::lookup(ctx)));
    });
  }

  Status open_session(std::uint32_t,
                      std::unique_ptr<storh::KeyValueSession>& out) noexcept override {
    if (!store_) return Status::error("leveldb open_session: the store is not open");
    return storh::guarded("leveldb open_session", [&] {
      out = std::make_unique<bench::ByteStoreSession>(
          std::make_unique<bench::SharedByteStore<ldb::Store>>(*store_));
    });
  }

  Status close() noexcept override {
    store_.reset();
    return {};
  }

 private:
  std::unique_ptr<ldb::Store> store_;
};

class LevelEngine final : public storh::Engine {
 public:
  storh::EngineInfo describe() const noexcept override {
    storh::EngineInfo info;
    info.description = "LevelDB (libleveldb 1.23): db_bench's fill and read steps";
    info.params = {bench::spec(kCacheSize),       bench::spec(kCompression),
                   bench::spec(kWriteBufferSize), bench::spec(kBloomBits),
                   bench::spec(kDurability),      bench::spec(kValueSize)};
    for (std::string_view op : kOperations)
      info.operations.push_back(bench::db_bench_operation(op));
    return info;
  }

  std::vector<storh::ParamRange> param_ranges() const noexcept override {
    return {bench::range(kCacheSize), bench::range(kWriteBufferSize), bench::range(kBloomBits),
            bench::range(kValueSize)};
  }

  Status preflight(
      const std::vector<std::pair<std::string, ParamValue>>& values) const noexcept override {
    return bench::check_params(values, store_options, [](const bench::Lookup& param) {
      return bench::integer(param, kValueSize);
    });
  }

  Status run(storh::RunContext& ctx) noexcept override {
    return storh::guarded("leveldb", [&] {
      const ldb::Options options = store_options(bench::lookup(ctx));
      const auto value_size =
          static_cast<std::size_t>(bench::integer(bench::lookup(ctx), kValueSize));
      return bench::run_db_bench<ldb::Store>(
          ctx, "leveldb", {kOperations.begin(), kOperations.end()}, value_size,
          ctx.work_dir() / "leveldb", [&](const std::filesystem::path& dir) {
            return std::make_unique<ldb::Store>(dir, options);
          });
    });
  }

 private:
  // The four core steps (rocksdb's scenario adds overwrite and readwhilewriting).
  static constexpr std::array<std::string_view, 4> kOperations{"fillseq", "fillrandom",
                                                               "readrandom", "readseq"};
};

}  // namespace

STORH_PLUGIN(leveldb, "1.0.0", LevelEngine)
STORH_KEY_VALUE(LevelKeyValue)
