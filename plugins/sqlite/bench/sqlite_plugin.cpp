// The sqlite plugin: SQLite as a key-value table (sqlite_kv::SqliteStore) under
// db_bench's fill and read steps, and as a key-value store for YCSB's workloads
// (storh/key_value.h). The only file of the engine that knows about the host.
//
// Scenario, n = dataset size, keys "%016llu" of 0 .. n-1 as db_bench makes them,
// values of value_size bytes made from their key (the key's digits, last first,
// repeated) so every read is checked:
//   fillseq     n puts in key order into a fresh store (<work>/fillseq, then removed)
//   fillrandom  n puts in a shuffled order into a fresh store (<work>/fillrandom)
//   readrandom  n gets of random keys of that store, each value compared
//   readseq     one pass over every row in key order, the count and value sizes checked
// Every put is one autocommit statement on one connection. fillrandom runs untimed
// when only a read step is selected.
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

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <memory>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/bench/answers.h"
#include "common/bench/kv_record.h"
#include "sqlite/sqlite_store.h"
#include "storh/key_value.h"
#include "storh/plugin.h"

namespace {

namespace bench = storh::engines::bench;
namespace sqlite_kv = storh::engines::sqlite_kv;
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

// The cell's SQLite options; throws std::invalid_argument for a value out of range.
sqlite_kv::SqliteOptions sqlite_options(const storh::RunContext& ctx) {
  sqlite_kv::SqliteOptions options;
  const bench::KvDurability durability = bench::kv_durability(ctx);
  const std::string journal = ctx.string_param("journal_mode", "auto");
  options.journal_mode = journal != "auto"                         ? journal
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
  options.cache_size = ctx.int_param("cache_size", -2000);
  return options;
}

class SqliteEngine final : public storh::Engine {
 public:
  storh::EngineInfo describe() const noexcept override {
    storh::EngineInfo info;
    info.description =
        "SQLite 3 key-value table: db_bench's fills and reads, and YCSB's key-value store";
    const std::vector<storh::ParamValue> journals{std::string("auto"),     std::string("delete"),
                                                  std::string("truncate"), std::string("persist"),
                                                  std::string("memory"),   std::string("wal"),
                                                  std::string("off")};
    info.params = {
        {"journal_mode", storh::ParamType::string, std::string("auto"), journals,
         "PRAGMA journal_mode: auto is wal (memory at durability none); all but wal lock readers "
         "out while a client writes; memory and off risk a corrupt file when a write is cut short"},
        {"cache_size",
         storh::ParamType::integer,
         std::int64_t{-2000},
         {},
         "PRAGMA cache_size per connection: pages, or KiB when negative (SQLite's -2000); raise "
         "it to hold the data set"},
        {"value_size",
         storh::ParamType::integer,
         std::int64_t{100},
         {},
         "bytes per value in the fill steps (db_bench's --value_size)"},
        bench::kv_durability_param(
            "none: synchronous=OFF, journal in memory under auto; os: synchronous=OFF (survives a "
            "process crash); fsync: synchronous=FULL (EXTRA in delete mode)"),
    };
    info.operations = {
        {"fillseq", "puts", storh::Direction::lower_is_better, "put n keys in key order"},
        {"fillrandom", "puts", storh::Direction::lower_is_better,
         "put n keys in random order into a fresh store"},
        {"readrandom", "gets", storh::Direction::lower_is_better,
         "get n random keys of the fillrandom store, each value checked"},
        {"readseq", "entries", storh::Direction::lower_is_better,
         "read every row of the fillrandom store in key order"},
    };
    return info;
  }

  std::vector<storh::ParamRange> param_ranges() const noexcept override {
    constexpr double kCacheLimit = 1 << 30;
    return {{"cache_size", -kCacheLimit, kCacheLimit},
            {"value_size", 1, static_cast<double>(kMiB)}};
  }

  Status run(storh::RunContext& ctx) noexcept override {
    return storh::guarded("sqlite", [&] { return run_scenario(ctx); });
  }

 private:
  // Times `fn` when the suite selected `op`, else runs it untimed (later steps need it).
  template <typename F>
  static Status step(storh::RunContext& ctx, std::string_view op, std::uint64_t items, F&& fn) {
    if (ctx.selected(op)) return ctx.measure(op, items, fn);
    return storh::guarded(op, fn);
  }

