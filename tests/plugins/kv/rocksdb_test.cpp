// The rocksdb engine: its byte store (rocksdb_store.h) directly, and its plugin module
// as the host loads it: the key-value store (kv_checks.h) and the db_bench scenario.
#include <rocksdb/perf_level.h>
#include <algorithm>
#include <catch2/catch.hpp>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "common/bench/db_bench.h"
#include "common/store_error.h"
#include "kv/kv_checks.h"
#include "rocksdb/rocksdb_store.h"
#include "scratch_dir.h"

namespace kv = storh_test::kv;
namespace rdb = storh::engines::rocksdb;

// Helper names carry the engine's: the test files of kv_test are built as one unit.
namespace {

// Small memtables, so a test's few keys still reach SST files when flushed.
rdb::Options rocks_options() {
  rdb::Options options;
  options.write_buffer_size = 64 << 10;
  options.block_cache_size = 1 << 20;
  return options;
}

kv::Params rocks_params(const std::string& durability) {
  return {{"durability", durability}, {"write_buffer_size", std::int64_t{64 << 10}}};
}

std::vector<std::string> rocks_keys(const rdb::Store& store, std::string_view start) {
  std::vector<std::string> keys;
  store.scan(start, 100, [&](std::string_view key, std::string_view) { keys.emplace_back(key); });
  return keys;
}

// NOLINTNEXTLINE(readability-identifier-naming): a constant, if not constexpr
const std::vector<std::string> kRocksOperations{"fillseq",    "fillrandom", "overwrite",
                                                "readrandom", "readseq",    "readwhilewriting"};

}  // namespace

TEST_CASE("rocksdb: keys are ordered bytewise and erase says whether the key was there",
          "[rocksdb]") {
  storh::test::ScratchDir dir;
  rdb::Store store(dir.path(), rocks_options());
  const std::vector<std::string> keys{std::string("a\x01"), std::string("a\0b", 3), "a"};
  for (const std::string& key : keys) store.put(key, "v");
  CHECK(rocks_keys(store, "") == std::vector<std::string>{"a", std::string("a\0b", 3), "a\x01"});
  CHECK(rocks_keys(store, std::string("a\0", 2)) ==
        std::vector<std::string>{std::string("a\0b", 3), "a\x01"});
  CHECK(store.erase(std::string("a\0b", 3)));
  CHECK_FALSE(store.erase(std::string("a\0b", 3)));
  CHECK(store.get("a") == std::optional<std::string>("v"));
  CHECK_FALSE(store.get("b").has_value());
  store.close();
}

TEST_CASE("rocksdb: a thread's calls run without RocksDB's per-thread perf counting", "[rocksdb]") {
  // RocksDB's default (kEnableCount) adds thread-local increments to every call; db_bench
  // runs with it off, and a comparison with db_bench is only fair with it off here too.
  storh::test::ScratchDir dir;
  rdb::Store store(dir.path(), rocks_options());
  const auto level_after = [&](auto&& call) {
    ::rocksdb::PerfLevel level = ::rocksdb::PerfLevel::kUninitialized;
    std::thread([&] {
      ::rocksdb::SetPerfLevel(::rocksdb::PerfLevel::kEnableCount);
      call();
      level = ::rocksdb::GetPerfLevel();
    }).join();
    return level;
  };
  CHECK(level_after([&] { store.put("k", "v"); }) == ::rocksdb::PerfLevel::kDisable);
  CHECK(level_after([&] { CHECK(store.get("k").has_value()); }) == ::rocksdb::PerfLevel::kDisable);
  CHECK(level_after([&] { rocks_keys(store, ""); }) == ::rocksdb::PerfLevel::kDisable);
  CHECK(level_after([&] { CHECK(store.erase("k")); }) == ::rocksdb::PerfLevel::kDisable);
  store.close();
}

