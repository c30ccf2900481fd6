// process/child_process.h: running a child process under watch.
//
// The host runs every plugin call that could crash or hang (describing a plugin,
// each repeat of each cell) in a child process, so a misbehaving plugin fails its
// own cell and never the run. This file forks them, except a worker that a plugin's
// session child forks for the host (worker/fork_worker.h), which is then watched here.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <csignal>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace storh::process {

// The descriptor a child writes its event lines to (worker/event.h). Defined here
// once, for both sides: the host's end of the pipe is put there before exec, and the
// worker writes to it.
inline constexpr int kEventFd = 3;

// A line written to a conversation's child (ProcessOptions::on_stdout_line), and the
// descriptors sent with it (SCM_RIGHTS): the child receives copies of them.
struct Reply {
  Reply(std::string text) : line(std::move(text)) {}  // NOLINT: a line alone converts
  Reply(std::string text, std::vector<int> sent) : line(std::move(text)), fds(std::move(sent)) {}
  std::string line;
  std::vector<int> fds;
};

// The descriptors a child starts with as stdin, stdout, stderr and kEventFd. stdout is
// stderr's descriptor when its output joins stderr.
struct ChildFds {
  int stdin_fd = -1;
  int stdout_fd = -1;
  int stderr_fd = -1;
  int event_fd = -1;
};

// In a new child, before it runs anything else: puts `fds` on descriptors 0, 1, 2 and
// kEventFd (dup2, which clears FD_CLOEXEC on each copy). Async-signal-safe.
void place_child_fds(const ChildFds& fds);

struct ProcessOptions {
  // argv[0] is the executable path; no shell is involved.
  std::vector<std::string> argv;
  // "NAME=value" entries set in the child on top of the host's environment
  // (the counting pass's LD_PRELOAD).
  std::vector<std::string> environment;
  // Wall-clock limit; on expiry the child's process group gets SIGTERM, then
  // SIGKILL kill_grace_seconds later.
  std::optional<double> timeout_seconds;
  // Resident-set limit, checked every 5 to 50 milliseconds (every 5 once the resident
  // set is over half the limit); on excess the process group gets SIGKILL. Checked by
  // polling, so a very fast allocation can overshoot briefly before it is stopped.
  std::optional<std::uint64_t> memory_limit_bytes;
  // The child writes event lines to kEventFd; each complete line is passed
  // here, in order, on the calling thread.
  std::function<void(std::string_view line)> on_event_line;
  bool capture_stdout = false;
  // A conversation with the child: its stdin is a socket, each complete line it
  // prints on stdout is passed here (and not kept in stdout_text), and what this
  // returns is written to its stdin with a newline; nullopt closes its stdin, which
  // ends a child that reads requests until end of file. Called on the calling thread,
  // which may wait in it for the next request; the timeout counts from the last reply.
  std::function<std::optional<Reply>(std::string_view line)> on_stdout_line;
  // Starts the child some other way than fork and exec here: given the descriptors it
  // must start with, returns its pid, a child of this process already in its own
  // process group (a worker forked by a plugin's session child and handed over,
  // plugin/session.h), which is then watched as one this process started. nullopt:
  // fork and exec argv as usual. argv and environment are the caller's to pass on.
  std::function<std::optional<pid_t>(const ChildFds& fds)> spawn;
  // Runs in the child instead of exec'ing argv, with the descriptors in place and
  // nothing else of this process open; its return is the child's exit code. Used only
  // when this process has one thread at the fork (no other thread can hold a lock the
  // copy would need): otherwise argv is exec'd, which must do the same. Saves the
  // start of a new executable: `storh-host` starts on about 2 ms of CPU.
  std::function<int()> child_main;
  // How much of the end of stderr to keep.
  std::size_t stderr_tail_bytes = 4096;
  // When set and it becomes true, the child is stopped as on a timeout.
  const std::atomic<bool>* cancel = nullptr;
  // Time between SIGTERM and SIGKILL on a timeout or cancel.
  double kill_grace_seconds = 0.1;
  // The signal a timeout or cancel sends first: SIGTERM, or another that the child
  // handles the same way (a test sends SIGHUP, as a closed terminal does).
  int stop_signal = SIGTERM;
};

struct ProcessOutcome {
  bool started = false;  // false: fork or pipe failed; see error
  std::string error;
  std::optional<int> exit_code;  // set when the child exited normally
  std::optional<int> signal;     // set when a signal ended it
  bool timed_out = false;
  // The resident set went over memory_limit_bytes: seen by the poll, or by the
  // kernel's own peak (ru_maxrss) when the child grew and died between two polls.
  bool memory_exceeded = false;
  // A SIGKILL the host did not send ended the child while the kernel's out-of-memory
  // killer killed something (/proc/vmstat oom_kill rose during the run).
  bool oom_killed = false;
  bool cancelled = false;
  std::string stdout_text;  // when capture_stdout
  std::string stderr_tail;
  std::uint64_t peak_rss_bytes = 0;
  double wall_seconds = 0;

  bool succeeded() const { return exit_code && *exit_code == 0; }
  // Whether memory ended the child. A child that ran out of memory after its timeout
  // expired (slow to grow on a busy machine, or growing during the grace period) ran
  // out of memory: read this before timed_out.
  bool out_of_memory() const { return memory_exceeded || oom_killed; }
};

// Runs the child to completion. Never throws for child failures; they are data.
ProcessOutcome run_process(const ProcessOptions& options);

// run_process in two halves, for a caller that must fork on one thread (while it has
// no other, for ProcessOptions::child_main) and watch on another. `options` must be
// the same object for both and outlive them.
struct StartedProcess;
struct EndStartedProcess {  // closes what a started child left unwatched
  void operator()(StartedProcess* started) const;
};
using Started = std::unique_ptr<StartedProcess, EndStartedProcess>;
Started start_process(const ProcessOptions& options);
ProcessOutcome watch_process(const ProcessOptions& options, Started started);

// The threads of this process (/proc/self/task); 0 when unreadable. A process forks
// a copy that goes on without exec only when this is 1.
int thread_count();

// The last `max_lines` lines of `text`.
std::string tail_lines(std::string_view text, std::size_t max_lines);

}  // namespace storh::process
