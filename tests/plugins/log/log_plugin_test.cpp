// The log and recovery plugin modules, loaded as the host loads them and run through a
// fake RunContext: every operation runs and passes its own answer check.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "fake_run_context.h"

using storh_test::FakeRunContext;
using storh_test::LoadedPlugin;

namespace {

class Dir {
 public:
  Dir() {
    const char* root = std::getenv("STORH_TEST_TMP");
    std::random_device random;
    path_ = std::filesystem::path(root != nullptr ? root : "/tmp") /
            ("log-plugin-" + std::to_string(random()) + std::to_string(random()));
    std::filesystem::create_directories(path_);
  }
  ~Dir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

std::vector<std::string> names(const std::vector<storh::OperationSpec>& ops) {
  std::vector<std::string> out;
  out.reserve(ops.size());
  for (const auto& op : ops) out.push_back(op.name);
  return out;
}

}  // namespace

TEST_CASE("log plugin: describes the 20 workload operations plus two floors and recover",
          "[log][plugin]") {
  LoadedPlugin plugin(STORH_TEST_LOG_PLUGIN);
  CHECK(std::string(plugin.manifest->name) == "log");
  const storh::EngineInfo info = plugin.engine->describe();
  const std::vector<std::string> want{
      "append_floor", "roll_floor",           "append",         "cursor",
      "query_cursor", "query_id_first",       "query_id_count", "query_id_filtered_first",
      "query_first",  "query_cursor_first",   "range",          "query_all_count",
      "query_count",  "query_limit_count",    "stats",          "compact",
      "bulk_append",  "bulk_query_count",     "bulk_cursor",    "bulk_range",
      "bulk_compact", "bulk_compacted_range", "recover"};
  CHECK(names(info.operations) == want);
}

TEST_CASE("log plugin: every operation passes its answer check at 1000 records, durable",
          "[log][plugin]") {
  LoadedPlugin plugin(STORH_TEST_LOG_PLUGIN);
  Dir dir;
  FakeRunContext ctx(1000);
  ctx.set_work_dir(dir.path());
  const storh::Status status = plugin.engine->run(ctx);
  INFO(status.message());
  REQUIRE(status.ok());
  CHECK(ctx.measured() == names(plugin.engine->describe().operations));
}

TEST_CASE("log plugin: n = 1 and other segment sizes pass their checks", "[log][plugin]") {
  LoadedPlugin plugin(STORH_TEST_LOG_PLUGIN);
  const auto n = GENERATE(as<std::uint64_t>{}, 1, 2, 11, 250);
  const auto segment = GENERATE(as<std::int64_t>{}, 256, 16384);
  INFO("n " << n << " segment_size " << segment);
  Dir dir;
  FakeRunContext ctx(n);
  ctx.set_work_dir(dir.path())
      .set_param("durability", std::string("none"))
      .set_param("segment_size", segment);
  const storh::Status status = plugin.engine->run(ctx);
  INFO(status.message());
  CHECK(status.ok());
}

TEST_CASE("recovery plugin: recover cuts the garbage and keeps every record", "[log][plugin]") {
  LoadedPlugin plugin(STORH_TEST_RECOVERY_PLUGIN);
  CHECK(std::string(plugin.manifest->name) == "recovery");
  CHECK(names(plugin.engine->describe().operations) == std::vector<std::string>{"recover"});
  Dir dir;
  FakeRunContext ctx(1000);
  ctx.set_work_dir(dir.path());
  const storh::Status status = plugin.engine->run(ctx);
  INFO(status.message());
  REQUIRE(status.ok());
  CHECK(ctx.measured() == std::vector<std::string>{"recover"});
}