TEST_CASE("rocksdb: every compression and compaction style keeps what was written", "[rocksdb]") {
  // Each compression once, each style at least once: what they store must read back.
  const std::vector<std::pair<rdb::Compression, rdb::CompactionStyle>> cells{
      {rdb::Compression::none, rdb::CompactionStyle::fifo},
      {rdb::Compression::snappy, rdb::CompactionStyle::universal},
      {rdb::Compression::lz4, rdb::CompactionStyle::level},
      {rdb::Compression::zstd, rdb::CompactionStyle::fifo}};
  for (const auto& [compression, style] : cells) {
    INFO(rdb::name(compression) << ", compaction style " << static_cast<int>(style));
    REQUIRE(rdb::supported(compression));  // Debian's build has all four
    storh::test::ScratchDir dir;
    rdb::Options options = rocks_options();
    options.compression = compression;
    options.compaction_style = style;
    options.bloom_bits = style == rdb::CompactionStyle::fifo ? 0 : 10;
    const std::string value(300, 'v');
    {
      rdb::Store store(dir.path(), options);
      for (int i = 0; i < 500; ++i) store.put("key" + std::to_string(i), value);
      store.close();
    }
    rdb::Store store(dir.path(), options);
    CHECK(store.get("key0") == std::optional<std::string>(value));
    CHECK(store.get("key499") == std::optional<std::string>(value));
    CHECK(rocks_keys(store, "key98") == std::vector<std::string>{"key98", "key99"});
  }
}

TEST_CASE("rocksdb: without the WAL, close flushes the memtable so a reopen keeps it",
          "[rocksdb]") {
  storh::test::ScratchDir dir;
  rdb::Options options = rocks_options();
  options.wal = false;
  {
    rdb::Store store(dir.path(), options);
    store.put("k", "v");
    store.close();
    store.close();  // idempotent
  }
  rdb::Store store(dir.path(), options);
  CHECK(store.get("k") == std::optional<std::string>("v"));
}

TEST_CASE("rocksdb: sync without the WAL is refused at open", "[rocksdb]") {
  storh::test::ScratchDir dir;
  rdb::Options options = rocks_options();
  options.wal = false;
  options.sync = true;
  CHECK_THROWS_WITH(rdb::Store(dir.path(), options),
                    Catch::Contains("rocksdb open") && Catch::Contains("sync needs the WAL"));
}

TEST_CASE("rocksdb: the record checks every key-value engine passes", "[rocksdb]") {
  kv::every_record_check(kv::KvPlugin(STORH_TEST_ROCKSDB_PLUGIN), rocks_params("os"));
}

TEST_CASE("rocksdb: every durability level stores and keeps its writes across a reopen",
          "[rocksdb]") {
  // none keeps them too: close() flushes the memtable the disabled WAL would replay.
  kv::every_durability_keeps(kv::KvPlugin(STORH_TEST_ROCKSDB_PLUGIN), rocks_params, true);
}

TEST_CASE("rocksdb: a damaged value is an error, not a crash", "[rocksdb]") {
  kv::damaged_value_is_an_error(kv::KvPlugin(STORH_TEST_ROCKSDB_PLUGIN), rocks_params("os"),
                                [](const auto& dir, const auto& key, const auto& value) {
                                  rdb::Store raw(dir / "rocksdb", rocks_options());
                                  raw.put(key, value);
                                  raw.close();
                                });
}

TEST_CASE("rocksdb plugin: describes db_bench's six steps and its parameters", "[rocksdb]") {
  kv::KvPlugin plugin(STORH_TEST_ROCKSDB_PLUGIN);
  kv::describes(plugin, "rocksdb", kRocksOperations,
                {"write_buffer_size", "block_cache_size", "compression", "compaction_style", "wal",
                 "durability", "statistics", "max_background_jobs", "bloom_bits", "value_size",
                 "threads", "fill_keys", "readseq_passes"});
  std::vector<std::string> ranged;
  for (const auto& range : plugin.loaded().engine->param_ranges()) ranged.push_back(range.name);
  CHECK(ranged == std::vector<std::string>{"write_buffer_size", "block_cache_size",
                                           "max_background_jobs", "bloom_bits", "value_size",
                                           "threads", "readseq_passes"});
}

TEST_CASE("rocksdb plugin: a read step alone still fills its database first", "[rocksdb]") {
  kv::step_alone_runs(kv::KvPlugin(STORH_TEST_ROCKSDB_PLUGIN), "readwhilewriting",
                      {{"durability", std::string("os")}});
}

