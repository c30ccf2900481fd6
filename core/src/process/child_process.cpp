#include "process/child_process.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "util/files.h"

namespace storh::process {
namespace {

using Clock = std::chrono::steady_clock;

// How long the watching loop sleeps while the child is quiet. Its output and events
// wake the loop at once, and so does its exit (its pipes close) unless something it
// started still holds them; the sleep bounds how late a cancel, an exit seen only by
// wait4, or a resident set over its limit is seen, and ends early where a timeout or
// the SIGKILL after a stop falls due. It is kPollMillis after the child wrote
// anything, doubles while it stays quiet, up to kQuietPollMillis, and is kPollMillis
// while the resident set is over half its limit or the child is being stopped. Each wake-up is
// a context switch, tens of microseconds on a virtual machine: at a steady 5 ms a
// run's host spent several milliseconds of CPU per second on them, which a
// benchmark's client-CPU figures count.
constexpr int kPollMillis = 5;
constexpr int kQuietPollMillis = 50;

struct Pipe {
  int read_end = -1;
  int write_end = -1;
};

bool open_pipe(Pipe& pipe) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return false;
  pipe.read_end = fds[0];
  pipe.write_end = fds[1];
  return true;
}

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

// Resident set of `pid` from /proc/<pid>/statm, in bytes; 0 when unreadable.
std::uint64_t resident_bytes(pid_t pid) {
  const std::string text = read_trimmed(fmt::format("/proc/{}/statm", pid));
  unsigned long long size_pages = 0;
  unsigned long long resident_pages = 0;
  if (std::sscanf(text.c_str(), "%llu %llu", &size_pages, &resident_pages) != 2) return 0;
  return resident_pages * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
}

// The kernel's count of processes its out-of-memory killer ended (/proc/vmstat
// oom_kill, Linux 4.13 on); nullopt when unreadable.
std::optional<std::uint64_t> oom_kills() {
  const std::string text = "\n" + read_trimmed("/proc/vmstat");
  constexpr std::string_view kName = "\noom_kill ";
  const std::size_t at = text.find(kName);
  if (at == std::string::npos) return std::nullopt;
  unsigned long long value = 0;
  if (std::sscanf(text.c_str() + at + kName.size(), "%llu", &value) != 1) return std::nullopt;
  return value;
}

// In the child, between fork and exec: only async-signal-safe calls, unless
// `child_main` runs instead of exec (then this process had a single thread at the fork).
[[noreturn]] void exec_child(char* const* argv, char* const* envp, pid_t parent,
                             const ChildFds& fds, const std::function<int()>* child_main) {
  ::setpgid(0, 0);  // own group, so a timeout can stop anything the plugin spawned
  // Nobody else watches the timeout: die with the host. The check after prctl closes
  // the race with a host that died before it.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(127);
  // A background group reading the terminal would be stopped, not killed; plugins get
  // no input but a conversation's requests, and their stdout joins the stderr tail
  // unless the caller captures it.
  place_child_fds(fds);
  ::signal(SIGINT, SIG_DFL);
  ::signal(SIGTERM, SIG_DFL);
  ::signal(SIGHUP, SIG_DFL);
  ::signal(SIGPIPE, SIG_DFL);
  if (child_main != nullptr) {
    // A copy of a single-threaded host: nothing it opened stays open, and it ends
    // without the host's exit handlers.
    ::close_range(kEventFd + 1, ~0U, 0);
    int code = 127;
    try {
      code = (*child_main)();
    } catch (...) {  // NOLINT(bugprone-empty-catch): the exit code says it failed
    }
    std::fflush(nullptr);
    ::_exit(code);
  }
  ::execve(argv[0], argv, envp);
  const char message[] = "storh-host: cannot execute worker\n";
  [[maybe_unused]] auto ignored = ::write(STDERR_FILENO, message, sizeof(message) - 1);
  ::_exit(127);
}

class Watcher {
 public:
  Watcher(const ProcessOptions& options, ProcessOutcome& outcome)
      : options_(options), outcome_(outcome) {}

  void add(int fd, std::string* sink, bool events) { streams_.push_back({fd, sink, events}); }

  // The host's end of a conversation's stdin socket (ProcessOptions::on_stdout_line).
  void converse_through(int fd) { reply_fd_ = fd; }

  // When the last reply was written; the timeout counts from it.
  std::optional<Clock::time_point> replied_at() const { return replied_at_; }

