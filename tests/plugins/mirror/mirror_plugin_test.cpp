// The mirror plugin module, loaded like the host loads it (engine-spec.md 11.8): every
// operation runs and checks its expected answer.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "fake_run_context.h"
#include "scratch_dir.h"

using storh_test::FakeRunContext;
using storh_test::LoadedPlugin;

namespace {

const std::vector<std::string> all_operations{"push",        "reconcile",    "flush",
                                              "query",       "query_direct", "rebuild",
                                              "push_direct", "flush_direct", "pull"};

}  // namespace

TEST_CASE("mirror plugin: describes its operations and parameters", "[mirror][plugin]") {
  LoadedPlugin plugin(STORH_TEST_MIRROR_PLUGIN);
  CHECK(std::string(plugin.manifest->name) == "mirror");
  const storh::EngineInfo info = plugin.engine->describe();
  CHECK(info.name.empty());  // stated once, in STORH_PLUGIN: the host fills it in
  std::vector<std::string> names;
  for (const auto& op : info.operations) names.push_back(op.name);
  CHECK(names == all_operations);
  std::vector<std::string> params;
  for (const auto& p : info.params) params.push_back(p.name);
  CHECK(params == std::vector<std::string>{"journal_mode", "durability", "validation"});
}

TEST_CASE("mirror plugin: every operation at 1k returns its expected answer, durably",
          "[mirror][plugin]") {
  LoadedPlugin plugin(STORH_TEST_MIRROR_PLUGIN);
  storh::test::ScratchDir dir;
  FakeRunContext ctx(1000);
  ctx.set_work_dir(dir.path());
  const storh::Status status = plugin.engine->run(ctx);
  INFO(status.message());
  REQUIRE(status.ok());
  CHECK(ctx.measured() == all_operations);
  for (const auto& m : ctx.measurements) {
    const bool single = m.operation == "query" || m.operation == "query_direct";
    const bool flushes = m.operation == "flush" || m.operation == "flush_direct";
    CHECK(m.items == (flushes ? 100u : single ? 1u : 1000u));
  }
}

TEST_CASE("mirror plugin: WAL, no fsync and tiny datasets", "[mirror][plugin]") {
  LoadedPlugin plugin(STORH_TEST_MIRROR_PLUGIN);
  for (const std::uint64_t n : {1, 2, 150, 1000}) {
    for (const std::string journal : {"delete", "wal"}) {
      storh::test::ScratchDir dir;
      FakeRunContext ctx(n);
      ctx.set_work_dir(dir.path())
          .set_param("journal_mode", journal)
          .set_param("durability", std::string("none"))
          .set_param("validation", std::string(n == 2 ? "trust" : "hash"));
      const storh::Status status = plugin.engine->run(ctx);
      INFO("n = " << n << ", journal " << journal << ": " << status.message());
      REQUIRE(status.ok());
      CHECK(ctx.measured() == all_operations);
    }
  }
}

TEST_CASE("mirror plugin: unselected steps still run when later ones need them",
          "[mirror][plugin]") {
  LoadedPlugin plugin(STORH_TEST_MIRROR_PLUGIN);
  storh::test::ScratchDir dir;
  FakeRunContext ctx(50, {"flush", "flush_direct", "pull"});
  ctx.set_work_dir(dir.path()).set_param("durability", std::string("none"));
  const storh::Status status = plugin.engine->run(ctx);
  INFO(status.message());
  REQUIRE(status.ok());
  CHECK(ctx.measured() == std::vector<std::string>{"flush", "flush_direct", "pull"});
}

TEST_CASE("mirror plugin: each step reports SQLite's statistics, by statement role",
          "[mirror][plugin]") {
  LoadedPlugin plugin(STORH_TEST_MIRROR_PLUGIN);
  const auto run = [&] {
    storh::test::ScratchDir dir;
    FakeRunContext ctx(300, {"push", "reconcile", "flush", "query", "pull"});
    ctx.set_work_dir(dir.path()).set_param("durability", std::string("none"));
    const storh::Status status = plugin.engine->run(ctx);
    INFO(status.message());
    REQUIRE(status.ok());
    return ctx;
  };
  const FakeRunContext ctx = run();
  // reconcile reads every (id, hash) pair: a full scan of the table, one step forward
  // from each of the 300 rows but the last.
  CHECK(ctx.engine_count("reconcile", "mirror.select_hashes.fullscan_steps") == 299);
  CHECK(ctx.engine_count("reconcile", "mirror.select_hashes.vm_steps") > 0);
  CHECK(ctx.engine_count("reconcile", "mirror.cache_hits") > 0);
  // flush deletes each of its rows by id: a lookup in the primary key, no scan.
  CHECK(ctx.engine_count("flush", "mirror.delete_one.vm_steps") > 0);
  CHECK(ctx.engine_count("flush", "mirror.delete_one.fullscan_steps") == 0);
  CHECK(ctx.engine_count("flush", "mirror.insert.vm_steps") > 0);
  CHECK(ctx.engine_count("push", "mirror.insert.vm_steps") > 0);
  CHECK(ctx.engine_count("push", "mirror.cache_writes") > 0);
  CHECK(ctx.engine_count("pull", "mirror.select_data.fullscan_steps") == 299);
  // A repeated step would count its warm-up batches too: it reports none.
  CHECK(ctx.engine_count("query", "mirror.cache_hits") == -1);

  // What is marked as repeating is the same in a second run of the same workload.
  const FakeRunContext again = run();
  for (const storh_test::EngineCounterCall& call : ctx.engine_counters) {
    if (!call.repeats) continue;
    INFO(call.operation << " " << call.name);
    CHECK(again.engine_count(call.operation, call.name) == call.total);
  }
}
