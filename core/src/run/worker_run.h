// run/worker_run.h: one worker process for one run of a cell, start to finish.
//
// Shared by every way of running cells (the timed runner, the A/B runner, counting
// passes): builds the worker's command line, collects its event lines into a
// CellRun, and turns the way it ended into a result::Run and, when it did not end
// cleanly, a result::Failure.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "plan/plan.h"
#include "result/result.h"
#include "run/aggregate.h"
#include "run/progress_line.h"
#include "run/runner.h"
#include "run/work_root.h"
#include "suite/suite.h"
#include "util/expected.h"

namespace storh::run {

struct WorkerRunSpec {
  const plan::Cell* cell = nullptr;  // must outlive the call
  int repeat = 0;                    // 0-based; negative for a warm-up
  std::filesystem::path work_dir;    // created by the caller, empty
  // Appended to the worker's own arguments, e.g. "--count=syscalls".
  std::vector<std::string> extra_args;
};

struct WorkerRunOutcome {
  CellRun run;                             // what the worker's events said
  result::Run record;                      // for result.runs
  std::optional<result::Failure> failure;  // set when the run did not end cleanly
};

// The cell's chosen parameters as the worker's --params JSON (and __preflight's).
std::string params_argument(const plan::Cell& cell);

// Runs the worker for `spec` under the suite's timeout and memory limit. `where`
// prefixes its progress messages ("[3/12] doc n=1000 repeat 2"); `progress` may be
// null. Never throws for worker failures: they are in the outcome.
WorkerRunOutcome run_worker(const suite::Suite& suite, const WorkerRunSpec& spec,
                            const RunnerOptions& options, ProgressLine* progress,
                            const std::string& where);

}  // namespace storh::run