  // Whether the child wrote anything since the last call.
  bool heard_since_asked() { return std::exchange(heard_, false); }

  // Reads whatever is ready; returns false once every stream is at end of file.
  bool pump(int timeout_millis) {
    std::vector<pollfd> fds;
    for (const Stream& stream : streams_) {
      if (stream.fd >= 0) fds.push_back({stream.fd, POLLIN, 0});
    }
    if (fds.empty()) {
      // Every stream is closed but the caller still waits for the child, which is
      // about to be reaped: a short sleep, not a spin.
      ::poll(nullptr, 0, std::min(timeout_millis, kPollMillis));
      return false;
    }
    if (::poll(fds.data(), fds.size(), timeout_millis) <= 0) return true;
    std::size_t index = 0;
    for (Stream& stream : streams_) {
      if (stream.fd < 0) continue;
      if (fds[index++].revents != 0) read_from(stream);
    }
    return true;
  }

  void close_all() {
    for (Stream& stream : streams_) close_fd(stream.fd);
    close_fd(reply_fd_);
  }

 private:
  struct Stream {
    int fd;
    std::string* sink;  // nullptr: stderr tail
    bool events;
  };

  void read_from(Stream& stream) {
    std::array<char, 65536> buffer;
    const ssize_t got = ::read(stream.fd, buffer.data(), buffer.size());
    if (got < 0 && (errno == EINTR || errno == EAGAIN)) return;
    if (got <= 0) {
      close_fd(stream.fd);
      return;
    }
    heard_ = true;
    const std::string_view chunk(buffer.data(), static_cast<std::size_t>(got));
    if (stream.sink == &outcome_.stdout_text && options_.on_stdout_line) {
      pending_stdout_.append(chunk);
      std::size_t newline;
      while ((newline = pending_stdout_.find('\n')) != std::string::npos) {
        const std::string line = pending_stdout_.substr(0, newline);
        pending_stdout_.erase(0, newline + 1);
        std::optional<Reply> answer;
        try {
          answer = options_.on_stdout_line(line);
        } catch (...) {
          // A consumer that cannot answer ends the conversation; the child then ends.
        }
        reply(answer);
      }
    } else if (stream.events) {
      pending_events_.append(chunk);
      std::size_t newline;
      while ((newline = pending_events_.find('\n')) != std::string::npos) {
        if (options_.on_event_line) {
          try {
            options_.on_event_line(std::string_view(pending_events_).substr(0, newline));
          } catch (...) {
            // A line the consumer cannot handle is dropped; the child stays watched.
          }
        }
        pending_events_.erase(0, newline + 1);
      }
    } else if (stream.sink != nullptr) {
      stream.sink->append(chunk);
    } else {
      outcome_.stderr_tail.append(chunk);
      const std::size_t keep = options_.stderr_tail_bytes;
      if (outcome_.stderr_tail.size() > 2 * keep) {
        outcome_.stderr_tail.erase(0, outcome_.stderr_tail.size() - keep);
      }
    }
  }

  // Writes `answer` and a newline to the child's stdin, with its descriptors on the
  // first byte, or closes it. A child that is gone is seen by the caller's wait;
  // MSG_NOSIGNAL keeps SIGPIPE from the host.
  void reply(const std::optional<Reply>& answer) {
    replied_at_ = Clock::now();
    if (reply_fd_ < 0) return;
    if (!answer) {
      close_fd(reply_fd_);
      return;
    }
    const std::string text = answer->line + '\n';
    std::size_t sent = 0;
    while (sent < text.size()) {
      const ssize_t n = send_part(std::string_view(text).substr(sent),
                                  sent == 0 ? answer->fds : std::vector<int>{});
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        close_fd(reply_fd_);
        return;
      }
      sent += static_cast<std::size_t>(n);
    }
  }

  ssize_t send_part(std::string_view text, const std::vector<int>& fds) {
    if (fds.empty()) return ::send(reply_fd_, text.data(), text.size(), MSG_NOSIGNAL);
    iovec part{const_cast<char*>(text.data()), text.size()};
    std::vector<char> control(CMSG_SPACE(sizeof(int) * fds.size()));
    msghdr message{};
    message.msg_iov = &part;
    message.msg_iovlen = 1;
    message.msg_control = control.data();
    message.msg_controllen = control.size();
    cmsghdr* header = CMSG_FIRSTHDR(&message);
    header->cmsg_level = SOL_SOCKET;
    header->cmsg_type = SCM_RIGHTS;
    header->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
    std::memcpy(CMSG_DATA(header), fds.data(), sizeof(int) * fds.size());
    return ::sendmsg(reply_fd_, &message, MSG_NOSIGNAL);
  }

