// The sqlite plugin: SQLite as a key-value table (sqlite_kv::SqliteStore) under
// db_bench's core steps (common/bench/db_bench.h), and as a key-value store for YCSB's
// workloads (storh/key_value.h). The only file of the engine that knows about the host.
//
// Scenario: fillseq, fillrandom, readrandom, readseq as db_bench.h runs them, on a
// store in <work>/sqlite that is removed and created again, empty, before fillrandom.
// Every put is one autocommit statement on one connection.
//
// Key-value store: <work>/kv; each session is a ByteStoreSession over its own
// connection. An update is a get and a put, two statements (as YCSB's RocksDB binding
// does it), so two sessions updating one key at once may lose one's fields.
//
// The `durability` levels as SQLite's settings (https://www.sqlite.org/pragma.html):
//   none   synchronous=OFF, and journal_mode=memory when journal_mode is auto: a crash
//          in the middle of a write may corrupt the file. A rollback journal: a writer
//          locks readers out, so with several clients none can be slower than os (wal)
//   os     synchronous=OFF: SQLite hands every write to the OS and syncs nothing, so a
//          commit survives a process crash, not a power loss (which may corrupt)
//   fsync  synchronous=FULL, EXTRA in delete mode (whose FULL commit may roll back on a
//          power loss: the journal's unlink is not synced); auto is wal
#include <fmt/format.h>

#include <array>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/bench/db_bench.h"
#include "common/bench/kv_adapter.h"
#include "common/bench/kv_record.h"
#include "sqlite/sqlite_store.h"
#include "storh/key_value.h"
#include "storh/plugin.h"

namespace {

namespace bench = storh::engines::bench;
namespace sqlite_kv = storh::engines::sqlite_kv;
using bench::IntParam;
using storh::ParamValue;
using storh::Status;

constexpr std::int64_t kMiB = 1 << 20;

constexpr IntParam kCacheSize{
    "cache_size", -2000, -(std::int64_t{1} << 30), std::int64_t{1} << 30,
    "PRAGMA cache_size per connection: pages, or KiB when negative (SQLite's -2000); raise it "
    "to hold the data set"};
constexpr IntParam kValueSize{"value_size", 100, 1, kMiB,
                              "bytes per value of the scenario (db_bench's --value_size); the "
                              "key-value capability stores the host's records instead"};

constexpr std::array<std::string_view, 7> kJournalModeNames{
    "auto", "delete", "truncate", "persist", "memory", "wal", "off"};
constexpr bench::TextParam kJournalMode{
    "journal_mode", "auto", kJournalModeNames,
    "PRAGMA journal_mode: auto is wal (memory at durability none); all but wal lock readers out "
    "while a client writes; memory and off risk a corrupt file when a write is cut short"};
constexpr bench::TextParam kDurability = bench::kv_durability_param(
    "none: synchronous=OFF, journal in memory under auto; os: synchronous=OFF (survives a "
    "process crash); fsync: synchronous=FULL (EXTRA in delete mode)");

// The four core steps (rocksdb's scenario adds overwrite and readwhilewriting).
constexpr std::array<std::string_view, 4> kOperations{"fillseq", "fillrandom", "readrandom",
                                                      "readseq"};

// The cell's SQLite options; throws std::invalid_argument for a value out of range.
sqlite_kv::SqliteOptions sqlite_options(const bench::Lookup& param) {
  sqlite_kv::SqliteOptions options;
  const bench::KvDurability durability = bench::kv_durability(param);
  const std::string_view journal = kJournalModeNames[bench::choice(param, kJournalMode)];
  options.journal_mode = journal != "auto"                         ? std::string(journal)
                         : durability == bench::KvDurability::none ? "memory"
                                                                   : "wal";
  switch (durability) {
    case bench::KvDurability::none:
    case bench::KvDurability::os:
      options.synchronous = sqlite_kv::Synchronous::off;
      break;
    case bench::KvDurability::fsync:
      options.synchronous = options.journal_mode == "delete" ? sqlite_kv::Synchronous::extra
                                                             : sqlite_kv::Synchronous::full;
      break;
  }
  options.cache_size = bench::integer(param, kCacheSize);
  return options;
}

// db_bench.h's Store over one store and one connection (the scenario runs on one
// thread).
class BenchStore {
 public:
  BenchStore(const std::filesystem::path& dir, const sqlite_kv::SqliteOptions& options)
      : store_(dir, options), connection_(store_.connect()) {}

