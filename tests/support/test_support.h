// Helpers shared by the host's tests: scratch directories and files (scratch_dir.h),
// and running the CLI with captured streams.
#pragma once

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

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

inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace storh::test
