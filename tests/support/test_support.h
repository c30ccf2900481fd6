// Helpers shared by the host's tests: scratch directories and files (scratch_dir.h),
// and running the CLI with captured streams.
#pragma once

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/cli.h"
#include "scratch_dir.h"

namespace storh::test {

struct CliResult {
  int code = -1;
  std::string out;
  std::string err;
};

// Runs the CLI in-process; workers are the built storh-host binary.
inline CliResult cli(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  cli::CliEnvironment environment{STORH_TEST_HOST, false};
  CliResult result;
  result.code = cli::run_cli(args, out, err, environment);
  result.out = out.str();
  result.err = err.str();
  return result;
}

// The flag that makes a run find the fixture plugins (tests/fixtures).
inline const std::string fixture_path_flag = std::string("--plugin-path=") + STORH_TEST_FIXTURE_DIR;

// A JSON file the test wrote or had written; a parse error throws (and fails the test).
inline nlohmann::json read_json(const std::filesystem::path& file) {
  return nlohmann::json::parse(read_text(file));
}

// The metric with this key in a result file's JSON; none fails the test.
inline const nlohmann::json& metric(const nlohmann::json& result, const std::string& key) {
  for (const nlohmann::json& m : result["metrics"]) {
    if (m["key"] == key) return m;
  }
  FAIL("no metric " << key << " in " << result["metrics"].dump());
  throw std::logic_error("unreachable: FAIL throws");
}

inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace storh::test