  bool get(std::string_view key, std::string& value) const {
    std::optional<std::string> got = connection_->get(key);
    if (got) value = std::move(*got);
    return got.has_value();
  }
  void put(std::string_view key, std::string_view value) { connection_->put(key, value); }
  template <typename Row>
  void scan(std::string_view start, std::size_t count, const Row& row) const {
    connection_->scan(start, count, row);
  }
  // SQLite's statistics of the scenario's connection since the previous call.
  std::vector<storh::engines::EngineCount> take_counts() { return connection_->take_counts(); }
  void close() {
    connection_.reset();  // every other connection gone before the store closes
    store_.close();
  }

 private:
  sqlite_kv::SqliteStore store_;
  // Its statements step along with each read: logically const.
  mutable std::optional<sqlite_kv::SqliteConnection> connection_;
};

class SqliteEngine final : public storh::Engine {
 public:
  storh::EngineInfo describe() const noexcept override {
    storh::EngineInfo info;
    info.description =
        "SQLite 3 key-value table: db_bench's fills and reads, and YCSB's key-value store";
    info.params = {bench::spec(kJournalMode), bench::spec(kCacheSize), bench::spec(kValueSize),
                   bench::spec(kDurability)};
    for (std::string_view op : kOperations) {
      info.operations.push_back(bench::db_bench_operation(op));
    }
    return info;
  }

  std::vector<storh::ParamRange> param_ranges() const noexcept override {
    return {bench::range(kCacheSize), bench::range(kValueSize)};
  }

  Status preflight(
      const std::vector<std::pair<std::string, ParamValue>>& values) const noexcept override {
    return bench::check_params(values, sqlite_options, [](const bench::Lookup& param) {
      return bench::integer(param, kValueSize);
    });
  }

  Status run(storh::RunContext& ctx) noexcept override {
    return storh::guarded("sqlite", [&] {
      const sqlite_kv::SqliteOptions options = sqlite_options(bench::lookup(ctx));
      const auto value_size =
          static_cast<std::size_t>(bench::integer(bench::lookup(ctx), kValueSize));
      return bench::run_db_bench<BenchStore>(
          ctx, "sqlite", {kOperations.begin(), kOperations.end()}, value_size,
          ctx.work_dir() / "sqlite", [&](const std::filesystem::path& dir) {
            return std::make_unique<BenchStore>(dir, options);
          });
    });
  }
};

class SqliteKeyValueStore final : public storh::KeyValueStore {
 public:
  Status open(storh::RunContext& ctx) noexcept override {
    return storh::guarded("sqlite open", [&] {
      store_.emplace(ctx.work_dir() / "kv", sqlite_options(bench::lookup(ctx)));
    });
  }

  Status open_session(std::uint32_t client,
                      std::unique_ptr<storh::KeyValueSession>& out) noexcept override {
    return storh::guarded(fmt::format("sqlite session {}", client), [&] {
      if (!store_) throw std::logic_error("the store is not open");
      out = std::make_unique<bench::ByteStoreSession>(
          // Its own connection and prepared statements.
          std::make_unique<bench::OwningByteStore<sqlite_kv::SqliteConnection>>(store_->connect()));
    });
  }

  Status close() noexcept override {
    return storh::guarded("sqlite close", [&] {
      if (store_) store_->close();
      store_.reset();
    });
  }

 private:
  std::optional<sqlite_kv::SqliteStore> store_;
};

}  // namespace

STORH_PLUGIN(sqlite, "1.0.0", SqliteEngine)
STORH_KEY_VALUE(SqliteKeyValueStore)
