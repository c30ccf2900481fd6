// queue_workers.h: draining one queue with N forked worker processes, for the plugin's
// claim_concurrent operation (a multi-process load the PHP harness lacks).
//
// Each worker is a real process with its own LogQueue instance on the same directory:
// it claims and completes jobs one call at a time until claim() finds nothing pending,
// and reports the ids it claimed in <report_dir>/worker-<k>.ids. The parent checks that
// every job was claimed exactly once.
//
// Use: construct (forks the workers; each opens its queue, says it is ready and waits),
// then start() releases them all at once and wait() reaps them, so a timer around
// start() + wait() measures draining only. The destructor kills and reaps workers that
// are still running. Not thread-safe; the parent must not hold the queue lock while the
// workers run (no LogQueue call may be in progress).
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "common/durable_io.h"

namespace storh::engines {

class QueueWorkers {
 public:
  // Forks `workers` processes on queue <root>/<name> and waits until each has opened it.
  // Throws StoreError if a fork or pipe fails or a worker dies before it is ready.
  QueueWorkers(std::filesystem::path root, std::string name, Sync sync, std::size_t workers,
               std::filesystem::path report_dir);
  ~QueueWorkers();
  QueueWorkers(const QueueWorkers&) = delete;
  QueueWorkers& operator=(const QueueWorkers&) = delete;

  // Lets every worker start claiming.
  void start();
  // Reaps every worker. Returns an empty string when all exited cleanly, else what went
  // wrong ("worker 2 exited with status 1: <its message>").
  std::string wait();

  // The ids each worker claimed, after wait(): one vector per worker (empty for a
  // worker that failed).
  std::vector<std::vector<std::string>> claimed_ids() const;

 private:
  void kill_all() noexcept;

  std::filesystem::path report_dir_;
  std::size_t workers_;
  std::vector<pid_t> pids_;
  UniqueFd go_write_;
};

}  // namespace storh::engines
