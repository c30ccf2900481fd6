#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <iostream>

#include "cli/cli.h"

int main(int argc, char** argv) {
  // Descriptors 0-2 must exist, or the worker's event pipe could land on one of them.
  for (int fd = 0; fd <= 2; ++fd) {
    if (::fcntl(fd, F_GETFD) < 0) ::open("/dev/null", O_RDWR);
  }
  // The runner waits for its workers itself; an inherited "ignore" would reap them.
  ::signal(SIGCHLD, SIG_DFL);
  // Re-executing /proc/self/exe runs this very binary even if it is rebuilt meanwhile.
  storh::cli::CliEnvironment environment{
      "/proc/self/exe",
      storh::cli::draws_progress(::isatty(STDERR_FILENO) != 0, std::getenv("CI"))};
  const std::vector<std::string> args(argv + 1, argv + argc);
  return storh::cli::run_cli(args, std::cout, std::cerr, environment);
}
