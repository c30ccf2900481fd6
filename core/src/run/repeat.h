// run/repeat.h: one timed (or warm-up) run of one cell, as every runner does it: a fresh
// work directory, the worker, and the run's record and failure added to the result.
//
// Shared by the runner (run/runner.h) and the A/B runner (ab/ab_runner.h), so a run
// is recorded the same way in every result file. Not thread-safe: one call at a time
// per result.
#pragma once

#include <optional>
#include <string>

#include "plan/plan.h"
#include "result/result.h"
#include "run/aggregate.h"
#include "run/progress_line.h"
#include "run/runner.h"
#include "run/worker_run.h"

namespace storh::run {

struct RepeatOutcome {
  // What the worker reported; nullopt when its work directory could not be made (then
  // the failure, of kind "exit", is in result.failures and no worker ran).
  std::optional<CellRun> run;
  // The run's failure as added to result.failures, or nullopt when it ran cleanly.
  std::optional<result::Failure> failure;
};

// Creates spec.work_dir (it must not exist), runs the worker for `spec` (a cell of
// `plan`, under its limits) and adds its
// record to result.runs and its failure, if any, to result.failures; an interrupted
// run sets result.interrupted. `where` prefixes its progress messages; `progress` may
// be null. Never throws for worker failures.
RepeatOutcome run_repeat(const plan::Plan& plan, const WorkerRunSpec& spec,
                         const RunnerOptions& options, ProgressLine* progress,
                         const std::string& where, result::ResultFile& result);

}  // namespace storh::run