  const ProcessOptions& options_;
  ProcessOutcome& outcome_;
  std::vector<Stream> streams_;
  std::string pending_events_;
  std::string pending_stdout_;
  int reply_fd_ = -1;
  std::optional<Clock::time_point> replied_at_;
  bool heard_ = false;
};

}  // namespace

// What start_process leaves for watch_process: the child and the host's ends of its
// descriptors.
struct StartedProcess {
  ProcessOutcome outcome;
  pid_t pid = -1;
  Clock::time_point start;
  std::optional<std::uint64_t> oom_kills_before;
  int out_read = -1;  // stdout, when captured or conversed with
  int err_read = -1;
  int event_read = -1;
  int reply_end = -1;  // a conversation's socket

  ~StartedProcess() {
    for (int* fd : {&out_read, &err_read, &event_read, &reply_end}) close_fd(*fd);
  }
};

void EndStartedProcess::operator()(StartedProcess* started) const {
  delete started;  // NOLINT(cppcoreguidelines-owning-memory): the unique_ptr's deleter
}

Started start_process(const ProcessOptions& options) {
  Started started(new StartedProcess);  // NOLINT(cppcoreguidelines-owning-memory)
  ProcessOutcome& outcome = started->outcome;
  std::vector<char*> argv;
  for (const std::string& arg : options.argv) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  // The host's environment with options.environment on top, built before the fork.
  std::vector<std::string> environment;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string_view text = *entry;
    const std::string_view name = text.substr(0, text.find('='));
    const bool replaced = std::any_of(
        options.environment.begin(), options.environment.end(), [&](const std::string& set) {
          return set.starts_with(name) && set.size() > name.size() && set[name.size()] == '=';
        });
    if (!replaced) environment.emplace_back(text);
  }
  environment.insert(environment.end(), options.environment.begin(), options.environment.end());
  std::vector<char*> envp;
  envp.reserve(environment.size() + 1);
  for (std::string& entry : environment) envp.push_back(entry.data());
  envp.push_back(nullptr);

  const bool conversation = static_cast<bool>(options.on_stdout_line);
  const bool capture_stdout = options.capture_stdout || conversation;
  Pipe out_pipe, err_pipe, event_pipe;
  // The child's stdin: /dev/null, or one end of a conversation's socket whose other
  // end the host replies through: a socket, so a reply to a child that is gone raises
  // no SIGPIPE in the host.
  int child_stdin = -1;
  int reply_end = -1;
  if (conversation) {
    int ends[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) == 0) {
      reply_end = ends[0];
      child_stdin = ends[1];
    }
  } else {
    child_stdin = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  }
  auto close_everything = [&] {
    for (int* fd :
         {&out_pipe.read_end, &out_pipe.write_end, &err_pipe.read_end, &err_pipe.write_end,
          &event_pipe.read_end, &event_pipe.write_end, &child_stdin, &reply_end}) {
      close_fd(*fd);
    }
  };
  if (child_stdin < 0 || (capture_stdout && !open_pipe(out_pipe)) || !open_pipe(err_pipe) ||
      !open_pipe(event_pipe)) {
    outcome.error = fmt::format("cannot create pipes: {}", std::strerror(errno));
    close_everything();
    return started;
  }

  started->oom_kills_before = oom_kills();
  started->start = Clock::now();
  const pid_t parent = ::getpid();
  // Running child_main in a copy of this process is safe only when no other thread
  // held a lock at the fork; else the child execs argv as usual.
  const bool in_child = options.child_main && thread_count() == 1;
  if (in_child) {
    std::cout.flush();  // written once, not also by the copy
    std::cerr.flush();
    std::fflush(nullptr);
  }
  // Without a stdout of its own, the child's stdout is its stderr.
  const ChildFds fds{child_stdin, capture_stdout ? out_pipe.write_end : err_pipe.write_end,
                     err_pipe.write_end, event_pipe.write_end};
  std::optional<pid_t> spawned;
  if (options.spawn) spawned = options.spawn(fds);
  const pid_t pid = spawned ? *spawned : ::fork();
  if (pid < 0) {
    outcome.error = fmt::format("cannot fork: {}", std::strerror(errno));
    close_everything();
    return started;
  }
  if (pid == 0) {
    exec_child(argv.data(), envp.data(), parent, fds, in_child ? &options.child_main : nullptr);
  }

  // Also from the parent, so the group exists before we signal it (a spawned child's
  // group exists already).
  if (!spawned) ::setpgid(pid, pid);
  outcome.started = true;
  started->pid = pid;
  close_fd(out_pipe.write_end);
  close_fd(err_pipe.write_end);
  close_fd(event_pipe.write_end);
  close_fd(child_stdin);
  started->out_read = std::exchange(out_pipe.read_end, -1);
  started->err_read = std::exchange(err_pipe.read_end, -1);
  started->event_read = std::exchange(event_pipe.read_end, -1);
  started->reply_end = std::exchange(reply_end, -1);
  return started;
}

