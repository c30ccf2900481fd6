// The lmdb engine: its byte store (lmdb_store.h) directly, and its plugin module as the
// host loads it: the key-value store (kv_checks.h) and the db_bench scenario.
#include <atomic>
#include <catch2/catch.hpp>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "common/store_error.h"
#include "kv/kv_checks.h"
#include "lmdb/lmdb_store.h"
#include "scratch_dir.h"

namespace kv = storh_test::kv;
namespace lmdb = storh::engines::lmdb;
using storh::KvCode;

namespace {

constexpr std::int64_t kLmdbMapSize = 16 << 20;

kv::Params lmdb_params(const std::string& durability, std::int64_t batch = 1) {
  return {
      {"map_size", kLmdbMapSize}, {"durability", durability}, {"writes_per_transaction", batch}};
}

lmdb::LmdbOptions lmdb_raw_options() {
  lmdb::LmdbOptions options;
  options.map_size = kLmdbMapSize;
  options.sync = false;
  return options;
}

std::vector<std::string> lmdb_keys(lmdb::LmdbStore& store, std::string_view start) {
  std::vector<std::string> keys;
  store.scan(start, 100, [&](std::string_view key, std::string_view) { keys.emplace_back(key); });
  return keys;
}

// A read of `key` by a new session on a thread of its own (this thread may hold a batch,
// and so the write lock), started once `before` returns; `before` runs while it reads.
bool lmdb_read_while(kv::OpenStore& open, const std::string& key,
                     const std::function<void()>& before) {
  std::atomic<bool> reading{false};
  bool found = false;
  std::thread reader([&] {
    std::unique_ptr<storh::KeyValueSession> session;
    if (!open.store->open_session(1, session).ok()) return;
    storh::KvRecord out;
    KvCode code = KvCode::not_found;
    reading = true;
    found = session->read(key, {}, out, code).ok() && code == KvCode::ok;
  });
  while (!reading) std::this_thread::yield();
  before();
  reader.join();
  return found;
}

}  // namespace

TEST_CASE("lmdb: keys are ordered bytewise, NUL bytes included", "[lmdb]") {
  storh::test::ScratchDir dir;
  lmdb::LmdbStore store(dir.path(), lmdb_raw_options());
  for (const std::string& key : {std::string("a\x01"), std::string("a\0b", 3), std::string("a")}) {
    store.put(key, "v");
  }
  CHECK(lmdb_keys(store, "") == std::vector<std::string>{"a", std::string("a\0b", 3), "a\x01"});
  CHECK(lmdb_keys(store, std::string("a\0", 2)) ==
        std::vector<std::string>{std::string("a\0b", 3), "a\x01"});
  CHECK(store.erase(std::string("a\0b", 3)));
  CHECK_FALSE(store.erase(std::string("a\0b", 3)));
  CHECK(store.get("a") == std::optional<std::string>("v"));
  store.close();
}

TEST_CASE("lmdb: a batch is seen by its own handle at once and by others after its commit",
          "[lmdb]") {
  storh::test::ScratchDir dir;
  lmdb::LmdbStore store(dir.path(), lmdb_raw_options());
  {
    lmdb::LmdbHandle handle = store.handle(3);
    handle.put("k1", "v1");
    handle.put("k2", "v2");
    CHECK(handle.pending() == 2);
    CHECK(handle.get("k1") == std::optional<std::string>("v1"));
    std::optional<std::string> other;
    std::thread([&] { other = store.get("k1"); }).join();
    CHECK_FALSE(other.has_value());
    handle.put("k3", "v3");  // the third write commits
    CHECK(handle.pending() == 0);
    std::thread([&] { other = store.get("k1"); }).join();
    CHECK(other == std::optional<std::string>("v1"));
    handle.put("k4", "v4");
  }  // destroyed without commit(): k4 is rolled back
  CHECK_FALSE(store.get("k4").has_value());
  store.close();
}

