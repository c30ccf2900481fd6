// Load suites of the pg plugin's `custom` transaction run through the CLI on a test's
// server used as a DSN server (each cell in a database of its own), and their results
// read back: for the tests of scripts, retries and statement latencies. Also the check
// that two runs of one seed repeat their repeating engine counters.
#pragma once

#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "pg_server_fixture.h"
#include "test_support.h"

namespace storh::test {

// The example scripts, suites/pg/, with the trailing '/'.
inline std::string example_scripts() {
  return std::string(STORH_TEST_SOURCE_DIR) + "/suites/pg/";
}

// One server for every suite test of this executable: started by the first test that
// asks, stopped and removed when the executable exits, so that each test does not pay
// for an initdb of its own.
inline PgServer& shared_suite_server() {
  static PgServer server;
  return server;
}

struct DsnSuiteRun {  // NOLINT(bugprone-exception-escape): a test's value
  CliResult cli;
  nlohmann::json result;
};

// Runs suite `name` (written into `dir`, its result "<name>.json" beside it): the
// `custom` transaction with `load` as its [load] lines and `params` as extra pg params,
// random_seed 7, no warm-up unless `load` sets one; `flags` go on the command line too.
inline DsnSuiteRun run_custom_suite(const PgServer& server, const ScratchDir& dir,
                                    const std::string& name, const std::string& load,
                                    const std::string& params,
                                    const std::vector<std::string>& flags = {}) {
  namespace fs = std::filesystem;
  const fs::path suite = dir / (name + ".toml");
  const bool warmup_given = load.find("warmup") != std::string::npos;
  write_text(
      suite,
      fmt::format("name = \"{}\"\ntimeout = \"120s\"\ndatasets = [1]\n[load]\n{}"
                  "progress = 0\n{}\n[engines.pg]\noperations = [\"custom\"]\n"
                  "[engines.pg.params]\nserver = \"dsn\"\n"
                  "dsn = \"host={} port={} user={} dbname=postgres\"\nrandom_seed = 7\n{}\n",
                  name, warmup_given ? "" : "warmup = 0\n", load, server.server->socket_host(),
                  engines::pg::kSocketPort, engines::pg::kSuperuser, params));
  const fs::path output = dir / (name + ".json");
  DsnSuiteRun run;
  std::vector<std::string> args{
      suite.string(), std::string("--plugin-path=") + STORH_TEST_PLUGIN_DIR,
      "--output=" + output.string(), "--work-dir=" + (dir / "work").string()};
  args.insert(args.end(), flags.begin(), flags.end());
  run.cli = cli(args);
  if (fs::exists(output)) run.result = nlohmann::json::parse(read_text(output));
  return run;
}

// The load block of the metric of `operation` ("custom", "custom.transfer").
inline nlohmann::json load_of(const DsnSuiteRun& run, const std::string& operation) {
  for (const nlohmann::json& m : run.result["metrics"]) {
    if (m["operation"] == operation) return m["load"];
  }
  FAIL("no metric of " << operation << " in " << run.result["metrics"].dump());
  return {};
}

// `first` and `second`: one metric's "engine_counters" from two runs of one seed. Every
// counter `first` marks repeating (of those whose name starts with `prefix`) has the
// same count per item in `second`, and there are at least `min_count` of them.
inline void check_repeating_equal(const nlohmann::json& first, const nlohmann::json& second,
                                  int min_count, std::string_view prefix = "") {
  int repeating = 0;
  for (const auto& [name, value] : first.items()) {
    if (!name.starts_with(prefix) || !value["repeats"].get<bool>()) continue;
    ++repeating;
    INFO(name);
    REQUIRE(second.contains(name));
    CHECK(second[name]["per_item"] == value["per_item"]);
  }
  CHECK(repeating >= min_count);
}

}  // namespace storh::test
