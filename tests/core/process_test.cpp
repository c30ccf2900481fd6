// How a child process ended, and what the runner calls it: memory before the timer.
#include <signal.h>

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
