#include "worker/fork_worker.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>

#include <fmt/format.h>

#include "process/child_process.h"
#include "util/files.h"
#include "worker/request.h"
#include "worker/worker_main.h"

namespace storh::worker {
namespace {

void say(const char* message) {
  write_all(STDERR_FILENO, message);
}

// The worker, in the grandchild: waits to be adopted by the host, takes its
// descriptors, and runs as `storh-host __worker ...` would.
[[noreturn]] void become_worker(const std::vector<std::string>& args, pid_t host, pid_t middle,
                                const std::array<int, kSpawnFds>& fds) {
  ::setpgid(0, 0);  // own group, as exec_child's: a timeout stops what it spawns
  process::place_child_fds({fds[0], fds[1], fds[2], fds[3]});
  const int go = ::fcntl(fds[4], F_DUPFD_CLOEXEC, process::kEventFd + 1);
  if (go < 0) ::_exit(127);
  // Nothing of the session child's stays open but `go`: its conversation, and whatever
  // the plugin opened while being described (exec would have closed what it marked so).
  const auto first_other = static_cast<unsigned>(process::kEventFd + 1);
  if (static_cast<unsigned>(go) > first_other) {
    ::close_range(first_other, static_cast<unsigned>(go) - 1, 0);
  }
  ::close_range(static_cast<unsigned>(go) + 1, ~0U, 0);
  // The middle process exits right after the fork (maybe already has); the host
  // adopts the worker then.
  pid_t parent;
  while ((parent = ::getppid()) == middle) ::usleep(20);
  // Die with the host, as a worker it started does. The second check closes the race
  // with a host that died before the prctl.
  if (parent == host) ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (parent != host || ::getppid() != host) {
    say("storh-host worker: the host did not adopt the forked worker\n");
    ::_exit(127);
  }
  // The host's go: it has this pid and watches it. Without it, the host gave up on
  // this worker and starts another with exec.
  char byte = 0;
  ssize_t got;
  while ((got = ::read(go, &byte, 1)) < 0 && errno == EINTR) {
  }
  if (got != 1) ::_exit(127);
  ::close(go);
  for (const int signal :
       {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGCHLD}) {
    ::signal(signal, SIG_DFL);
  }
  sigset_t none;
  ::sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  int code = kWorkerExitBadInput;
  try {
    code = worker_main(std::vector<std::string>(args.begin() + 1, args.end()));
  } catch (const std::exception& e) {
    std::cerr << "storh-host worker: " << e.what() << '\n';
  }
  std::fflush(nullptr);
  finish_worker(code);
}

}  // namespace

nlohmann::json fork_worker(const std::string& request, std::array<int, kSpawnFds> fds) {
  struct CloseFds {
    std::array<int, kSpawnFds>& fds;
    ~CloseFds() {
      for (int& fd : fds) {
        if (fd >= 0) ::close(fd);
        fd = -1;
      }
    }
  } close_fds{fds};
  const nlohmann::json parsed = nlohmann::json::parse(request, nullptr, false);
  std::vector<std::string> args;
  pid_t host = 0;
  try {
    args = parsed.at("argv").get<std::vector<std::string>>();
    host = parsed.at("host").get<pid_t>();
  } catch (const std::exception& e) {
    return {{"error", fmt::format("unreadable spawn request: {}", e.what())}};
  }
  if (args.size() < 2 || args[1] != kWorkerCommand) {
    return {{"error", "a spawn request names no __worker command"}};
  }
  if (std::any_of(fds.begin(), fds.end(), [](int fd) { return fd < 0; })) {
    return {{"error", "a spawn request came without its descriptors"}};
  }
  // A plugin that made this process a subreaper would adopt the worker here.
  if (int reaper = 0; ::prctl(PR_GET_CHILD_SUBREAPER, &reaper) != 0 || reaper != 0) {
    return {{"error", "the session child is a child subreaper"}};
  }
  if (const int threads = process::thread_count(); threads != 1) {
    return {{"error", fmt::format("the session child runs {} threads", threads)}};
  }
  // Buffered output must not be written twice, by this process and by the copy.
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  int report[2];
  if (::pipe2(report, O_CLOEXEC) != 0) {
    return {{"error", fmt::format("cannot create a pipe: {}", std::strerror(errno))}};
  }
  const pid_t middle = ::fork();
  if (middle == 0) {
    ::close(report[0]);
    const pid_t self = ::getpid();
    const pid_t worker = ::fork();
    if (worker == 0) become_worker(args, host, self, fds);
    if (worker > 0) ::setpgid(worker, worker);  // also here: the group exists when told
    const int told = worker > 0 ? static_cast<int>(worker) : -errno;
    [[maybe_unused]] const ssize_t n = ::write(report[1], &told, sizeof told);
    ::_exit(0);
  }
  ::close(report[1]);
  int told = 0;
  const ssize_t got = middle > 0 ? ::read(report[0], &told, sizeof told) : -1;
  ::close(report[0]);
  if (middle > 0) {
    while (::waitpid(middle, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
  if (middle < 0 || got != static_cast<ssize_t>(sizeof told) || told <= 0) {
    const int error = middle < 0 ? errno : -told;
    return {{"error", fmt::format("cannot fork: {}", std::strerror(error))}};
  }
  return {{"pid", told}};
}

}  // namespace storh::worker