TEST_CASE("rocksdb plugin: the scenario at 200 keys measures its six steps, each checked",
          "[rocksdb]") {
  kv::KvPlugin plugin(STORH_TEST_ROCKSDB_PLUGIN);
  {
    storh::test::ScratchDir dir;
    CHECK(kv::run_scenario(plugin, dir.path(), 200, rocks_params("os")) == kRocksOperations);
  }
  storh::test::ScratchDir dir;
  kv::Params other = rocks_params("none");
  other.emplace_back("compression", std::string("zstd"));
  other.emplace_back("compaction_style", std::string("universal"));
  other.emplace_back("bloom_bits", std::int64_t{0});
  other.emplace_back("block_cache_size", std::int64_t{0});
  other.emplace_back("value_size", std::int64_t{10});
  CHECK(kv::run_scenario(plugin, dir.path(), 200, other) == kRocksOperations);
}

TEST_CASE("rocksdb plugin: wal = false with os or fsync is refused before and at run",
          "[rocksdb]") {
  kv::KvPlugin plugin(STORH_TEST_ROCKSDB_PLUGIN);
  const storh::Engine& engine = *plugin.loaded().engine;
  for (const std::string& durability : std::vector<std::string>{"os", "fsync"}) {
    INFO("durability " << durability);
    const storh::Status refused = engine.preflight({{"durability", durability}, {"wal", false}});
    CHECK_THAT(refused.message(), Catch::Contains("wal = false with durability = " + durability) &&
                                      Catch::Contains("use durability = none"));
    storh::test::ScratchDir dir;
    storh_test::FakeRunContext ctx(10);
    ctx.set_work_dir(dir.path()).set_param("durability", durability).set_param("wal", false);
    CHECK_THAT(plugin.loaded().engine->run(ctx).message(), Catch::Contains("wal = false"));
    CHECK(ctx.measurements.empty());
  }
  CHECK(engine.preflight({{"durability", std::string("none")}, {"wal", false}}).ok());
  CHECK_THAT(engine.preflight({{"value_size", std::int64_t{0}}}).message(),
             Catch::Contains("value_size = 0 is out of range [1, 4194304]"));
}

namespace {

// The scenario's steps and their item counts at n keys with `params` (durability os).
std::vector<std::pair<std::string, std::uint64_t>> rocks_steps(const kv::KvPlugin& plugin,
                                                               std::uint64_t n,
                                                               const kv::Params& params) {
  storh::test::ScratchDir dir;
  storh_test::FakeRunContext ctx(n);
  ctx.set_work_dir(dir.path()).set_param("durability", std::string("os"));
  for (const auto& [name, value] : params) ctx.set_param(name, value);
  const storh::Status status = plugin.loaded().engine->run(ctx);
  INFO(status.message());
  REQUIRE(status.ok());
  std::vector<std::pair<std::string, std::uint64_t>> steps;
  for (const auto& m : ctx.measurements) steps.emplace_back(m.operation, m.items);
  return steps;
}

// How many of the n keys db_bench's fillrandom then overwrite put, on `threads` threads.
std::uint64_t rocks_keys_written(std::uint64_t n, unsigned threads) {
  std::vector<bool> written(n, false);
  storh::engines::bench::mark_drawn(written, 1, threads);  // fillrandom's draws
  storh::engines::bench::mark_drawn(written, 2, threads);  // overwrite's
  return static_cast<std::uint64_t>(std::count(written.begin(), written.end(), true));
}

}  // namespace

TEST_CASE("rocksdb plugin: with two threads every step does the one-thread work twice",
          "[rocksdb]") {
  kv::KvPlugin plugin(STORH_TEST_ROCKSDB_PLUGIN);
  // Each thread puts, gets or scans all 300 keys (db_bench's num is per thread), and
  // every read is checked: two fillseq threads writing the same keys still agree.
  const auto steps = rocks_steps(plugin, 300, {{"threads", std::int64_t{2}}});
  REQUIRE(steps.size() == kRocksOperations.size());
  for (std::size_t i = 0; i < steps.size(); ++i) {
    CHECK(steps[i].first == kRocksOperations[i]);
    CHECK(steps[i].second == 600);
  }
}

TEST_CASE("rocksdb plugin: uniform fill keys leave some unwritten and reads find only the rest",
          "[rocksdb]") {
  kv::KvPlugin plugin(STORH_TEST_ROCKSDB_PLUGIN);
  for (const std::int64_t threads : {1, 2}) {
    INFO("threads " << threads);
    const std::uint64_t written = rocks_keys_written(400, static_cast<unsigned>(threads));
    REQUIRE(written < 400);  // else no read could miss
    const auto steps =
        rocks_steps(plugin, 400, {{"fill_keys", std::string("uniform")}, {"threads", threads}});
    REQUIRE(steps.size() == kRocksOperations.size());
    const auto t = static_cast<std::uint64_t>(threads);
    // readrandom's misses passed its check, so each was a key never written.
    CHECK(steps[3] == std::pair<std::string, std::uint64_t>{"readrandom", t * 400});
    // readseq counts the entries it found: per thread the keys written, no more.
    CHECK(steps[4] == std::pair<std::string, std::uint64_t>{"readseq", t * written});
  }
}

