// How a child process ended, and what the runner calls it: memory before the timer.
#include <signal.h>

#include <chrono>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "process/child_process.h"
#include "run/worker_run.h"

namespace {

// Runs `options` with SIGTERM blocked in the child from its first instruction (the
// mask is inherited across fork and exec), and restored here.
storh::process::ProcessOutcome run_with_term_blocked(
    const storh::process::ProcessOptions& options) {
  sigset_t term;
  sigset_t previous;
  sigemptyset(&term);
  sigaddset(&term, SIGTERM);
  ::sigprocmask(SIG_BLOCK, &term, &previous);
  storh::process::ProcessOutcome outcome = storh::process::run_process(options);
  ::sigprocmask(SIG_SETMASK, &previous, nullptr);
  return outcome;
}

}  // namespace

TEST_CASE("process: a child that grows past its limit after its timeout ran out of memory",
          "[process]") {
  // The race a busy machine once lost: the timeout expires, and the child grows past
  // its memory limit before it is gone. The grace period is long, so the poll sees the
  // growth every time.
  storh::process::ProcessOptions options;
  options.argv = {STORH_TEST_MEMORY_HOG_PROGRAM};
  options.timeout_seconds = 0.05;
  options.kill_grace_seconds = 120;
  options.memory_limit_bytes = std::uint64_t{64} << 20;
  const storh::process::ProcessOutcome outcome = run_with_term_blocked(options);
  REQUIRE(outcome.started);
  CHECK(outcome.timed_out);
  CHECK(outcome.memory_exceeded);
  CHECK(outcome.out_of_memory());
  CHECK(outcome.peak_rss_bytes > *options.memory_limit_bytes);
  CHECK(outcome.signal == SIGKILL);

  const storh::run::WhyFailed why = storh::run::why_failed(outcome, {}, false);
  CHECK(why.kind == storh::result::Failure::Kind::memory);
  CHECK(why.message.find("exceeded the memory limit") != std::string::npos);
  CHECK(why.message.find("as its timeout expired too") != std::string::npos);
}

TEST_CASE("process: a child stopped by its timeout within its memory is a timeout", "[process]") {
  storh::process::ProcessOptions options;
  options.argv = {STORH_TEST_MEMORY_HOG_PROGRAM};
  options.timeout_seconds = 0.05;
  options.kill_grace_seconds = 0;  // SIGKILL at once: it never gets to grow
  options.stop_signal = SIGKILL;
  options.memory_limit_bytes = std::uint64_t{1} << 30;
  const storh::process::ProcessOutcome outcome = run_with_term_blocked(options);
  REQUIRE(outcome.started);
  CHECK(outcome.timed_out);
  CHECK_FALSE(outcome.out_of_memory());
  CHECK(storh::run::why_failed(outcome, {}, false).kind == storh::result::Failure::Kind::timeout);
}

TEST_CASE(
    "process: a SIGKILL the host did not send is out of memory only when the kernel "
    "killed for memory",
    "[process]") {
  storh::process::ProcessOutcome outcome;
  outcome.started = true;
  outcome.signal = SIGKILL;
  outcome.timed_out = true;
  CHECK(storh::run::why_failed(outcome, {}, false).kind == storh::result::Failure::Kind::timeout);
  outcome.oom_killed = true;
  const storh::run::WhyFailed why = storh::run::why_failed(outcome, {}, false);
  CHECK(why.kind == storh::result::Failure::Kind::memory);
  CHECK(why.message.find("out-of-memory killer") != std::string::npos);
}

TEST_CASE("process: a conversation answers each stdout line on the child's stdin",
          "[process][conversation]") {
  storh::process::ProcessOptions options;
  options.argv = {"/bin/sh", "-c", "echo ready; while read x; do echo \"got $x\"; done; exit 4"};
  options.timeout_seconds = 60;
  std::vector<std::string> seen;
  options.on_stdout_line = [&](std::string_view line) -> std::optional<std::string> {
    seen.emplace_back(line);
    if (seen.size() == 1) return "a";
    if (seen.size() == 2) return "b";
    return std::nullopt;  // closes its stdin: the loop ends
  };
  const auto outcome = storh::process::run_process(options);
  CHECK(seen == std::vector<std::string>{"ready", "got a", "got b"});
  CHECK(outcome.exit_code == 4);
  CHECK(outcome.stdout_text.empty());  // the lines went to the conversation
}

TEST_CASE("process: a reply to a child that is gone does not end the host",
          "[process][conversation]") {
  storh::process::ProcessOptions options;
  options.argv = {"/bin/sh", "-c", "echo ready; exec 0<&-; exit 3"};
  options.timeout_seconds = 60;
  options.on_stdout_line = [](std::string_view) -> std::optional<std::string> {
    // Whether or not the child has exited yet, the reply must not raise SIGPIPE here.
    return std::string(100000, 'x');
  };
  const auto outcome = storh::process::run_process(options);
  CHECK(outcome.exit_code == 3);
}

TEST_CASE("process: a conversation's timeout counts from the last reply",
          "[process][conversation]") {
  storh::process::ProcessOptions options;
  options.argv = {"/bin/sh", "-c", "echo ready; read x; echo \"got $x\"; read y; exit 0"};
  options.timeout_seconds = 1;
  int lines = 0;
  options.on_stdout_line = [&](std::string_view) -> std::optional<std::string> {
    if (++lines == 1) {
      // The host thinking longer than the timeout is not the child's fault.
      std::this_thread::sleep_for(std::chrono::milliseconds(1500));
      return "go";
    }
    return std::nullopt;
  };
  const auto outcome = storh::process::run_process(options);
  CHECK(lines == 2);
  CHECK_FALSE(outcome.timed_out);
  CHECK(outcome.exit_code == 0);

  // A child that does not answer within the timeout after a reply is stopped.
  options.argv = {"/bin/sh", "-c", "echo ready; read x; sleep 30"};
  lines = 0;
  options.on_stdout_line = [&](std::string_view) -> std::optional<std::string> {
    ++lines;
    return "go";
  };
  const auto silent = storh::process::run_process(options);
  CHECK(lines == 1);
  CHECK(silent.timed_out);
}
