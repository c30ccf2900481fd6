// The loader checks a plugin's manifest before touching any C++ symbol and refuses a
// mismatch naming the file, the check and both values.
#include <algorithm>

#include <catch2/catch.hpp>

#include "plugin/discovery.h"
#include "plugin/loader.h"
#include "storh/version.h"
#include "test_support.h"

using storh::test::contains;

namespace {

const std::filesystem::path kRefused = std::filesystem::path(STORH_TEST_FIXTURE_DIR) / "refused";
const std::filesystem::path kFixtures = STORH_TEST_FIXTURE_DIR;

std::string refusal(const std::string& file, const std::string& name = {}) {
  auto loaded = storh::plugin::load_plugin(kRefused / file, name);
  REQUIRE_FALSE(loaded.ok());
  return loaded.error();
}

}  // namespace

TEST_CASE("loader: a wrong ABI major is refused with both versions", "[loader]") {
  const std::string message = refusal("storh_wrong_abi.so");
  CHECK(contains(message, "storh_wrong_abi.so"));
  CHECK(contains(message, "check \"ABI major\" failed"));
  CHECK(contains(message, "plugin has " + std::to_string(storh::kAbiMajor + 1)));
  CHECK(contains(message, "host has " + std::to_string(storh::kAbiMajor)));
}

TEST_CASE("loader: a newer ABI minor is refused", "[loader]") {
  const std::string message = refusal("storh_newer_minor.so");
  CHECK(contains(message, "check \"ABI minor\" failed"));
  CHECK(contains(message, "plugin is newer"));
}

TEST_CASE("loader: a different toolchain fingerprint is refused with both fingerprints",
          "[loader]") {
  const std::string message = refusal("storh_wrong_toolchain.so");
  CHECK(contains(message, "check \"toolchain\" failed"));
  CHECK(contains(message, "libc++-0 cxx11abi=none"));
  CHECK(contains(message, STORH_TOOLCHAIN_FINGERPRINT));
}

TEST_CASE("loader: a module without a manifest is not a plugin", "[loader]") {
  const std::string message = refusal("storh_no_manifest.so");
  CHECK(contains(message, "storh_no_manifest.so: not a storh plugin"));
  CHECK(contains(message, "no storh_plugin_manifest symbol"));
}

TEST_CASE("loader: an unresolved symbol shows dlerror's text", "[loader]") {
  const std::string message = refusal("storh_unresolved.so");
  CHECK(contains(message, "cannot load plugin"));
  CHECK(contains(message, "undefined symbol"));
  CHECK(contains(message, "storh_fixture_symbol_that_does_not_exist"));
}

TEST_CASE("loader: a manifest name that differs from the file name is refused", "[loader]") {
  const std::string message = refusal("storh_misnamed.so", "misnamed");
  CHECK(contains(message, "check \"name\" failed"));
  CHECK(contains(message, "\"somebody_else\""));
}

TEST_CASE("loader: a missing file is named", "[loader]") {
  auto loaded = storh::plugin::load_plugin(kRefused / "storh_nothing_here.so");
  REQUIRE_FALSE(loaded.ok());
  CHECK(contains(loaded.error(), "storh_nothing_here.so: plugin file not found"));
}

TEST_CASE("loader: a good plugin loads and describes itself", "[loader]") {
  auto loaded = storh::plugin::load_plugin(kFixtures / "storh_misbehave.so", "misbehave");
  REQUIRE(loaded.ok());
  CHECK((*loaded)->manifest().name == "misbehave");
  CHECK((*loaded)->manifest().toolchain == STORH_TOOLCHAIN_FINGERPRINT);
  const storh::EngineInfo info = (*loaded)->engine().describe();
  CHECK(info.name == "misbehave");
  REQUIRE(info.operations.size() == 3);
  CHECK(info.operations[1].name == "second");
}

TEST_CASE("discovery: engines are found by file name, first directory wins", "[loader]") {
  storh::test::ScratchDir dir;
  storh::test::write_text(dir / "a/storh_alpha.so", "");
  storh::test::write_text(dir / "b/storh_alpha.so", "");
  storh::test::write_text(dir / "b/storh_beta.so", "");
  storh::test::write_text(dir / "b/libother.so", "");
  const auto engines = storh::plugin::find_engines({dir / "a", dir / "b", dir / "missing"});
  REQUIRE(engines.size() == 2);
  CHECK(engines.at("alpha") == dir / "a/storh_alpha.so");
  CHECK(engines.at("beta") == dir / "b/storh_beta.so");
  CHECK(storh::plugin::engine_name_of("storh_.so") == std::nullopt);
}

TEST_CASE("discovery: an installed host searches its own plugins, never the build tree's",
          "[loader]") {
  // Regression: an installed host searched the build tree's plugins before its own.
  storh::test::ScratchDir prefix;
  const std::filesystem::path installed = prefix / "lib/storh/plugins";
  std::filesystem::create_directories(installed);
  const auto dirs = storh::plugin::search_path({"/first"}, prefix / "bin/storh-host");
  CHECK(dirs.front() == "/first");
  CHECK(std::find(dirs.begin(), dirs.end(), installed) != dirs.end());
  CHECK(std::find(dirs.begin(), dirs.end(), std::filesystem::path(STORH_TEST_PLUGIN_DIR)) ==
        dirs.end());
}

TEST_CASE("discovery: a host in its build tree searches the build's plugins", "[loader]") {
  const auto dirs = storh::plugin::search_path({}, STORH_TEST_HOST);
  CHECK(std::find(dirs.begin(), dirs.end(), std::filesystem::path(STORH_TEST_PLUGIN_DIR)) !=
        dirs.end());
}