TEST_CASE("rocksdb plugin: readseq_passes scans the whole database that many times per thread",
          "[rocksdb]") {
  kv::KvPlugin plugin(STORH_TEST_ROCKSDB_PLUGIN);
  const std::uint64_t written = rocks_keys_written(400, 2);
  const auto steps = rocks_steps(plugin, 400,
                                 {{"fill_keys", std::string("uniform")},
                                  {"threads", std::int64_t{2}},
                                  {"readseq_passes", std::int64_t{3}}});
  REQUIRE(steps.size() == kRocksOperations.size());
  // Every pass of every thread found exactly the keys written; the other steps keep
  // their one-pass work.
  CHECK(steps[4] == std::pair<std::string, std::uint64_t>{"readseq", written * 3 * 2});
  CHECK(steps[3] == std::pair<std::string, std::uint64_t>{"readrandom", std::uint64_t{2} * 400});
  CHECK_THAT(plugin.loaded().engine->preflight({{"readseq_passes", std::int64_t{0}}}).message(),
             Catch::Contains("readseq_passes = 0 is out of range [1, 1000]"));
}

TEST_CASE("rocksdb plugin: a bad threads or fill_keys is refused before the run", "[rocksdb]") {
  kv::KvPlugin plugin(STORH_TEST_ROCKSDB_PLUGIN);
  const storh::Engine& engine = *plugin.loaded().engine;
  CHECK_THAT(engine.preflight({{"threads", std::int64_t{0}}}).message(),
             Catch::Contains("threads = 0 is out of range [1, 64]"));
  CHECK_THAT(engine.preflight({{"fill_keys", std::string("random")}}).message(),
             Catch::Contains("fill_keys \"random\" (valid: shuffled, uniform)"));
}

TEST_CASE("rocksdb plugin: each step reports RocksDB's tickers, the exact ones twice alike",
          "[rocksdb]") {
  kv::KvPlugin plugin(STORH_TEST_ROCKSDB_PLUGIN);
  // A small memtable, so 3000 keys of 100 bytes flush to SST files and reads go
  // through the block cache.
  const auto run = [&](bool statistics) {
    storh::test::ScratchDir dir;
    storh_test::FakeRunContext ctx(3000,
                                   {"fillseq", "fillrandom", "readrandom", "readwhilewriting"});
    ctx.set_work_dir(dir.path())
        .set_param("durability", std::string("os"))
        .set_param("write_buffer_size", std::int64_t{64 << 10})
        .set_param("statistics", statistics);
    const storh::Status status = plugin.loaded().engine->run(ctx);
    INFO(status.message());
    REQUIRE(status.ok());
    return ctx;
  };
  const storh_test::FakeRunContext ctx = run(true);
  CHECK(ctx.engine_count("fillseq", "rocksdb.bytes_written") > 3000 * 100);
  CHECK(ctx.engine_count("readrandom", "rocksdb.bytes_written") == 0);
  CHECK(ctx.engine_count("readrandom", "rocksdb.block_cache_hits") > 0);
  CHECK(ctx.engine_count("readrandom", "rocksdb.stall_micros") >= 0);
  // How much the background writer puts depends on timing: nothing there repeats.
  CHECK(ctx.engine_count("readwhilewriting", "rocksdb.bytes_written") >= 0);
  for (const storh_test::EngineCounterCall& call : ctx.engine_counters) {
    INFO(call.operation << " " << call.name);
    CHECK(call.repeats ==
          (call.name == "rocksdb.bytes_written" && call.operation != "readwhilewriting"));
  }
  const storh_test::FakeRunContext again = run(true);
  for (const storh_test::EngineCounterCall& call : ctx.engine_counters) {
    if (!call.repeats) continue;
    INFO(call.operation << " " << call.name);
    CHECK(again.engine_count(call.operation, call.name) == call.total);
  }
  CHECK(run(false).engine_counters.empty());
}
