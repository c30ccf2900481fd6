// The lmdb plugin: LMDB (lmdb::LmdbStore) under db_bench's fill and read steps, and as a
// key-value store for YCSB's workloads (storh/key_value.h). The only file of the
// engine that knows about the host.
//
// Scenario, n = dataset size, keys "%016llu" of 0 .. n-1 as db_bench makes them,
// values of value_size bytes made from their key (the key's digits, last first,
// repeated) so every read is checked:
//   fillseq     n puts in key order into a fresh store (<work>/fillseq, then removed)
//   fillrandom  n puts in a shuffled order into a fresh store (<work>/fillrandom)
//   readrandom  n gets of random keys of that store, each value compared
//   readseq     one cursor pass over every entry, the count and value sizes checked
// Writes go through one handle batching writes_per_transaction writes (committed in
// the step). fillrandom runs untimed when only a read step is selected.
//
// Key-value store: <work>/kv; each session is a ByteStoreSession over its own
// LmdbHandle, so its batch and its reads (inside its open batch) are its own. A session
// commits its open batch when destroyed: destroy it on its client thread (LMDB's write
// lock belongs to the thread that took it). A commit that fails there is reported by
// close(). Other sessions see a batched write only after its commit, and wait for the
// write lock while a batch is open: YCSB's workload d, which reads the latest inserts of
// every client, then finds some missing.
//
// The `durability` levels as LMDB's environment flags:
//   none   MDB_NOSYNC | MDB_NOMETASYNC | MDB_WRITEMAP | MDB_MAPASYNC
//   os     MDB_NOSYNC: commits are in the OS's page cache (survive a process crash)
//   fsync  LMDB's default: every commit synced before it returns
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/bench/answers.h"
#include "common/bench/kv_record.h"
#include "lmdb/lmdb_store.h"
#include "storh/key_value.h"
#include "storh/plugin.h"

