#include <unistd.h>

#include <iostream>

#include "cli/cli.h"

int main(int argc, char** argv) {
  std::error_code ec;
  storh::cli::CliEnvironment environment{std::filesystem::read_symlink("/proc/self/exe", ec),
                                         ::isatty(STDERR_FILENO) != 0};
  if (ec) environment.host_executable = argv[0];
  const std::vector<std::string> args(argv + 1, argv + argc);
  return storh::cli::run_cli(args, std::cout, std::cerr, environment);
}