  // Puts key key_number(i) for i in 0 .. n-1 through one connection.
  template <typename KeyNumber>
  static void fill(sqlite_kv::SqliteConnection& connection, std::uint64_t n, std::size_t value_size,
                   KeyNumber key_number) {
    std::string value(value_size, '\0');
    char key[16];
    for (std::uint64_t i = 0; i < n; ++i) {
      format_key(key_number(i), key);
      make_value(key, value);
      connection.put(std::string_view(key, sizeof key), value);
    }
  }

  static Status run_scenario(storh::RunContext& ctx) {
    const std::uint64_t n = ctx.dataset_size();
    const sqlite_kv::SqliteOptions options = sqlite_options(ctx);
    const std::int64_t value_size = ctx.int_param("value_size", 100);
    if (value_size < 1 || value_size > kMiB) {
      return Status::error(fmt::format("value_size {} not in 1..{}", value_size, kMiB));
    }
    const auto size = static_cast<std::size_t>(value_size);
    const std::filesystem::path& root = ctx.work_dir();

    if (ctx.selected("fillseq")) {
      sqlite_kv::SqliteStore store(root / "fillseq", options);
      {
        sqlite_kv::SqliteConnection connection = store.connect();
        STORH_TRY(ctx.measure("fillseq", n,
                              [&] { fill(connection, n, size, [](auto i) { return i; }); }));
      }
      store.close();
      std::filesystem::remove_all(root / "fillseq");
    }
    const bool reads = ctx.selected("readrandom") || ctx.selected("readseq");
    if (!ctx.selected("fillrandom") && !reads) return {};

    std::mt19937_64 random(kSeed);
    std::vector<std::uint64_t> order(n);
    for (std::uint64_t i = 0; i < n; ++i) order[i] = i;
    std::shuffle(order.begin(), order.end(), random);
    sqlite_kv::SqliteStore store(root / "fillrandom", options);
    {
      sqlite_kv::SqliteConnection connection = store.connect();
      STORH_TRY(step(ctx, "fillrandom", n,
                     [&] { fill(connection, n, size, [&](auto i) { return order[i]; }); }));

      if (ctx.selected("readrandom")) {
        std::uniform_int_distribution<std::uint64_t> pick(0, n - 1);
        for (std::uint64_t& number : order) number = pick(random);
        STORH_TRY(ctx.measure("readrandom", n, [&]() -> Status {
          std::string expected(size, '\0');
          char key[16];
          for (const std::uint64_t number : order) {
            format_key(number, key);
            make_value(key, expected);
            const std::optional<std::string> got =
                connection.get(std::string_view(key, sizeof key));
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
          connection.scan({}, std::numeric_limits<std::size_t>::max(),
                          [&](std::string_view, std::string_view value) {
                            ++count;
                            wrong_size += value.size() != size ? 1 : 0;
                          });
          if (wrong_size != 0) {
            return Status::error(
                fmt::format("readseq: {} values not of {} bytes", wrong_size, size));
          }
          return bench::expect_count("readseq", count, n);
        }));
      }
    }
    store.close();
    return {};
  }
};

// A session's bytes: its own connection and prepared statements.
class ConnectionBytes final : public bench::ByteStore {
 public:
  explicit ConnectionBytes(sqlite_kv::SqliteConnection connection)
      : connection_(std::move(connection)) {}

  std::optional<std::string> get(std::string_view key) override { return connection_.get(key); }
  void put(std::string_view key, std::string_view value) override { connection_.put(key, value); }
  bool erase(std::string_view key) override { return connection_.erase(key); }
  void scan(std::string_view start, std::size_t count,
            const std::function<void(std::string_view, std::string_view)>& row) override {
    connection_.scan(start, count, row);
  }

 private:
  sqlite_kv::SqliteConnection connection_;
};

class SqliteKeyValueStore final : public storh::KeyValueStore {
 public:
  Status open(storh::RunContext& ctx) noexcept override {
    return storh::guarded("sqlite open",
                          [&] { store_.emplace(ctx.work_dir() / "kv", sqlite_options(ctx)); });
  }

  Status open_session(std::uint32_t client,
                      std::unique_ptr<storh::KeyValueSession>& out) noexcept override {
    return storh::guarded(fmt::format("sqlite session {}", client), [&] {
      if (!store_) throw std::logic_error("the store is not open");
      out = std::make_unique<bench::ByteStoreSession>(
          std::make_unique<ConnectionBytes>(store_->connect()));
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
