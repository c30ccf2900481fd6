// The SDK's promise that a plugin's manifest and its describe() agree (storh/plugin.h):
// the host refuses a plugin whose EngineInfo says another version than STORH_PLUGIN.
#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "plugin/session.h"
#include "test_support.h"

using storh::test::contains;

TEST_CASE("describe: a describe() version that differs from STORH_PLUGIN's is refused with both",
          "[plugin][describe]") {
  const std::filesystem::path file =
      std::filesystem::path(STORH_TEST_FIXTURE_DIR) / "described" / "storh_reversioned.so";
  auto described = storh::plugin::describe_plugin(STORH_TEST_HOST, file, "reversioned");
  REQUIRE_FALSE(described.ok());
  CHECK(contains(described.error(), file.string() + ": refused: check \"description\" failed"));
  CHECK(contains(described.error(),
                 "describe() says version \"0.9.0\", STORH_PLUGIN says \"1.0.0\""));
}

TEST_CASE("describe: every bundled plugin's describe() agrees with its manifest",
          "[plugin][describe]") {
  std::size_t seen = 0;
  for (const auto& entry : std::filesystem::directory_iterator(STORH_TEST_PLUGIN_DIR)) {
    const std::string file = entry.path().filename().string();
    if (!file.starts_with("storh_") || entry.path().extension() != ".so") continue;
    const std::string name = file.substr(6, file.size() - 6 - 3);
    auto described = storh::plugin::describe_plugin(STORH_TEST_HOST, entry.path(), name);
    INFO(file << ": " << (described.ok() ? "" : described.error()));
    CHECK(described.ok());
    ++seen;
  }
  CHECK(seen >= 9);
}
