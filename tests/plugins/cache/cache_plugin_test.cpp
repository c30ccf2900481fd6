// The cache plugin as the host loads it (engine-spec.md 11.5): both metrics and the two
// syscall floors and the decoding floor measured and checked in every validation mode.
#include <catch2/catch.hpp>
#include <string>

#include "fake_run_context.h"
#include "scratch_dir.h"

using storh_test::FakeRunContext;
using storh_test::LoadedPlugin;

TEST_CASE("cache plugin: cold and warm gets are measured in every validation mode",
          "[cache][plugin]") {
  const std::string mode = GENERATE("hash", "stat", "trust", "notify");
  storh::test::ScratchDir dir;
  LoadedPlugin plugin(STORH_TEST_CACHE_PLUGIN);
  FakeRunContext ctx(100);
  ctx.set_param("validation", mode).set_param("durability", std::string("none"));
  ctx.set_work_dir(dir.path());
  const storh::Status status = plugin.engine->run(ctx);
  INFO(status.message());
  REQUIRE(status.ok());
  REQUIRE(ctx.measurements.size() == 5);
  CHECK(ctx.measurements[0].operation == "cold");
  CHECK(ctx.measurements[1].operation == "warm");
  CHECK(ctx.measurements[2].operation == "stat_floor");
  CHECK(ctx.measurements[3].operation == "read_floor");
  CHECK(ctx.measurements[4].operation == "decode_floor");
  for (const auto& m : ctx.measurements) CHECK(m.items == 100);
  CHECK_FALSE(ctx.progress_messages.empty());
}

TEST_CASE("cache plugin: works for a single record", "[cache][plugin]") {
  storh::test::ScratchDir dir;
  LoadedPlugin plugin(STORH_TEST_CACHE_PLUGIN);
  FakeRunContext ctx(1);
  ctx.set_work_dir(dir.path());
  REQUIRE(plugin.engine->run(ctx).ok());
  CHECK(ctx.measurements.size() == 5);
}

TEST_CASE("cache plugin: an unknown validation mode fails with the choices", "[cache][plugin]") {
  storh::test::ScratchDir dir;
  LoadedPlugin plugin(STORH_TEST_CACHE_PLUGIN);
  FakeRunContext ctx(10);
  ctx.set_param("validation", std::string("sometimes")).set_work_dir(dir.path());
  const storh::Status status = plugin.engine->run(ctx);
  CHECK_FALSE(status.ok());
  CHECK(status.message().find("hash, stat, trust, notify") != std::string::npos);
}
