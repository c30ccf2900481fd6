// run/finish.h: turning the runs of a plan into a finished result file, the same way
// for every runner (run/runner.h, ab/ab_runner.h), so that every result file carries
// the same record: the experiment (hostname, git_commit, command line, shard), the
// plugin-build warnings, the metrics with their spread judged, the counting pass, the
// load failures, and secrets masked. Everything the record says of the suite comes
// from the plan (plan::Plan::suite).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "plan/plan.h"
#include "result/result.h"
#include "run/aggregate.h"
#include "run/runner.h"

namespace storh::run {

// What ran, as the runner that ran it knows it.
struct FinishedRuns {
  // The experiment's plan: the whole one, whose suite record and limits it records.
  const plan::Plan* described = nullptr;
  // The cells that ran (a shard's, or the same); the counting pass counts these.
  const plan::Plan* ran = nullptr;
  std::vector<CellRuns> runs;  // per cell of `ran`, the timed repeats
  // Per cell of `ran`, its failed timed repeats ("repeat 2 timeout"): each of its
  // metrics gets a warning. Empty: no such warnings.
  std::vector<std::vector<std::string>> failed_repeats;
  bool adaptive = false;      // the repeats were adaptive: each metric records them
  bool counting_pass = true;  // run the cells' counters (run/counting_pass.h)
  std::filesystem::path work_root;
  std::string removal_error;  // why the work root could not be removed, or empty
};

// Completes `result`, whose environment, runs, failures and interrupted flag the
// runner set: builds the experiment once, adds the plugin-build warnings to the
// environment, aggregates and judges the metrics, runs the counting pass (unless
// interrupted), adds options.load_errors' failures (in the first shard only), and
// masks secrets. Runs worker processes only for the counting pass.
void finish_result(const FinishedRuns& finished, const RunnerOptions& options,
                   result::ResultFile& result);

}  // namespace storh::run
