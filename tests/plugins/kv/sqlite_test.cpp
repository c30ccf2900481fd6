// The sqlite engine: its byte store (sqlite_store.h) directly, and its plugin module as
// the host loads it: the key-value store (kv_checks.h) and the db_bench scenario.
#include <catch2/catch.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "fake_run_context.h"
#include "kv/kv_checks.h"
#include "scratch_dir.h"
#include "sqlite/sqlite_store.h"

namespace kv = storh_test::kv;
namespace sqlite_kv = storh::engines::sqlite_kv;

namespace {

kv::Params sqlite_params(const std::string& durability, const std::string& journal = "auto") {
  return {{"durability", durability}, {"journal_mode", journal}};
}

sqlite_kv::SqliteOptions sqlite_raw_options() {
  sqlite_kv::SqliteOptions options;
  options.synchronous = sqlite_kv::Synchronous::off;
  return options;
}

std::vector<std::string> sqlite_keys(sqlite_kv::SqliteStore& store, std::string_view start) {
  std::vector<std::string> keys;
  store.scan(start, 100, [&](std::string_view key, std::string_view) { keys.emplace_back(key); });
  return keys;
}

}  // namespace

TEST_CASE("sqlite: keys are ordered bytewise, NUL bytes and the empty key included", "[sqlite]") {
  storh::test::ScratchDir dir;
  sqlite_kv::SqliteStore store(dir.path(), sqlite_raw_options());
  for (const std::string& key :
       {std::string("a\x01"), std::string("a\0b", 3), std::string("a"), std::string()}) {
    store.put(key, key + "!");
  }
  CHECK(sqlite_keys(store, "") ==
        std::vector<std::string>{"", "a", std::string("a\0b", 3), "a\x01"});
  CHECK(sqlite_keys(store, std::string("a\0", 2)) ==
        std::vector<std::string>{std::string("a\0b", 3), "a\x01"});
  CHECK(store.get(std::string("a\0b", 3)) == std::optional<std::string>(std::string("a\0b!", 4)));
  CHECK(store.get("") == std::optional<std::string>("!"));
  CHECK(store.erase(std::string("a\0b", 3)));
  CHECK_FALSE(store.erase(std::string("a\0b", 3)));
  store.close();
}

TEST_CASE("sqlite: a journal mode SQLite does not have names the valid ones", "[sqlite]") {
  storh::test::ScratchDir dir;
  sqlite_kv::SqliteOptions options = sqlite_raw_options();
  options.journal_mode = "wal2";
  CHECK_THROWS_WITH(sqlite_kv::SqliteStore(dir.path(), options),
                    Catch::Contains("\"wal2\"") && Catch::Contains("delete, truncate"));
}

TEST_CASE("sqlite: every durability level stores, and os and fsync keep writes across a reopen",
          "[sqlite]") {
  kv::every_durability_keeps(
      kv::KvPlugin(STORH_TEST_SQLITE_PLUGIN), [](const std::string& d) { return sqlite_params(d); },
      false);
}

TEST_CASE("sqlite: every journal mode opens, stores and reopens", "[sqlite]") {
  kv::KvPlugin plugin(STORH_TEST_SQLITE_PLUGIN);
  for (const std::string journal : {"delete", "truncate", "persist", "memory", "wal", "off"}) {
    INFO("journal_mode " << journal);
    storh::test::ScratchDir dir;
    kv::stores_and_keeps(plugin, dir.path(), sqlite_params("os", journal), true);
  }
}

TEST_CASE("sqlite: a damaged value is an error, not a crash", "[sqlite]") {
  kv::damaged_value_is_an_error(kv::KvPlugin(STORH_TEST_SQLITE_PLUGIN), sqlite_params("os"),
                                [](const auto& dir, const auto& key, const auto& value) {
                                  sqlite_kv::SqliteStore raw(dir / "kv", sqlite_raw_options());
                                  raw.put(key, value);
                                  raw.close();
                                });
}

TEST_CASE("sqlite: an update through the plugin changes the bytes stored in the file", "[sqlite]") {
  // SQLite commits a statement that changes nothing without writing or syncing: an
  // update must hand it different bytes (YCSB's generations, core/src/ycsb/values.h)
  // for its time to include the write.
  kv::KvPlugin plugin(STORH_TEST_SQLITE_PLUGIN);
  storh::test::ScratchDir dir;
  const auto stored = [&] {
    sqlite_kv::SqliteStore raw(dir.path() / "kv", sqlite_raw_options());
    std::optional<std::string> value = raw.get("user1");
    raw.close();
    REQUIRE(value);
    return *value;
  };
  {
    kv::OpenStore open(plugin, dir.path(), sqlite_params("fsync"));
    auto session = open.session();
    REQUIRE(session->insert("user1", {{"field0", "user1:field0:1234"}}).ok());
    session.reset();
    REQUIRE(open.close().ok());
  }
  const std::string loaded = stored();
  {
    kv::OpenStore open(plugin, dir.path(), sqlite_params("fsync"));
    auto session = open.session();
    storh::KvCode code = storh::KvCode::not_found;
    // Same length, other bytes: as an update of generation 1 replaces a loaded value.
    REQUIRE(session->update("user1", {{"field0", "g1:user1:field0:1"}}, code).ok());
    CHECK(code == storh::KvCode::ok);
    session.reset();
    REQUIRE(open.close().ok());
  }
  const std::string updated = stored();
  CHECK(updated.size() == loaded.size());
  CHECK(updated != loaded);
  CHECK(updated.find("g1:user1:field0:1") != std::string::npos);
}

