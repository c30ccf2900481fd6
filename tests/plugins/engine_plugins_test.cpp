// The uuid and filter plugin modules, loaded like the host loads them and run through
// a fake RunContext (engine-spec.md 11.6 and 11.7).
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "fake_run_context.h"

using storh_test::FakeRunContext;
using storh_test::LoadedPlugin;

namespace {

std::vector<std::string> operation_names(const storh::EngineInfo& info) {
  std::vector<std::string> names;
  for (const auto& op : info.operations) names.push_back(op.name);
  return names;
}

}  // namespace

TEST_CASE("uuid plugin: the manifest and description name its four operations", "[plugin]") {
  LoadedPlugin plugin(STORH_TEST_UUID_PLUGIN);
  CHECK(std::string(plugin.manifest->name) == "uuid");
  CHECK(plugin.manifest->abi_major == storh::kAbiMajor);
  REQUIRE(plugin.engine != nullptr);
  const storh::EngineInfo info = plugin.engine->describe();
  CHECK(info.name.empty());  // stated once, in STORH_PLUGIN: the host fills it in
  CHECK(info.params.empty());
  CHECK(operation_names(info) ==
        std::vector<std::string>{"monotonic", "spread", "validate", "timestamp"});
  for (const auto& op : info.operations) {
    CHECK(op.unit == "ids");
    CHECK_FALSE(op.description.empty());
  }
}

TEST_CASE("uuid plugin: runs and checks every operation", "[plugin]") {
  LoadedPlugin plugin(STORH_TEST_UUID_PLUGIN);
  for (const std::uint64_t n : {1, 2, 1000}) {
    FakeRunContext ctx(n);
    const storh::Status status = plugin.engine->run(ctx);
    INFO("n = " << n << ": " << status.message());
    REQUIRE(status.ok());
    CHECK(ctx.measured() ==
          std::vector<std::string>{"monotonic", "spread", "validate", "timestamp"});
    for (const auto& m : ctx.measurements) CHECK(m.items == n);
    // Every step is min_time-repeatable: the fake calls each three times, and the
    // answer checks still hold on the last call.
    CHECK(ctx.repeated == std::vector<std::string>{"monotonic", "spread", "validate", "timestamp"});
  }
}

TEST_CASE("uuid plugin: times only the selected operations", "[plugin]") {
  LoadedPlugin plugin(STORH_TEST_UUID_PLUGIN);
  FakeRunContext ctx(100, {"spread", "timestamp"});
  REQUIRE(plugin.engine->run(ctx).ok());
  CHECK(ctx.measured() == std::vector<std::string>{"spread", "timestamp"});
}

TEST_CASE("filter plugin: the manifest and description name its three operations", "[plugin]") {
  LoadedPlugin plugin(STORH_TEST_FILTER_PLUGIN);
  CHECK(std::string(plugin.manifest->name) == "filter");
  const storh::EngineInfo info = plugin.engine->describe();
  CHECK(info.name.empty());  // stated once, in STORH_PLUGIN: the host fills it in
  CHECK(operation_names(info) ==
        std::vector<std::string>{"record_equal", "record_range", "condition_equal"});
  for (const auto& op : info.operations) CHECK(op.unit == "rows");
}

TEST_CASE("filter plugin: counts are checked for every dataset size, below 20 too", "[plugin]") {
  LoadedPlugin plugin(STORH_TEST_FILTER_PLUGIN);
  for (const std::uint64_t n : {1, 19, 20, 1000}) {
    FakeRunContext ctx(n);
    const storh::Status status = plugin.engine->run(ctx);
    INFO("n = " << n << ": " << status.message());
    REQUIRE(status.ok());
    CHECK(ctx.measured() ==
          std::vector<std::string>{"record_equal", "record_range", "condition_equal"});
    for (const auto& m : ctx.measurements) CHECK(m.items == n);
    CHECK(ctx.repeated ==
          std::vector<std::string>{"record_equal", "record_range", "condition_equal"});
  }
}

TEST_CASE("filter plugin: times only the selected operations", "[plugin]") {
  LoadedPlugin plugin(STORH_TEST_FILTER_PLUGIN);
  FakeRunContext ctx(50, {"condition_equal"});
  REQUIRE(plugin.engine->run(ctx).ok());
  CHECK(ctx.measured() == std::vector<std::string>{"condition_equal"});
  CHECK_FALSE(ctx.progress_messages.empty());
}
