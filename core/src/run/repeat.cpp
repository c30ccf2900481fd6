#include "run/repeat.h"

#include <utility>

#include "run/work_root.h"

namespace storh::run {

RepeatOutcome run_repeat(const plan::Plan& plan, const WorkerRunSpec& spec,
                         const RunnerOptions& options, ProgressLine* progress,
                         const std::string& where, result::ResultFile& result) {
  RepeatOutcome outcome;
  // A fresh directory per run, never reused (run/runner.h says why).
  if (std::string error = create_run_dir(spec.work_dir); !error.empty()) {
    result.failures.push_back(result::make_failure(spec.cell->failed_run(spec.repeat),
                                                   result::Failure::Kind::exit, std::move(error)));
    return outcome;
  }
  WorkerRunOutcome ran = run_worker(plan, spec, options, progress, where);
  result.runs.push_back(ran.record);
  if (ran.failure) {
    if (ran.failure->kind == result::Failure::Kind::interrupted) result.interrupted = true;
    result.failures.push_back(*ran.failure);
    outcome.failure = std::move(ran.failure);
  }
  outcome.run = std::move(ran.run);
  return outcome;
}

}  // namespace storh::run