TEST_CASE("lmdb: a full map is an error naming LMDB's reason", "[lmdb]") {
  storh::test::ScratchDir dir;
  lmdb::LmdbOptions options = lmdb_raw_options();
  options.map_size = 1 << 20;
  lmdb::LmdbStore store(dir.path(), options);
  const std::string value(64 << 10, 'x');
  CHECK_THROWS_WITH(
      [&] {
        for (int i = 0; i < 64; ++i) store.put("key" + std::to_string(i), value);
      }(),
      Catch::Contains("lmdb put") && Catch::Contains("MDB_MAP_FULL"));
}

TEST_CASE("lmdb: every durability level stores, and os and fsync keep writes across a reopen",
          "[lmdb]") {
  kv::every_durability_keeps(
      kv::KvPlugin(STORH_TEST_LMDB_PLUGIN), [](const std::string& d) { return lmdb_params(d); },
      false);
}

TEST_CASE("lmdb: a read never misses a key whose insert returned in another session's batch",
          "[lmdb]") {
  // YCSB's workload d reads the latest inserts of every client as soon as they return.
  kv::KvPlugin plugin(STORH_TEST_LMDB_PLUGIN);
  storh::test::ScratchDir dir;
  kv::OpenStore open(plugin, dir.path(), lmdb_params("os", 3));
  auto writer = open.session();
  REQUIRE(writer->insert("k1", kv::record("a", 1)).ok());
  REQUIRE(writer->insert("k2", kv::record("a", 1)).ok());
  // The reader waits for the batch, which the third write commits.
  CHECK(lmdb_read_while(open, "k1", [&] { CHECK(writer->insert("k3", kv::record("a", 1)).ok()); }));
  REQUIRE(writer->insert("k4", kv::record("a", 1)).ok());
  CHECK(lmdb_read_while(open, "k4", [&] { writer.reset(); }));  // the session's end commits
  CHECK_FALSE(lmdb_read_while(open, "k5", [] {}));              // no batch open: a plain miss
  REQUIRE(open.close().ok());
}

TEST_CASE("lmdb: a damaged value is an error, not a crash", "[lmdb]") {
  kv::damaged_value_is_an_error(kv::KvPlugin(STORH_TEST_LMDB_PLUGIN), lmdb_params("os"),
                                [](const auto& dir, const auto& key, const auto& value) {
                                  lmdb::LmdbStore raw(dir / "kv", lmdb_raw_options());
                                  raw.put(key, value);
                                  raw.close();
                                });
}

TEST_CASE("lmdb: the record checks every key-value engine passes, batched or not", "[lmdb]") {
  kv::KvPlugin plugin(STORH_TEST_LMDB_PLUGIN);
  for (const std::int64_t batch : {1, 3}) {
    INFO("writes_per_transaction " << batch);
    kv::every_record_check(plugin, lmdb_params("os", batch));
  }
}

TEST_CASE("lmdb plugin: describes db_bench's four steps and its parameters", "[lmdb]") {
  kv::describes(kv::KvPlugin(STORH_TEST_LMDB_PLUGIN), "lmdb", kv::kDbBenchSteps,
                {"map_size", "writes_per_transaction", "value_size", "durability"});
}

TEST_CASE("lmdb plugin: the scenario at 200 keys measures its four steps, each checked", "[lmdb]") {
  kv::KvPlugin plugin(STORH_TEST_LMDB_PLUGIN);
  {
    storh::test::ScratchDir dir;
    CHECK(kv::run_scenario(plugin, dir.path(), 200, lmdb_params("os")) == kv::kDbBenchSteps);
  }
  storh::test::ScratchDir dir;
  kv::Params batched = lmdb_params("none", 16);
  batched.emplace_back("value_size", std::int64_t{10});
  CHECK(kv::run_scenario(plugin, dir.path(), 200, batched) == kv::kDbBenchSteps);
}

TEST_CASE("lmdb plugin: a read step alone still fills its store first", "[lmdb]") {
  kv::step_alone_runs(kv::KvPlugin(STORH_TEST_LMDB_PLUGIN), "readrandom",
                      {{"map_size", kLmdbMapSize}, {"durability", std::string("os")}});
}
