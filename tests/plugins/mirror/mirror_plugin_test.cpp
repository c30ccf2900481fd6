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