TEST_CASE("sqlite: the record checks every key-value engine passes, in both journal modes",
          "[sqlite]") {
  kv::KvPlugin plugin(STORH_TEST_SQLITE_PLUGIN);
  for (const std::string journal : {"wal", "delete"}) {
    INFO("journal_mode " << journal);
    kv::every_record_check(plugin, sqlite_params("os", journal));
  }
}

TEST_CASE("sqlite plugin: describes db_bench's four steps and its parameters", "[sqlite]") {
  kv::describes(kv::KvPlugin(STORH_TEST_SQLITE_PLUGIN), "sqlite", kv::kDbBenchSteps,
                {"journal_mode", "cache_size", "value_size", "durability"});
}

TEST_CASE("sqlite plugin: the scenario at 200 keys measures its four steps, each checked",
          "[sqlite]") {
  kv::KvPlugin plugin(STORH_TEST_SQLITE_PLUGIN);
  {
    storh::test::ScratchDir dir;
    CHECK(kv::run_scenario(plugin, dir.path(), 200, sqlite_params("os")) == kv::kDbBenchSteps);
  }
  storh::test::ScratchDir dir;
  kv::Params small = sqlite_params("none");
  small.emplace_back("value_size", std::int64_t{10});
  small.emplace_back("cache_size", std::int64_t{100});
  CHECK(kv::run_scenario(plugin, dir.path(), 200, small) == kv::kDbBenchSteps);
}

TEST_CASE(
    "sqlite: a connection counts SQLite's statistics of its statements since the last reading",
    "[sqlite]") {
  storh::test::ScratchDir dir;
  sqlite_kv::SqliteStore store(dir.path(), sqlite_raw_options());
  {
    sqlite_kv::SqliteConnection connection = store.connect();
    for (int i = 0; i < 50; ++i) connection.put("key" + std::to_string(i), "value");
    static_cast<void>(connection.take_counts());
    CHECK(connection.get("key7") == std::optional<std::string>("value"));
    const auto counts = connection.take_counts();
    const auto count = [&](std::string_view name) {
      for (const auto& c : counts) {
        if (c.name == name) return c.total;
      }
      return -1.0;
    };
    // A lookup by primary key: no full scan, no sort; the put statement did not run.
    CHECK(count("sqlite.get.vm_steps") > 0);
    CHECK(count("sqlite.get.fullscan_steps") == 0);
    CHECK(count("sqlite.get.sorts") == 0);
    CHECK(count("sqlite.put.vm_steps") == -1);
    CHECK(count("sqlite.cache_hits") > 0);
    CHECK(count("sqlite.cache_misses") >= 0);
  }
  store.close();
}

TEST_CASE(
    "sqlite plugin: each scenario step reports SQLite's statistics, the exact ones twice alike",
    "[sqlite]") {
  kv::KvPlugin plugin(STORH_TEST_SQLITE_PLUGIN);
  const auto run = [&] {
    storh::test::ScratchDir dir;
    storh_test::FakeRunContext ctx(300);
    ctx.set_work_dir(dir.path());
    for (const auto& [name, value] : sqlite_params("os")) ctx.set_param(name, value);
    const storh::Status status = plugin.loaded().engine->run(ctx);
    INFO(status.message());
    REQUIRE(status.ok());
    return ctx;
  };
  const storh_test::FakeRunContext ctx = run();
  CHECK(ctx.engine_count("fillseq", "sqlite.put.vm_steps") > 0);
  CHECK(ctx.engine_count("fillseq", "sqlite.get.vm_steps") == -1);
  CHECK(ctx.engine_count("readrandom", "sqlite.get.vm_steps") > 0);
  CHECK(ctx.engine_count("readrandom", "sqlite.get.fullscan_steps") == 0);
  CHECK(ctx.engine_count("readrandom", "sqlite.cache_hits") > 0);
  CHECK(ctx.engine_count("readseq", "sqlite.scan.vm_steps") > 0);
  const storh_test::FakeRunContext again = run();
  for (const storh_test::EngineCounterCall& call : ctx.engine_counters) {
    if (!call.repeats) continue;
    INFO(call.operation << " " << call.name);
    CHECK(again.engine_count(call.operation, call.name) == call.total);
  }
}
