// run/counting_pass.h: deterministic counters per operation (docs/counters.md).
//
// After every timed repeat, each cell runs once more per instrument of its
// plan::Cell::counters, in a fresh worker with `--count=<instrument>`:
//   - syscalls: LD_PRELOAD=libstorh_count.so (count::find_interposer);
//   - instructions: under valgrind's callgrind (count/callgrind.h), without the
//     memory limit and with 50 times the timeout (valgrind is that much slower).
// Counting runs never add samples, so they cannot distort the timed numbers. Their
// per-item counters go to the metrics of the same cell; a counting run that fails
// becomes a Failure of kind "counters" (repeat 0) and the other results stay.
// Load cells are not counted (check_counting refuses counters in a load suite).
#pragma once

#include <filesystem>
#include <vector>

#include "plan/plan.h"
#include "result/result.h"
#include "run/runner.h"
#include "suite/parse.h"
#include "suite/suite.h"

namespace storh::run {

// Checks that the suite's instruments can run with this host: the interposer exists,
// valgrind is on PATH and the host was built with callgrind.h, and the suite is not a
// load suite. Each error is at the `counters` value's position. True when fine.
bool check_counting(const suite::Suite& suite, const std::filesystem::path& host_executable,
                    std::vector<suite::SuiteError>& errors);

// Runs the counting pass of `plan`'s cells (nothing when no cell has an instrument or
// the run was interrupted), in a work root under plan.work_dir, and adds its counters
// to result.metrics and its instruments to result.experiment.counters. A work root that
// cannot be made is a counters Failure of every cell.
void run_counting_pass(const plan::Plan& plan, const RunnerOptions& options,
                       result::ResultFile& result);

}  // namespace storh::run