namespace {

namespace bench = storh::engines::bench;
namespace lmdb = storh::engines::lmdb;
using storh::Status;

constexpr std::int64_t kMiB = 1 << 20;
constexpr std::uint64_t kSeed = 301;  // readrandom's keys and fillrandom's order

// db_bench's key: the key number as 16 zero-padded decimal digits.
void format_key(std::uint64_t number, char (&key)[16]) {
  for (int i = 15; i >= 0; --i) {
    key[i] = static_cast<char>('0' + number % 10);
    number /= 10;
  }
}

// The value of `key` (out.size() bytes): its digits, last first, repeated.
void make_value(const char (&key)[16], std::string& out) {
  char reversed[16];
  for (int i = 0; i < 16; ++i) reversed[i] = key[15 - i];
  for (std::size_t at = 0; at < out.size(); at += 16) {
    out.replace(at, std::min<std::size_t>(16, out.size() - at), reversed,
                std::min<std::size_t>(16, out.size() - at));
  }
}

// The cell's LMDB options; throws std::invalid_argument for a value out of range.
lmdb::LmdbOptions lmdb_options(const storh::RunContext& ctx) {
  lmdb::LmdbOptions options;
  const std::int64_t map_size = ctx.int_param("map_size", std::int64_t{1} << 30);
  const std::int64_t batch = ctx.int_param("writes_per_transaction", 1);
  if (map_size < kMiB) throw std::invalid_argument(fmt::format("map_size {} < 1 MiB", map_size));
  if (batch < 1 || batch > 1'000'000) {
    throw std::invalid_argument(fmt::format("writes_per_transaction {} not in 1..1000000", batch));
  }
  options.map_size = static_cast<std::size_t>(map_size);
  options.writes_per_transaction = static_cast<std::uint32_t>(batch);
  switch (bench::kv_durability(ctx)) {
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

class LmdbEngine final : public storh::Engine {
 public:
  storh::EngineInfo describe() const noexcept override {
    storh::EngineInfo info;
    info.description = "LMDB (liblmdb 0.9): db_bench's fills and reads, and YCSB's key-value store";
    info.params = {
        {"map_size",
         storh::ParamType::integer,
         std::int64_t{1} << 30,
         {},
         "largest the data file may grow, in bytes (address space, not memory): above about 2x "
         "the data set's keys and values"},
        {"writes_per_transaction",
         storh::ParamType::integer,
         std::int64_t{1},
         {},
         "writes per write transaction: 1 commits each; N > 1 batches N, and a batched write is "
         "neither durable nor seen by other sessions until its commit (at the Nth write or the "
         "session's end), so YCSB's d misses other clients' latest inserts"},
        {"value_size",
         storh::ParamType::integer,
         std::int64_t{100},
         {},
         "bytes per value in the fill steps (db_bench's --value_size)"},
        bench::kv_durability_param(
            "none: MDB_NOSYNC|MDB_NOMETASYNC|MDB_WRITEMAP|MDB_MAPASYNC; os: MDB_NOSYNC (commits in "
            "the page cache, survive a process crash); fsync: sync at every commit"),
    };
    info.operations = {
        {"fillseq", "puts", storh::Direction::lower_is_better, "put n keys in key order"},
        {"fillrandom", "puts", storh::Direction::lower_is_better,
         "put n keys in random order into a fresh store"},
        {"readrandom", "gets", storh::Direction::lower_is_better,
         "get n random keys of the fillrandom store, each value checked"},
        {"readseq", "entries", storh::Direction::lower_is_better,
         "iterate every entry of the fillrandom store with a cursor"},
    };
    return info;
  }

  std::vector<storh::ParamRange> param_ranges() const noexcept override {
    return {{"map_size", static_cast<double>(kMiB), static_cast<double>(std::int64_t{1} << 40)},
            {"writes_per_transaction", 1, 1'000'000},
            {"value_size", 1, static_cast<double>(kMiB)}};
  }

  Status run(storh::RunContext& ctx) noexcept override {
    return storh::guarded("lmdb", [&] { return run_scenario(ctx); });
  }

 private:
  // Times `fn` when the suite selected `op`, else runs it untimed (later steps need it).
  template <typename F>
  static Status step(storh::RunContext& ctx, std::string_view op, std::uint64_t items, F&& fn) {
    if (ctx.selected(op)) return ctx.measure(op, items, fn);
    return storh::guarded(op, fn);
  }

  // Puts key key_number(i) for i in 0 .. n-1 through one handle, committed at the end.
  template <typename KeyNumber>
  static void fill(lmdb::LmdbStore& store, std::uint64_t n, std::size_t value_size,
                   KeyNumber key_number) {
    lmdb::LmdbHandle handle = store.handle();
    std::string value(value_size, '\0');
    char key[16];
    for (std::uint64_t i = 0; i < n; ++i) {
      format_key(key_number(i), key);
      make_value(key, value);
      handle.put(std::string_view(key, sizeof key), value);
    }
    handle.commit();
  }

  static Status run_scenario(storh::RunContext& ctx) {
    const std::uint64_t n = ctx.dataset_size();
    const lmdb::LmdbOptions options = lmdb_options(ctx);
    const std::int64_t value_size = ctx.int_param("value_size", 100);
    if (value_size < 1 || value_size > kMiB) {
      return Status::error(fmt::format("value_size {} not in 1..{}", value_size, kMiB));
    }
    const auto size = static_cast<std::size_t>(value_size);
    const std::filesystem::path& root = ctx.work_dir();

    if (ctx.selected("fillseq")) {
      lmdb::LmdbStore store(root / "fillseq", options);
      STORH_TRY(ctx.measure("fillseq", n, [&] { fill(store, n, size, [](auto i) { return i; }); }));
      store.close();
      std::filesystem::remove_all(root / "fillseq");
    }
    const bool reads = ctx.selected("readrandom") || ctx.selected("readseq");
    if (!ctx.selected("fillrandom") && !reads) return {};

    std::mt19937_64 random(kSeed);
    std::vector<std::uint64_t> order(n);
    for (std::uint64_t i = 0; i < n; ++i) order[i] = i;
    std::shuffle(order.begin(), order.end(), random);
    lmdb::LmdbStore store(root / "fillrandom", options);
    STORH_TRY(step(ctx, "fillrandom", n,
                   [&] { fill(store, n, size, [&](auto i) { return order[i]; }); }));

    if (ctx.selected("readrandom")) {
      std::uniform_int_distribution<std::uint64_t> pick(0, n - 1);
      for (std::uint64_t& number : order) number = pick(random);
      STORH_TRY(ctx.measure("readrandom", n, [&]() -> Status {
        lmdb::LmdbHandle handle = store.handle();
        std::string expected(size, '\0');
        char key[16];
        for (const std::uint64_t number : order) {
          format_key(number, key);
          make_value(key, expected);
          const std::optional<std::string> got = handle.get(std::string_view(key, sizeof key));
          if (!got || *got != expected) {
            return Status::error(fmt::format("readrandom: key {}: {}", std::string_view(key, 16),
                                             got ? "wrong value" : "missing"));
          }
        }
        return {};
      }));
    }
    if (ctx.selected("readseq")) {
      STORH_TRY(ctx.measure("readseq", n, [&]() -> Status {
        std::uint64_t count = 0;
        std::uint64_t wrong_size = 0;
        store.handle().scan({}, std::numeric_limits<std::size_t>::max(),
                            [&](std::string_view, std::string_view value) {
                              ++count;
                              wrong_size += value.size() != size ? 1 : 0;
                            });
        if (wrong_size != 0) {
          return Status::error(fmt::format("readseq: {} values not of {} bytes", wrong_size, size));
        }
        return bench::expect_count("readseq", count, n);
      }));
    }
    store.close();
    return {};
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

  std::optional<std::string> get(std::string_view key) override { return handle_.get(key); }
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
    return storh::guarded("lmdb open",
                          [&] { store_.emplace(ctx.work_dir() / "kv", lmdb_options(ctx)); });
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
