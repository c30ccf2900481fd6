// The lmdb plugin: db_bench's core steps (common/bench/db_bench.h) on LMDB
// (lmdb::LmdbStore), and the key-value store for YCSB's workloads (storh/key_value.h).
// The only file of the engine that knows about the host.
//
// Scenario: fillseq, fillrandom, readrandom, readseq as db_bench.h runs them, on an
// environment in <work>/lmdb that is removed and created again, empty, before
// fillrandom. Writes go through one handle batching writes_per_transaction writes;
// each fill step commits its last batch before its time ends.
//
// Key-value store: <work>/kv; each session is a ByteStoreSession over its own
// LmdbHandle, so its batch and its reads (inside its open batch) are its own. A session
// commits its open batch when destroyed: destroy it on its client thread (LMDB's write
// lock belongs to the thread that took it). A commit that fails there is reported by
// close(). Other sessions see a batched write only after its commit, and wait for the
// write lock while a batch is open. The host reads only keys whose insert has returned
// (YCSB's acknowledged inserts: workload d reads the latest of them), so a read that
// finds no key, outside a batch of its own, waits for the open batch of any other
// session to commit and reads again: it never misses a key another session's insert
// returned for, and its latency includes that wait.
//
// The `durability` levels as LMDB's environment flags:
//   none   MDB_NOSYNC | MDB_NOMETASYNC | MDB_WRITEMAP | MDB_MAPASYNC
//   os     MDB_NOSYNC: commits are in the OS's page cache (survive a process crash)
//   fsync  LMDB's default: every commit synced before it returns
#include <fmt/format.h>

#include <array>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/bench/db_bench.h"
#include "common/bench/kv_adapter.h"
#include "common/bench/kv_record.h"
#include "lmdb/lmdb_store.h"
#include "storh/key_value.h"
#include "storh/plugin.h"

namespace {

namespace bench = storh::engines::bench;
namespace lmdb = storh::engines::lmdb;
using bench::IntParam;
using storh::ParamValue;
using storh::Status;

constexpr std::int64_t kMiB = 1 << 20;

constexpr IntParam kMapSize{
    "map_size", std::int64_t{1} << 30, kMiB, std::int64_t{1} << 40,
    "largest the data file may grow, in bytes (address space, not memory): above about 2x the "
    "data set's keys and values"};
constexpr IntParam kWritesPerTransaction{
    "writes_per_transaction", 1, 1, 1'000'000,
    "writes per write transaction: 1 commits each; N > 1 batches N: a batched write is "
    "not durable until its commit (at the Nth write or the session's end), and another "
    "session's read that misses its key waits for that commit"};
constexpr IntParam kValueSize{"value_size", 100, 1, kMiB,
                              "bytes per value of the scenario (db_bench's --value_size); the "
                              "key-value capability stores the host's records instead"};

// The four core steps (rocksdb's scenario adds overwrite and readwhilewriting).
constexpr std::array<std::string_view, 4> kOperations{"fillseq", "fillrandom", "readrandom",
                                                      "readseq"};

// The cell's LMDB options; throws std::invalid_argument for a value out of range.
lmdb::LmdbOptions lmdb_options(const bench::Lookup& param) {
  lmdb::LmdbOptions options;
  options.map_size = static_cast<std::size_t>(bench::integer(param, kMapSize));
  options.writes_per_transaction =
      static_cast<std::uint32_t>(bench::integer(param, kWritesPerTransaction));
  switch (bench::kv_durability(param)) {
    case bench::KvDurability::none:
      options.sync = false;
      options.meta_sync = false;
      options.write_map = true;
      options.map_async = true;
      break;
    case bench::KvDurability::os:
      options.sync = false;
      break;
    case bench::KvDurability::fsync:
      break;
  }
  return options;
}

// db_bench.h's Store over one environment and one handle (the scenario runs on one
// thread). flush() commits the open batch, which db_bench.h times with its fill.
class BenchStore {
 public:
  BenchStore(const std::filesystem::path& dir, const lmdb::LmdbOptions& options)
      : store_(dir, options), handle_(store_.handle()) {}

  bool get(std::string_view key, std::string& value) const {
    std::optional<std::string> got = handle_->get(key);
    if (got) value = std::move(*got);
    return got.has_value();
  }
  void put(std::string_view key, std::string_view value) { handle_->put(key, value); }
  template <typename Row>
  void scan(std::string_view start, std::size_t count, const Row& row) const {
    handle_->scan(start, count, row);
  }
  void flush() { handle_->commit(); }
  void close() {
    if (handle_) handle_->commit();
    handle_.reset();  // every handle gone before the environment closes
    store_.close();
  }

