// forked_workers.h: a step that N real processes run at once, for operations that
// measure an engine under multi-process load (the queue's claim_concurrent).
//
// Use: construct (forks the workers; each runs `prepare`, says it is ready and waits),
// then start() releases them all at once and wait() reaps them, so a timer around
// start() + wait() measures the workers' bodies only. Each worker's body returns a
// report (text) that the parent reads with reports() after wait(); a body that throws
// fails its worker, and wait() says so with the exception's message. The destructor
// kills and reaps workers that are still running. Not thread-safe.
//
// A worker is a fork of the parent: it must build its own engine instance in `prepare`
// (never use the parent's open files or locks), and it ends with _exit, running no
// destructors of the parent's image.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "common/durable_io.h"

namespace storh::engines::bench {

class ForkedWorkers {
 public:
  // The work of one worker, run after start(); returns its report.
  using Body = std::function<std::string()>;
  // Run in worker `k` (0-based) before it says it is ready: opens what the body needs.
  using Prepare = std::function<Body(std::size_t k)>;

  // Forks `workers` processes and waits until each has run `prepare`. Reports and
  // errors go to files in `report_dir`, which must exist. Throws StoreError if a fork
  // or pipe fails or a worker fails before it is ready (with the worker's message).
  ForkedWorkers(std::size_t workers, std::filesystem::path report_dir, const Prepare& prepare);
  ~ForkedWorkers();
  ForkedWorkers(const ForkedWorkers&) = delete;
  ForkedWorkers& operator=(const ForkedWorkers&) = delete;

  // Lets every worker run its body.
  void start();
  // Reaps every worker. Returns an empty string when all exited cleanly, else what went
  // wrong ("worker 2 exited with status 1: <its message>; ").
  std::string wait();

  // Each worker's report, after wait(): one per worker, empty for one that failed.
  std::vector<std::string> reports() const;

 private:
  void kill_all() noexcept;

  std::filesystem::path report_dir_;
  std::size_t workers_;
  std::vector<pid_t> pids_;
  UniqueFd go_write_;
};

}  // namespace storh::engines::bench
