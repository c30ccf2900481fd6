// The doc plugin as the host loads it: every operation of engine-spec.md 11.1 (plus
// put_floor) runs and checks its answer, at 1,000 records and at the small sizes where
// the general formulas matter (n = 1, n < d + 100, n < 201).
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <random>
#include "fake_run_context.h"

using storh_test::FakeRunContext;
using storh_test::LoadedPlugin;

namespace {

// A fresh directory under $STORH_TEST_TMP (or the system temp), removed afterwards.
// (tests/support/test_support.h needs the CLI library, which this test does not link.)
class TempDir {
 public:
  TempDir() {
    const char* root = std::getenv("STORH_TEST_TMP");
    const std::filesystem::path base =
        root != nullptr ? root : std::filesystem::temp_directory_path();
    path_ = base / ("doc-plugin-" + std::to_string(std::random_device{}()));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace

TEST_CASE("doc plugin: describes the 30 storh operations in order, then the five floors",
          "[doc_plugin]") {
  LoadedPlugin plugin(STORH_TEST_DOC_PLUGIN);
  const storh::EngineInfo info = plugin.engine->describe();
  CHECK(info.name.empty());  // stated once, in STORH_PLUGIN: the host fills it in
  REQUIRE(info.operations.size() == 35);
  CHECK(info.operations.front().name == "put");
  CHECK(info.operations[8].name == "index_build");
  CHECK(info.operations[29].name == "jsonl_import");
  CHECK(info.operations[30].name == "put_floor");
  CHECK(info.operations[31].name == "scan_floor");
  CHECK(info.operations[32].name == "bulk_floor");
  CHECK(info.operations[33].name == "delete_floor");
  CHECK(info.operations[34].name == "get_floor");
}

TEST_CASE("doc plugin: every operation answers correctly", "[doc_plugin]") {
  LoadedPlugin plugin(STORH_TEST_DOC_PLUGIN);
  // 2000: get_floor stats the next 1000 files the put loop wrote, not the gets' own.
  const auto sizes = GENERATE(as<std::uint64_t>{}, 1000, 2000, 1, 2, 150, 250);
  TempDir dir;
  FakeRunContext ctx(sizes);
  ctx.set_work_dir(dir.path()).set_param("durability", std::string("none"));
  const storh::Status status = plugin.engine->run(ctx);
  INFO("n = " << sizes << ": " << status.message());
  REQUIRE(status.ok());
  const auto names = ctx.measured();
  REQUIRE(names.size() == 35);
  CHECK(names[1] == "get");
  // Each floor runs next to its operation: get_floor after get, delete_floor before
  // delete, bulk_floor after bulk_put; put_floor and scan_floor at the end.
  CHECK(names[2] == "get_floor");
  CHECK(names[8] == "delete_floor");
  CHECK(names[9] == "delete");
  CHECK(names[29] == "bulk_put");
  CHECK(names[30] == "bulk_floor");
  CHECK(names[33] == "put_floor");
  CHECK(names[34] == "scan_floor");
}

TEST_CASE("doc plugin: durable writes and other validation modes", "[doc_plugin]") {
  LoadedPlugin plugin(STORH_TEST_DOC_PLUGIN);
  const std::string mode = GENERATE(std::string("hash"), std::string("trust"), std::string("stat"),
                                    std::string("notify"));
  TempDir dir;
  FakeRunContext ctx(120);
  ctx.set_work_dir(dir.path()).set_param("validation", mode);
  if (mode != "stat") ctx.set_param("durability", std::string("none"));
  const storh::Status status = plugin.engine->run(ctx);
  INFO(mode << ": " << status.message());
  CHECK(status.ok());
}

TEST_CASE("doc plugin: bulk_sync chooses the bulk writes' calls, and a typo names the choices",
          "[doc_plugin]") {
  LoadedPlugin plugin(STORH_TEST_DOC_PLUGIN);
  TempDir dir;
  FakeRunContext ctx(40);
  ctx.set_work_dir(dir.path()).set_param("bulk_sync", std::string("files"));
  const storh::Status files = plugin.engine->run(ctx);
  INFO(files.message());
  CHECK(files.ok());

  TempDir other;
  FakeRunContext typo(40);
  typo.set_work_dir(other.path()).set_param("bulk_sync", std::string("file"));
  const storh::Status failed = plugin.engine->run(typo);
  CHECK_FALSE(failed.ok());
  CHECK_THAT(failed.message(), Catch::Contains("valid: filesystem, files"));
}
