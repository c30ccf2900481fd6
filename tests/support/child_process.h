// Forked child processes for tests of promises about processes (locks, crashes,
// exactly-once): run a body in a child, wait for it.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <functional>

namespace storh::test {

// Runs `body` in a forked child, which exits 0 when body returns normally and 1 on an
// exception (Catch2 assertions do not work in the child). Returns the child's pid.
inline pid_t fork_child(const std::function<void()>& body) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    int code = 0;
    try {
      body();
    } catch (...) {
      code = 1;
    }
    ::_exit(code);
  }
  REQUIRE(pid > 0);
  return pid;
}

// Waits for `pid` (retrying on EINTR); returns the raw waitpid status.
inline int wait_status(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

// Waits for `pid`; returns its exit code, or 128 + the signal that ended it.
inline int wait_child(pid_t pid) {
  const int status = wait_status(pid);
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

}  // namespace storh::test
