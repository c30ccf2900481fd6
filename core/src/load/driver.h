// load/driver.h: one load phase: N clients (threads, or processes forked from the
// worker) running one transaction type, coordinated so they start together, with
// progress reports while they run. docs/load.md describes what is measured.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "load/config.h"
#include "load/outcome.h"
#include "storh/transactions.h"
#include "util/expected.h"

namespace storh::load {

// One progress interval, as pgbench -P prints it.
struct Progress {
  double elapsed_seconds = 0;  // since the common start
  double tps = 0;              // successful transactions per second in the interval
  double latency_mean = 0;     // seconds, over the interval's successful transactions
  double latency_stddev = 0;
  std::uint64_t failed = 0;  // failed transactions in the interval
};

// "progress: 5.0 s, 1234.5 tps, lat 0.810 ms stddev 0.100" (+ ", 3 failed").
std::string progress_line(const Progress& progress);

using ProgressFn = std::function<void(const Progress&)>;

struct KindSplit;  // load/client_loop.h

// What a host-side phase (YCSB's, worker/ycsb_worker.h) adds to the suite's config.
struct PhaseShape {
  // Timed transactions of all clients together, split as YCSB splits its counts:
  // client i runs total / clients, plus one when i < total % clients. Unset: the
  // config's bound per client.
  std::optional<std::uint64_t> total_transactions;
  // Count and time each transaction under its kind too (LoadOutcome::kinds).
  const KindSplit* kinds = nullptr;
  // The plugin reports each transaction (ClientJob::reported), and the type has this
  // many parts, counted as kinds (ClientJob::parts).
  bool reported = false;
  std::size_t parts = 0;
};

// Runs the phase. Fails (returns an Error) when the clients could not run at all:
// a client's open_client failed, a client process died, or threads, processes or
// shared memory could not be made. Failed transactions are data in the outcome.
// `on_progress` is called from the calling thread every config.progress_seconds.
Expected<LoadOutcome> run_phase(Transactions& transactions, const RunContext& ctx, std::size_t type,
                                const LoadConfig& config, const ProgressFn& on_progress,
                                const PhaseShape& shape = {});

}  // namespace storh::load
