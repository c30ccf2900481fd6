// The loader checks a plugin's manifest before touching any C++ symbol and refuses a
// mismatch naming the file, the check and both values.
#include <algorithm>
#include <map>

#include <catch2/catch.hpp>

#include "env/environment.h"
#include "plugin/discovery.h"
#include "plugin/loader.h"
#include "plugin/session.h"
#include "storh/version.h"
#include "test_support.h"

using storh::test::contains;

namespace {

const std::filesystem::path refused_dir = std::filesystem::path(STORH_TEST_FIXTURE_DIR) / "refused";
const std::filesystem::path fixture_dir = STORH_TEST_FIXTURE_DIR;

std::string refusal(const std::string& file, const std::string& name = {}) {
  auto loaded = storh::plugin::load_plugin(refused_dir / file, name);
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
  auto loaded = storh::plugin::load_plugin(refused_dir / "storh_nothing_here.so");
  REQUIRE_FALSE(loaded.ok());
  CHECK(contains(loaded.error(), "storh_nothing_here.so: plugin file not found"));
}

TEST_CASE("loader: a good plugin loads and describes itself", "[loader]") {
  auto loaded = storh::plugin::load_plugin(fixture_dir / "storh_misbehave.so", "misbehave");
  REQUIRE(loaded.ok());
  CHECK((*loaded)->manifest().name == "misbehave");
  CHECK((*loaded)->manifest().toolchain == STORH_TOOLCHAIN_FINGERPRINT);
  const storh::EngineInfo info = (*loaded)->describe();
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

namespace {

// The fixtures are compiled with this test's flags, so they share its optimisation.
#if defined(__OPTIMIZE__)
constexpr bool kBuildOptimized = true;
#else
constexpr bool kBuildOptimized = false;
#endif

}  // namespace

TEST_CASE("loader: the manifest records the plugin's build type, flags, compiler, optimisation",
          "[loader][build]") {
  auto loaded = storh::plugin::load_plugin(fixture_dir / "storh_misbehave.so", "misbehave");
  REQUIRE(loaded.ok());
  const storh::plugin::ManifestInfo& m = (*loaded)->manifest();
  CHECK(m.abi_minor == storh::kAbiMinor);
  CHECK(m.build_type != "unknown");
  CHECK(m.build_flags != "unknown");
  CHECK(m.compiler == storh::env::host_build().compiler);
  CHECK(m.optimized == kBuildOptimized);
}

TEST_CASE("loader: a plugin compiled with -O0 is recorded as unoptimised whatever its build type",
          "[loader][build]") {
  auto loaded = storh::plugin::load_plugin(fixture_dir / "storh_unoptimized.so", "unoptimized");
  REQUIRE(loaded.ok());
  const storh::plugin::ManifestInfo& m = (*loaded)->manifest();
  // The build type is this build's; only the compiler knows about the target's -O0.
  CHECK(m.build_type != "unknown");
  CHECK(m.optimized == false);
}

TEST_CASE("loader: an ABI 1.1 manifest without a build record still loads, build unknown",
          "[loader][build]") {
  auto loaded = storh::plugin::load_plugin(fixture_dir / "storh_abi_1_1.so", "abi_1_1");
  REQUIRE(loaded.ok());
  const storh::plugin::ManifestInfo& m = (*loaded)->manifest();
  CHECK(m.abi_minor == 1);
  CHECK(m.struct_size == 40);  // three 32-bit fields, padding, three pointers
  CHECK(m.build_type == "unknown");
  CHECK(m.build_flags == "unknown");
  CHECK(m.compiler == "unknown");
  CHECK(m.optimized == std::nullopt);
  CHECK((*loaded)->engine().describe().name == "abi_1_1");
}

namespace {

const std::filesystem::path described_dir =
    std::filesystem::path(STORH_TEST_FIXTURE_DIR) / "described";

// The refusal of describing fixture `name` (described_plugins.cpp), which must name
// the file.
std::string description_refusal(const std::string& name) {
  const std::filesystem::path file = described_dir / ("storh_" + name + ".so");
  auto described = storh::plugin::describe_plugin(STORH_TEST_HOST, file, name);
  REQUIRE_FALSE(described.ok());
  CHECK(contains(described.error(), file.string() + ": refused: check \"description\" failed"));
  return described.error();
}

}  // namespace

TEST_CASE("describe: a describe() name that differs from STORH_PLUGIN's is refused with both",
          "[loader][describe]") {
  const std::string message = description_refusal("renamed");
  CHECK(contains(message, "describe() says name \"kvv\", STORH_PLUGIN says \"renamed\""));
}

TEST_CASE("describe: an operation declared twice is refused", "[loader][describe]") {
  CHECK(contains(description_refusal("twice"), "operation \"put\" is declared twice"));
}

TEST_CASE("describe: operation and parameter names must be [a-z0-9_]+", "[loader][describe]") {
  const std::string message = description_refusal("badly_named");
  CHECK(contains(message, "operation name \"Op One\" is not [a-z0-9_]+"));
  CHECK(contains(message, "parameter name \"Block-Size\" is not [a-z0-9_]+"));
}

TEST_CASE("describe: a default or allowed value of another type than declared is refused",
          "[loader][describe]") {
  const std::string message = description_refusal("mistyped");
  CHECK(contains(message, "parameter \"mode\" is declared string but its default is integer 3"));
  CHECK(contains(message, "parameter \"mode\" is declared string but allows number 1.5"));
}

TEST_CASE("describe: a sound description passes the checks", "[loader][describe]") {
  auto described = storh::plugin::describe_plugin(STORH_TEST_HOST,
                                                  fixture_dir / "storh_misbehave.so", "misbehave");
  INFO((described.ok() ? "" : described.error()));
  CHECK(described.ok());
}

TEST_CASE("describe: name and version left to STORH_PLUGIN come from the manifest",
          "[loader][describe]") {
  // misbehave's describe() leaves both empty, as SDK 1.5 asks.
  auto described = storh::plugin::describe_plugin(STORH_TEST_HOST,
                                                  fixture_dir / "storh_misbehave.so", "misbehave");
  REQUIRE(described.ok());
  CHECK(described->info.name == "misbehave");
  CHECK(described->info.version == "1.0.0");
}

TEST_CASE("describe: an operation an SDK 1.4 plugin declares higher_is_better is refused",
          "[loader][describe][sdk]") {
  const std::string message = description_refusal("sdk_1_4_score");
  CHECK(
      contains(message, "plugin \"sdk_1_4_score\" declares operation \"score\" higher_is_better"));
}

TEST_CASE("describe: a description's unknown direction is an error naming its JSON path",
          "[loader][describe]") {
  auto described = storh::plugin::describe_plugin(STORH_TEST_HOST,
                                                  fixture_dir / "storh_misbehave.so", "misbehave");
  REQUIRE(described.ok());
  nlohmann::json json = storh::plugin::description_json(*described);
  const auto back = storh::plugin::description_from_json(json);
  REQUIRE(back.ok());
  CHECK(storh::plugin::description_json(*back) == storh::plugin::description_json(*described));

  json["operations"][1]["direction"] = "sideways";
  const auto bad = storh::plugin::description_from_json(json);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error() ==
        "malformed plugin description: /operations/1/direction: expected \"lower_is_better\" "
        "or \"higher_is_better\"");
  json["operations"][1]["direction"] = 1;
  const auto mistyped = storh::plugin::description_from_json(json);
  REQUIRE_FALSE(mistyped.ok());
  CHECK(mistyped.error() ==
        "malformed plugin description: /operations/1/direction: expected a string, got number");
}

TEST_CASE("loader: a plugin built against the SDK 1.4 headers loads, describes itself and runs",
          "[loader][sdk]") {
  const std::filesystem::path file = fixture_dir / "storh_sdk_1_4.so";
  auto loaded = storh::plugin::load_plugin(file, "sdk_1_4");
  REQUIRE(loaded.ok());
  CHECK((*loaded)->manifest().abi_minor == 4);
  CHECK(storh::kAbiMinor > 4);

  // Its describe() repeats the manifest's name and version, as SDK 1.4 required: accepted.
  auto described = storh::plugin::describe_plugin(STORH_TEST_HOST, file, "sdk_1_4");
  INFO((described.ok() ? "" : described.error()));
  REQUIRE(described.ok());
  CHECK(described->info.name == "sdk_1_4");
  CHECK(described->info.version == "1.4.0");
  REQUIRE(described->info.operations.size() == 4);

  // Through the host: every slot it calls (the free storh::measure, and measure,
  // measure_each, measure_repeated called directly) records its samples.
  storh::test::ScratchDir dir;
  const auto run = storh::test::cli(
      {"run", "--engine=sdk_1_4", "--dataset=100", "--repeat=2", "--min-time=1ms",
       "--set=sdk_1_4.offset=3", storh::test::fixture_path_flag,
       "--output=" + (dir / "r.json").string(), "--work-dir=" + dir.path().string()});
  INFO(run.out << run.err);
  REQUIRE(run.code == 0);
  const nlohmann::json result = storh::test::read_json(dir / "r.json");
  REQUIRE(result["experiment"]["engines"].size() == 1);
  CHECK(result["experiment"]["engines"][0]["version"] == "1.4.0");
  std::map<std::string, nlohmann::json> metrics;
  for (const nlohmann::json& m : result["metrics"]) metrics[m["operation"]] = m;
  for (const char* op : {"sum", "direct", "each", "repeated"}) {
    INFO(op);
    REQUIRE(metrics.count(op) == 1);
    CHECK(metrics[op]["direction"] == "lower_is_better");
    REQUIRE(metrics[op]["samples"].size() == 2);
    for (const nlohmann::json& sample : metrics[op]["samples"]) CHECK(sample["items"] == 100);
  }
  CHECK(metrics["each"].contains("latency"));
  CHECK(metrics["repeated"]["samples"][0].contains("calls"));
  CHECK_FALSE(metrics["direct"]["samples"][0].contains("calls"));
}

TEST_CASE("discovery: a plugin hidden by one of the same name is reported with both files",
          "[loader]") {
  storh::test::ScratchDir dir;
  storh::test::write_text(dir / "a/storh_alpha.so", "a");
  storh::test::write_text(dir / "b/storh_alpha.so", "b");
  std::vector<storh::plugin::ShadowedPlugin> shadowed;
  storh::plugin::find_engines({dir / "a", dir / "b", dir / "a"}, &shadowed);
  REQUIRE(shadowed.size() == 1);
  CHECK(shadowed[0].used == dir / "a/storh_alpha.so");
  CHECK(shadowed[0].shadowed == dir / "b/storh_alpha.so");
  const std::string message = storh::plugin::shadowed_message(shadowed[0]);
  CHECK(contains(message, "two plugins named \"alpha\""));
  CHECK(contains(message, "using " + (dir / "a/storh_alpha.so").string()));
  CHECK(contains(message, "ignoring " + (dir / "b/storh_alpha.so").string()));
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

TEST_CASE("describe: a describing child that prints more than it was asked still ends",
          "[loader][describe][session]") {
  // A stand-in for the host executable: a description, then a line nobody asked for,
  // then it reads requests until its stdin ends. Regression: the session waited for a
  // request to answer the extra line with, and its destructor never returned.
  storh::test::ScratchDir dir;
  const auto fake_host = dir / "fake-host";
  storh::test::write_text(fake_host,
                          "#!/bin/sh\necho '{}'\necho 'an extra line'\n"
                          "while read request; do :; done\n");
  std::filesystem::permissions(fake_host, std::filesystem::perms::owner_all);
  {
    storh::plugin::Session session(fake_host, dir / "storh_none.so", "none");
    const auto& described = session.description();
    REQUIRE_FALSE(described.ok());
    CHECK(contains(described.error(), "malformed plugin description"));
  }
  SUCCEED("the session ended");
}