ProcessOutcome watch_process(const ProcessOptions& options, Started started) {
  ProcessOutcome outcome = std::move(started->outcome);
  if (!outcome.started) return outcome;
  const pid_t pid = started->pid;
  const Clock::time_point start = started->start;
  const std::optional<std::uint64_t> oom_kills_before = started->oom_kills_before;
  const bool conversation = static_cast<bool>(options.on_stdout_line);
  const bool capture_stdout = options.capture_stdout || conversation;
  const int reply_end = std::exchange(started->reply_end, -1);

  // The watcher owns the read ends from here, and closes them.
  Watcher watcher(options, outcome);
  if (capture_stdout) {
    watcher.add(std::exchange(started->out_read, -1), &outcome.stdout_text, false);
  }
  if (conversation) {
    // A reply is written whole; a child that stops reading its stdin fails it after the
    // timeout instead of holding the host.
    const double seconds = options.timeout_seconds.value_or(30);
    timeval limit{};
    limit.tv_sec = static_cast<time_t>(seconds);
    limit.tv_usec = static_cast<suseconds_t>((seconds - static_cast<double>(limit.tv_sec)) * 1e6);
    ::setsockopt(reply_end, SOL_SOCKET, SO_SNDTIMEO, &limit, sizeof limit);
    watcher.converse_through(reply_end);
  }
  watcher.add(std::exchange(started->err_read, -1), nullptr, false);
  watcher.add(std::exchange(started->event_read, -1), nullptr, true);

  std::optional<Clock::time_point> kill_at;
  bool sent_kill = false;  // a SIGKILL of ours cannot be told from the kernel's
  auto stop = [&](bool immediately) {
    sent_kill = sent_kill || immediately || options.stop_signal == SIGKILL;
    ::kill(-pid, immediately ? SIGKILL : options.stop_signal);
    const auto grace = std::chrono::duration_cast<Clock::duration>(
        std::chrono::duration<double>(immediately ? 0.0 : options.kill_grace_seconds));
    if (!kill_at) kill_at = Clock::now() + grace;
  };

  int status = 0;
  rusage usage{};
  bool exited = false;
  int quiet_millis = kPollMillis;  // the next sleep while the child stays quiet
  // The sleep is cut short where the timeout or the SIGKILL after a stop falls due.
  const auto sleep_for = [&](int millis) {
    const Clock::time_point now = Clock::now();
    const auto until = [&](Clock::time_point due) {
      const auto left = std::chrono::ceil<std::chrono::milliseconds>(due - now).count();
      millis = static_cast<int>(std::clamp<long long>(left, 1, millis));
    };
    if (options.timeout_seconds && !outcome.timed_out) {
      until(watcher.replied_at().value_or(start) +
            std::chrono::duration_cast<Clock::duration>(
                std::chrono::duration<double>(*options.timeout_seconds)));
    }
    if (kill_at) until(*kill_at);
    return millis;
  };
  while (!exited) {
    watcher.pump(sleep_for(quiet_millis));
    quiet_millis =
        watcher.heard_since_asked() ? kPollMillis : std::min(2 * quiet_millis, kQuietPollMillis);
    const pid_t waited = ::wait4(pid, &status, WNOHANG, &usage);
    if (waited == pid) {
      exited = true;
      break;
    }
    if (waited < 0 && errno != EINTR) {
      // ECHILD: someone else reaped it (SIGCHLD ignored). It is gone; status unknown.
      outcome.error = fmt::format("cannot wait for the child: {}", std::strerror(errno));
      status = 0;
      break;
    }
    const Clock::time_point now = Clock::now();
    if (options.memory_limit_bytes) {
      const std::uint64_t rss = resident_bytes(pid);
      outcome.peak_rss_bytes = std::max(outcome.peak_rss_bytes, rss);
      if (rss > *options.memory_limit_bytes && !outcome.memory_exceeded) {
        outcome.memory_exceeded = true;
        stop(true);
      }
      if (rss > *options.memory_limit_bytes / 2) quiet_millis = kPollMillis;
    }
    const Clock::time_point counted_from = watcher.replied_at().value_or(start);
    if (options.timeout_seconds && !outcome.timed_out &&
        now - counted_from > std::chrono::duration<double>(*options.timeout_seconds)) {
      outcome.timed_out = true;
      stop(false);
    }
    if (options.cancel != nullptr && options.cancel->load() && !outcome.cancelled) {
      outcome.cancelled = true;
      stop(false);
    }
    if (kill_at) quiet_millis = kPollMillis;
    if (kill_at && now >= *kill_at) {
      sent_kill = true;
      ::kill(-pid, SIGKILL);
    }
  }
  // Whatever the child wrote before it exited is still in the pipes. Anything it left
  // running in its group is stopped so the pipes reach end of file.
  // A descendant that left the group could hold a pipe open forever: drain for at
  // most a second.
  ::kill(-pid, SIGKILL);
  const Clock::time_point drain_until = Clock::now() + std::chrono::seconds(1);
  while (watcher.pump(kPollMillis) && Clock::now() < drain_until) {
  }
  watcher.close_all();
  // What the child left in its group and this process adopted as their subreaper
  // (plugin/session.h) is reaped, so that a later check of its pid finds it gone.
  while (::waitpid(-pid, nullptr, WNOHANG) > 0) {
  }

  outcome.wall_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  outcome.peak_rss_bytes =
      std::max(outcome.peak_rss_bytes, static_cast<std::uint64_t>(usage.ru_maxrss) * 1024);
  if (exited && WIFEXITED(status)) outcome.exit_code = WEXITSTATUS(status);
  if (exited && WIFSIGNALED(status)) outcome.signal = WTERMSIG(status);
  // The poll can miss the last growth: a child that grew past the limit and was killed
  // (by the timeout's SIGKILL, or by itself) before the next poll. The kernel's peak
  // is exact.
  if (options.memory_limit_bytes && outcome.peak_rss_bytes > *options.memory_limit_bytes) {
    outcome.memory_exceeded = true;
  }
  if (outcome.signal == SIGKILL && !sent_kill && oom_kills_before) {
    const std::optional<std::uint64_t> oom_kills_after = oom_kills();
    outcome.oom_killed = oom_kills_after && *oom_kills_after > *oom_kills_before;
  }
  outcome.stderr_tail = tail_lines(outcome.stderr_tail, 20);
  if (outcome.stderr_tail.size() > options.stderr_tail_bytes) {
    outcome.stderr_tail.erase(0, outcome.stderr_tail.size() - options.stderr_tail_bytes);
  }
  return outcome;
}

void place_child_fds(const ChildFds& fds) {
  ::dup2(fds.stdin_fd, STDIN_FILENO);
  ::dup2(fds.stdout_fd, STDOUT_FILENO);
  ::dup2(fds.stderr_fd, STDERR_FILENO);
  ::dup2(fds.event_fd, kEventFd);
}

int thread_count() {
  DIR* tasks = ::opendir("/proc/self/task");
  if (tasks == nullptr) return 0;
  int count = 0;
  while (const dirent* entry = ::readdir(tasks)) {
    if (entry->d_name[0] != '.') ++count;
  }
  ::closedir(tasks);
  return count;
}

ProcessOutcome run_process(const ProcessOptions& options) {
  return watch_process(options, start_process(options));
}

std::string tail_lines(std::string_view text, std::size_t max_lines) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.remove_suffix(1);
  std::size_t position = text.size();
  for (std::size_t lines = 0; position > 0; --position) {
    if (text[position - 1] == '\n' && ++lines == max_lines) break;
  }
  return std::string(text.substr(position));
}

}  // namespace storh::process