 private:
  lmdb::LmdbStore store_;
  // Reads move its read transaction along: logically const.
  mutable std::optional<lmdb::LmdbHandle> handle_;
};

class LmdbEngine final : public storh::Engine {
 public:
  storh::EngineInfo describe() const noexcept override {
    storh::EngineInfo info;
    info.description = "LMDB (liblmdb 0.9): db_bench's fills and reads, and YCSB's key-value store";
    info.params = {
        bench::spec(kMapSize),
        bench::spec(kWritesPerTransaction),
        bench::spec(kValueSize),
        bench::spec(bench::kv_durability_param(
            "none: MDB_NOSYNC|MDB_NOMETASYNC|MDB_WRITEMAP|MDB_MAPASYNC; os: MDB_NOSYNC (commits in "
            "the page cache, survive a process crash); fsync: sync at every commit")),
    };
    for (std::string_view op : kOperations) {
      info.operations.push_back(bench::db_bench_operation(op));
    }
    return info;
  }

  std::vector<storh::ParamRange> param_ranges() const noexcept override {
    return {bench::range(kMapSize), bench::range(kWritesPerTransaction), bench::range(kValueSize)};
  }

  Status preflight(
      const std::vector<std::pair<std::string, ParamValue>>& values) const noexcept override {
    return bench::check_params(values, lmdb_options, [](const bench::Lookup& param) {
      return bench::integer(param, kValueSize);
    });
  }

  Status run(storh::RunContext& ctx) noexcept override {
    return storh::guarded("lmdb", [&] {
      const lmdb::LmdbOptions options = lmdb_options(bench::lookup(ctx));
      const auto value_size =
          static_cast<std::size_t>(bench::integer(bench::lookup(ctx), kValueSize));
      return bench::run_db_bench<BenchStore>(ctx, "lmdb", {kOperations.begin(), kOperations.end()},
                                             value_size, ctx.work_dir() / "lmdb",
                                             [&](const std::filesystem::path& dir) {
                                               return std::make_unique<BenchStore>(dir, options);
                                             });
    });
  }
};

// The first error of a session's final commit, which no call can return: close()
// reports it.
class DeferredError {
 public:
  void record(std::string message) {
    const std::lock_guard lock(mutex_);
    if (message_.empty()) message_ = std::move(message);
  }
  std::string take() {
    const std::lock_guard lock(mutex_);
    return std::exchange(message_, {});
  }

 private:
  std::mutex mutex_;
  std::string message_;
};

// A session's bytes: its own handle, so its batch and the reads that see it are its own.
class HandleBytes final : public bench::ByteStore {
 public:
  HandleBytes(lmdb::LmdbHandle handle, DeferredError& error)
      : handle_(std::move(handle)), error_(error) {}
  ~HandleBytes() override {
    try {
      handle_.commit();
    } catch (const std::exception& e) {
      error_.record(std::string("closing a session: ") + e.what());
    }
  }
  HandleBytes(const HandleBytes&) = delete;
  HandleBytes& operator=(const HandleBytes&) = delete;

  std::optional<std::string> get(std::string_view key) override {
    std::optional<std::string> value = handle_.get(key);
    if (!value && handle_.pending() == 0) {
      // The key may be in another session's open batch, its insert already returned.
      handle_.wait_for_writers();
      value = handle_.get(key);
    }
    return value;
  }
  void put(std::string_view key, std::string_view value) override { handle_.put(key, value); }
  bool erase(std::string_view key) override { return handle_.erase(key); }
  void scan(std::string_view start, std::size_t count,
            const std::function<void(std::string_view, std::string_view)>& row) override {
    handle_.scan(start, count, row);
  }

 private:
  lmdb::LmdbHandle handle_;
  DeferredError& error_;
};

class LmdbKeyValueStore final : public storh::KeyValueStore {
 public:
  Status open(storh::RunContext& ctx) noexcept override {
    return storh::guarded("lmdb open", [&] {
      store_.emplace(ctx.work_dir() / "kv", lmdb_options(bench::lookup(ctx)));
    });
  }

  Status open_session(std::uint32_t client,
                      std::unique_ptr<storh::KeyValueSession>& out) noexcept override {
    return storh::guarded(fmt::format("lmdb session {}", client), [&] {
      if (!store_) throw std::logic_error("the store is not open");
      out = std::make_unique<bench::ByteStoreSession>(
          std::make_unique<HandleBytes>(store_->handle(), error_));
    });
  }

  Status close() noexcept override {
    return storh::guarded("lmdb close", [&]() -> Status {
      if (store_) store_->close();
      store_.reset();
      if (std::string error = error_.take(); !error.empty()) return Status::error(error);
      return {};
    });
  }

 private:
  std::optional<lmdb::LmdbStore> store_;
  DeferredError error_;
};

}  // namespace

STORH_PLUGIN(lmdb, "1.0.0", LmdbEngine)
STORH_KEY_VALUE(LmdbKeyValueStore)
