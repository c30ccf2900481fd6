#include "common/bench/forked_workers.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <exception>
#include <sstream>
#include <string_view>
#include <utility>

#include "common/store_error.h"

namespace storh::engines::bench {

namespace fs = std::filesystem;

namespace {

fs::path report_file(const fs::path& dir, std::size_t worker) {
  return dir / ("worker-" + std::to_string(worker) + ".report");
}
fs::path error_file(const fs::path& dir, std::size_t worker) {
  return dir / ("worker-" + std::to_string(worker) + ".err");
}

// Best effort: a worker's last words, written with plain syscalls.
void write_file_quietly(const fs::path& path, std::string_view text) noexcept {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return;
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t wrote = ::write(fd, text.data() + done, text.size() - done);
    if (wrote <= 0) break;
    done += static_cast<std::size_t>(wrote);
  }
  ::close(fd);
}

// The body of one worker process. Never returns.
[[noreturn]] void run_worker(const ForkedWorkers::Prepare& prepare, std::size_t worker,
                             const fs::path& report_dir, int ready_fd, int go_fd) noexcept {
  int code = 0;
  try {
    const ForkedWorkers::Body body = prepare(worker);
    const char ready = 'r';
    if (::write(ready_fd, &ready, 1) != 1) throw_errno("write", "ready pipe");
    ::close(ready_fd);
    char go = 0;
    while (::read(go_fd, &go, 1) < 0 && errno == EINTR) {
    }
    const std::string report = body();
    UniqueFd out = open_or_throw(report_file(report_dir, worker), O_WRONLY | O_CREAT | O_TRUNC);
    write_all(out.get(), report, report_file(report_dir, worker));
  } catch (const std::exception& e) {
    write_file_quietly(error_file(report_dir, worker), e.what());
    code = 1;
  } catch (...) {
    write_file_quietly(error_file(report_dir, worker), "unknown exception");
    code = 1;
  }
  ::_exit(code);  // no atexit handlers or static destructors of the parent's image
}

pid_t wait_for(pid_t pid, int& status) {
  pid_t got;
  do {
    got = ::waitpid(pid, &status, 0);
  } while (got < 0 && errno == EINTR);
  return got;
}

}  // namespace

ForkedWorkers::ForkedWorkers(std::size_t workers, fs::path report_dir, const Prepare& prepare)
    : report_dir_(std::move(report_dir)), workers_(workers) {
  int ready[2];
  int go[2];
  if (::pipe2(ready, O_CLOEXEC) != 0) throw_errno("pipe", report_dir_);
  UniqueFd ready_read(ready[0]);
  UniqueFd ready_write(ready[1]);
  if (::pipe2(go, O_CLOEXEC) != 0) throw_errno("pipe", report_dir_);
  UniqueFd go_read(go[0]);
  go_write_ = UniqueFd(go[1]);

  try {
    for (std::size_t worker = 0; worker < workers; ++worker) {
      const pid_t pid = ::fork();
      if (pid < 0) throw_errno("fork", report_dir_);
      if (pid == 0) {
        // Keep only this worker's ends: the go pipe reads EOF once the parent closes it.
        ::close(go_write_.release());
        ::close(ready_read.release());
        run_worker(prepare, worker, report_dir_, ready_write.release(), go_read.release());
      }
      pids_.push_back(pid);
    }
    ready_write.close_or_throw("ready pipe");
    for (std::size_t seen = 0; seen < workers;) {
      char byte = 0;
      const ssize_t got = ::read(ready_read.get(), &byte, 1);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) throw StoreError("a worker died before it was ready");
      ++seen;
    }
  } catch (const StoreError& e) {
    kill_all();
    std::string message = e.what();
    for (std::size_t worker = 0; worker < workers; ++worker) {
      std::string text;
      if (read_file_if_exists(error_file(report_dir_, worker), text)) {
        message += "; worker " + std::to_string(worker) + ": " + text;
      }
    }
    throw StoreError(message);
  }
}

void ForkedWorkers::kill_all() noexcept {
  for (const pid_t pid : pids_) ::kill(pid, SIGKILL);
  for (const pid_t pid : pids_) {
    int status = 0;
    wait_for(pid, status);
  }
  pids_.clear();
}

ForkedWorkers::~ForkedWorkers() {
  kill_all();
}

void ForkedWorkers::start() {
  if (go_write_.valid()) go_write_.close_or_throw("go pipe");
}

std::string ForkedWorkers::wait() {
  std::ostringstream problems;
  for (std::size_t worker = 0; worker < pids_.size(); ++worker) {
    int status = 0;
    if (wait_for(pids_[worker], status) < 0) {
      problems << "worker " << worker << ": waitpid failed; ";
      continue;
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) continue;
    problems << "worker " << worker;
    if (WIFSIGNALED(status)) {
      problems << " killed by signal " << WTERMSIG(status);
    } else {
      problems << " exited with status " << WEXITSTATUS(status);
    }
    std::string message;
    if (read_file_if_exists(error_file(report_dir_, worker), message)) problems << ": " << message;
    problems << "; ";
  }
  pids_.clear();
  return problems.str();
}

std::vector<std::string> ForkedWorkers::reports() const {
  std::vector<std::string> all(workers_);
  for (std::size_t worker = 0; worker < workers_; ++worker) {
    read_file_if_exists(report_file(report_dir_, worker), all[worker]);
  }
  return all;
}

}  // namespace storh::engines::bench
