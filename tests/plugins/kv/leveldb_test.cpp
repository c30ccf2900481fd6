// The leveldb engine: its byte store (leveldb_store.h) directly, and its plugin module
// as the host loads it: the key-value store (kv_checks.h) and the db_bench scenario.
#include <catch2/catch.hpp>
#include <optional>
#include <string>
#include <vector>

#include "common/store_error.h"
#include "kv/kv_checks.h"
#include "leveldb/leveldb_store.h"
#include "scratch_dir.h"

namespace kv = storh_test::kv;
namespace ldb = storh::engines::leveldb;

// Helper names carry the engine's: the test files of kv_test are built as one unit.
namespace {

// Small memtables, so a test's few keys reach tables.
ldb::Options level_options() {
  ldb::Options options;
  options.write_buffer_size = 64 << 10;
  options.cache_size = 1 << 20;
  return options;
}

kv::Params level_params(const std::string& durability) {
  return {{"durability", durability}, {"write_buffer_size", std::int64_t{64 << 10}}};
}

std::vector<std::string> level_keys(const ldb::Store& store, std::string_view start) {
  std::vector<std::string> keys;
  store.scan(start, 100, [&](std::string_view key, std::string_view) { keys.emplace_back(key); });
  return keys;
}

// NOLINTNEXTLINE(readability-identifier-naming): a constant, if not constexpr
const std::vector<std::string> kLevelOperations{"fillseq", "fillrandom", "readrandom", "readseq"};

}  // namespace

TEST_CASE("leveldb: keys are ordered bytewise and erase says whether the key was there",
          "[leveldb]") {
  storh::test::ScratchDir dir;
  ldb::Store store(dir.path(), level_options());
  const std::vector<std::string> keys{std::string("a\x01"), std::string("a\0b", 3), "a"};
  for (const std::string& key : keys) store.put(key, "v");
  CHECK(level_keys(store, "") == std::vector<std::string>{"a", std::string("a\0b", 3), "a\x01"});
  CHECK(level_keys(store, std::string("a\0", 2)) ==
        std::vector<std::string>{std::string("a\0b", 3), "a\x01"});
  CHECK(store.erase(std::string("a\0b", 3)));
  CHECK_FALSE(store.erase(std::string("a\0b", 3)));
  CHECK(store.get("a") == std::optional<std::string>("v"));
  CHECK_FALSE(store.get("b").has_value());
  store.close();
}

TEST_CASE(
    "leveldb: with snappy, no cache and no filter it keeps what was written across a "
    "reopen",
    "[leveldb]") {
  for (const ldb::Compression compression : {ldb::Compression::none, ldb::Compression::snappy}) {
    INFO("snappy " << (compression == ldb::Compression::snappy));
    storh::test::ScratchDir dir;
    ldb::Options options = level_options();
    options.compression = compression;
    options.cache_size = 0;
    options.bloom_bits = 0;
    const std::string value(300, 'v');
    {
      ldb::Store store(dir.path(), options);
      for (int i = 0; i < 500; ++i) store.put("key" + std::to_string(i), value);
      store.close();
    }
    ldb::Store store(dir.path(), options);
    CHECK(store.get("key0") == std::optional<std::string>(value));
    CHECK(store.get("key499") == std::optional<std::string>(value));
    CHECK(level_keys(store, "key98") == std::vector<std::string>{"key98", "key99"});
  }
}

TEST_CASE("leveldb: a database another Store holds open is an error naming LevelDB's reason",
          "[leveldb]") {
  storh::test::ScratchDir dir;
  ldb::Store first(dir.path(), level_options());
  CHECK_THROWS_WITH(ldb::Store(dir.path(), level_options()),
                    Catch::Contains("leveldb open") && Catch::Contains("lock"));
}

TEST_CASE("leveldb: the record checks every key-value engine passes", "[leveldb]") {
  kv::every_record_check(kv::KvPlugin(STORH_TEST_LEVELDB_PLUGIN), level_params("os"));
}

TEST_CASE("leveldb: every durability level stores and keeps its writes across a reopen",
          "[leveldb]") {
  // none keeps them too: LevelDB always writes its log, so none is os.
  kv::every_durability_keeps(kv::KvPlugin(STORH_TEST_LEVELDB_PLUGIN), level_params, true);
}

TEST_CASE("leveldb: a damaged value is an error, not a crash", "[leveldb]") {
  kv::damaged_value_is_an_error(kv::KvPlugin(STORH_TEST_LEVELDB_PLUGIN), level_params("os"),
                                [](const auto& dir, const auto& key, const auto& value) {
                                  ldb::Store raw(dir / "leveldb", level_options());
                                  raw.put(key, value);
                                  raw.close();
                                });
}

TEST_CASE("leveldb plugin: describes db_bench's four steps and its parameters", "[leveldb]") {
  kv::KvPlugin plugin(STORH_TEST_LEVELDB_PLUGIN);
  kv::describes(
      plugin, "leveldb", kLevelOperations,
      {"cache_size", "compression", "write_buffer_size", "bloom_bits", "durability", "value_size"});
  CHECK(plugin.loaded().engine->param_ranges().size() == 4);
}

TEST_CASE("leveldb plugin: a read step alone still fills its database first", "[leveldb]") {
  kv::step_alone_runs(kv::KvPlugin(STORH_TEST_LEVELDB_PLUGIN), "readseq",
                      {{"durability", std::string("os")}});
}

TEST_CASE("leveldb plugin: the scenario at 200 keys measures its four steps, each checked",
          "[leveldb]") {
  kv::KvPlugin plugin(STORH_TEST_LEVELDB_PLUGIN);
  {
    storh::test::ScratchDir dir;
    CHECK(kv::run_scenario(plugin, dir.path(), 200, level_params("os")) == kLevelOperations);
  }
  storh::test::ScratchDir dir;
  kv::Params other = level_params("none");
  other.emplace_back("compression", std::string("snappy"));
  other.emplace_back("bloom_bits", std::int64_t{0});
  other.emplace_back("cache_size", std::int64_t{0});
  other.emplace_back("value_size", std::int64_t{10});
  CHECK(kv::run_scenario(plugin, dir.path(), 200, other) == kLevelOperations);
}

TEST_CASE("leveldb plugin: a parameter out of its range is refused before and at run",
          "[leveldb]") {
  kv::KvPlugin plugin(STORH_TEST_LEVELDB_PLUGIN);
  const storh::Engine& engine = *plugin.loaded().engine;
  CHECK(engine.preflight({{"durability", std::string("none")}}).ok());
  CHECK_THAT(engine.preflight({{"write_buffer_size", std::int64_t{1}}}).message(),
             Catch::Contains("write_buffer_size = 1 is out of range [65536, 1073741824]"));
  storh::test::ScratchDir dir;
  storh_test::FakeRunContext ctx(10);
  ctx.set_work_dir(dir.path()).set_param("compression", std::string("lz4"));
  CHECK_THAT(plugin.loaded().engine->run(ctx).message(),
             Catch::Contains("compression \"lz4\" (valid: none, snappy)"));
  CHECK(ctx.measurements.empty());
}
