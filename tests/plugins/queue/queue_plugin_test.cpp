// The queue plugin module, loaded like the host loads it and run through a fake
// RunContext (engine-spec.md 11.3, plus append_floor and claim_concurrent).
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "fake_run_context.h"
#include "queue_test_support.h"

using storh_test::FakeRunContext;
using storh_test::LoadedPlugin;

namespace {

const std::vector<std::string> all_operations = {
    "append_floor",    "enqueue",      "claim",           "complete",
    "requeue",         "bulk_enqueue", "bulk_claim",      "bulk_complete",
    "bulk_rows_floor", "bulk_floor",   "claim_concurrent"};

}  // namespace

TEST_CASE("queue plugin: the description keeps storh's seven metrics in order, with the floors",
          "[plugin]") {
  LoadedPlugin plugin(STORH_TEST_QUEUE_PLUGIN);
  CHECK(std::string(plugin.manifest->name) == "queue");
  REQUIRE(plugin.engine != nullptr);
  const storh::EngineInfo info = plugin.engine->describe();
  CHECK(info.name.empty());  // stated once, in STORH_PLUGIN: the host fills it in
  std::vector<std::string> names;
  for (const auto& op : info.operations) names.push_back(op.name);
  CHECK(names == all_operations);
  REQUIRE(info.params.size() == 2);
  CHECK(info.params[0].name == "durability");
  CHECK(std::get<std::string>(info.params[0].default_value) == "durable");
  CHECK(info.params[1].name == "workers");
  CHECK(std::get<std::int64_t>(info.params[1].default_value) == 4);
}

TEST_CASE("queue plugin: every operation runs and checks its answer at n = 1 and 1000",
          "[plugin]") {
  LoadedPlugin plugin(STORH_TEST_QUEUE_PLUGIN);
  for (const std::uint64_t n : {1, 1000}) {
    queue_test::ScratchDir dir;
    FakeRunContext ctx(n);
    ctx.set_work_dir(dir.path());
    const storh::Status status = plugin.engine->run(ctx);
    INFO("n = " << n << ": " << status.message());
    REQUIRE(status.ok());
    CHECK(ctx.measured() == all_operations);
    for (const auto& m : ctx.measurements) {
      CHECK(m.items == (m.operation == "requeue" ? 1 : n));
    }
  }
}

TEST_CASE("queue plugin: durability none, 5 workers, and only the selected operations",
          "[plugin]") {
  LoadedPlugin plugin(STORH_TEST_QUEUE_PLUGIN);
  queue_test::ScratchDir dir;
  FakeRunContext ctx(500, {"bulk_claim", "claim_concurrent"});
  ctx.set_work_dir(dir.path()).set_param("durability", std::string("none"));
  ctx.set_param("workers", std::int64_t{5});
  const storh::Status status = plugin.engine->run(ctx);
  INFO(status.message());
  REQUIRE(status.ok());
  // The fake context records every measured step; the host drops unselected ones.
  const auto names = ctx.measured();
  CHECK(std::find(names.begin(), names.end(), "append_floor") == names.end());
  CHECK(std::find(names.begin(), names.end(), "claim_concurrent") != names.end());
  CHECK(std::find(names.begin(), names.end(), "bulk_claim") != names.end());
  // No single-call operation was selected: that group (3n fsyncs when durable) is skipped.
  CHECK(std::find(names.begin(), names.end(), "enqueue") == names.end());
  CHECK_FALSE(std::filesystem::exists(dir.path() / "queue"));
}

TEST_CASE("queue plugin: bad parameters fail the run with the valid choices", "[plugin]") {
  LoadedPlugin plugin(STORH_TEST_QUEUE_PLUGIN);
  queue_test::ScratchDir dir;
  FakeRunContext ctx(10);
  ctx.set_work_dir(dir.path()).set_param("workers", std::int64_t{0});
  const storh::Status status = plugin.engine->run(ctx);
  CHECK_FALSE(status.ok());
  CHECK(status.message().find("workers must be 1 to 256") != std::string::npos);
}
