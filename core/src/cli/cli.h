// cli/cli.h: the command line as a library function, so tests drive every command
// with fake argv and captured streams. main() is a few lines around run_cli.
#pragma once

#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "util/exit_codes.h"  // what run_cli returns

namespace storh::cli {

struct CliEnvironment {
  // The storh-host binary that workers run as (`__worker`). main() passes
  // /proc/self/exe; tests pass the built binary.
  std::filesystem::path host_executable;
  // Whether to draw the progress line on `err` (draws_progress).
  bool interactive = false;
};

// A progress line is drawn only on a terminal, and not under CI (the CI variable set
// to anything but "" / "0" / "false", as GitHub Actions, GitLab and most CI systems
// set CI=true), where a log would fill with redrawn lines.
bool draws_progress(bool stderr_is_terminal, const char* ci_variable);

// args excludes the program name: {"run", "suites/default.toml"}. Returns one of the
// exit codes of util/exit_codes.h.
int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
            const CliEnvironment& environment);

}  // namespace storh::cli
