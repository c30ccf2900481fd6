// run/worker_run.h: one worker process for one run of a cell, start to finish.
//
// Shared by every way of running cells (the timed runner, the A/B runner, counting
// passes): asks the worker for the cell (worker/request.h), collects its event lines
// into a CellRun, and turns the way it ended into a result::Run and, when it did not
// end cleanly, a result::Failure.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include "count/counters.h"
#include "plan/plan.h"
#include "process/child_process.h"
#include "result/result.h"
#include "run/aggregate.h"
#include "run/progress_line.h"
#include "run/runner.h"
#include "run/work_root.h"
#include "util/expected.h"
#include "worker/event.h"

namespace storh::run {

struct WorkerRunSpec {
  WorkerRunSpec(const plan::Cell& run_cell, int run_repeat, std::filesystem::path run_work_dir)
      : cell(&run_cell), repeat(run_repeat), work_dir(std::move(run_work_dir)) {}

  const plan::Cell* cell;          // must outlive the call
  int repeat;                      // 0-based; negative for a warm-up
  std::filesystem::path work_dir;  // created by the caller, empty
  // Asked of the worker beyond its cell: the A/B head side's injected slowdown, the
  // counting pass's instrument.
  std::optional<double> inject_slowdown;
  std::optional<count::Instrument> count;
  // Given every event the worker sends, before the CellRun takes it (the counting
  // pass's counters). May be empty.
  std::function<void(const worker::Event&)> on_event;
  // Changes the process after it is set up from the suite (timeout, memory limit):
  // the counting pass's interposer or valgrind and their limits. May be empty.
  std::function<void(process::ProcessOptions&)> adjust_process;
};

struct WorkerRunOutcome {
  CellRun run;                             // what the worker's events said
  result::Run record;                      // for result.runs
  std::optional<result::Failure> failure;  // set when the run did not end cleanly
  process::ProcessOutcome process;         // how the process ended
};

struct WhyFailed {
  result::Failure::Kind kind;
  std::string message;
};

// Why a worker that did not run cleanly failed, from how its process ended and what it
// said. Out of memory is told before a timeout: a worker that grew past its limit as
// its timeout expired ran out of memory. `cancelled`: the user stopped the run.
WhyFailed why_failed(const process::ProcessOutcome& outcome, const CellRun& run, bool cancelled);

// The cell's chosen parameters as the worker's --params JSON (and a preflight request's).
std::string params_argument(const plan::Cell& cell);

// Runs the worker for `spec` under the plan's timeout, memory limit and min_time.
// `where` prefixes its progress messages ("[3/12] doc n=1000 repeat 2"); `progress`
// may be null. Never throws for worker failures: they are in the outcome.
WorkerRunOutcome run_worker(const plan::Plan& plan, const WorkerRunSpec& spec,
                            const RunnerOptions& options, ProgressLine* progress,
                            const std::string& where);

}  // namespace storh::run
