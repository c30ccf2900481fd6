// run/runner.h: executing a plan, one fresh worker process per repeat of each cell.
//
// Containment: a worker that crashes, hangs past the timeout, exceeds the memory
// limit, fails an operation or cannot load its plugin becomes a Failure; the other
// cells still run and the result is complete for them.
//
// Work directories: each run gets a fresh directory under one work root. They are
// all removed after the last run, not between runs: on ext4, files deleted just
// before a run slow down the next run's creates (docs/architecture.md, measurement hazards).
#pragma once

#include <atomic>
#include <filesystem>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "env/provenance.h"

#include "plan/plan.h"
#include "plan/shard.h"
#include "process/child_process.h"
#include "result/result.h"
#include "util/expected.h"

namespace storh::run {

struct RunnerOptions {
  std::filesystem::path host_executable;      // re-executed as `__worker`
  std::ostream* progress = nullptr;           // a terminal to draw a progress line on, or null
  const std::atomic<bool>* cancel = nullptr;  // Ctrl-C: stop, clean up, mark interrupted
  // Skip a cell's remaining runs after a failure repeats would only repeat
  // (run/fail_fast.h); false: --no-fail-fast.
  bool fail_fast = true;
  std::ostream* log = nullptr;  // stderr: notes that stay, such as a fail-fast skip
  // The 1-minute load average, read before the first run and after the last: above
  // the CPU count it adds a busy-machine warning (env/provenance.h) to the result's
  // environment.warnings. Tests inject a fixed value.
  std::function<std::optional<double>()> load_average = env::read_load_average;
  // Where such warnings are also printed as they arise ("warning: ...\n"), or null.
  std::ostream* warnings = nullptr;
  // Run only this shard's cells (plan/shard.h); the experiment still describes the
  // whole plan, and records the shard.
  std::optional<plan::ShardSpec> shard;
  // The result's experiment.command_line: "storh-host", the command, its arguments.
  std::vector<std::string> command_line;
  // Engines of the suite whose plugin could not be loaded or described, with why: each
  // fails every dataset of the suite (kind "load"), in the first shard's result only.
  std::vector<std::pair<std::string, std::string>> load_errors;
  // Starts a cell's worker by forking it from the engine's session child
  // (plugin/session.h) instead of with exec: given the engine, its plugin file, the
  // worker's argv and descriptors, the worker's pid (process::ProcessOptions::spawn),
  // or nullopt to exec it. May be empty. Not used for counting passes, whose workers
  // run under an interposer or valgrind.
  std::function<std::optional<pid_t>(const std::string& engine, const std::filesystem::path& plugin,
                                     const std::vector<std::string>& argv,
                                     const process::ChildFds& fds)>
      spawn;
};

// Adds the busy-machine warning to `env` when the load average is above the CPU
// count, and prints it at once (options.warnings) so a user can stop a run that
// measures a busy machine. run_plan and the A/B runner call it before the first run
// and after the last.
void check_load(const RunnerOptions& options, std::string_view when, result::Environment& env);

// Runs every cell of `plan` (or options.shard's part of it) and returns the finished
// result file: the environment, the experiment (the plan's suite record, hostname,
// git_commit and options.command_line included), every metric, the counting pass, and
// the failures, options.load_errors' among them. The work root goes under
// plan.work_dir. Fails only when the work directory cannot be created; everything a
// cell does is a Failure.
Expected<result::ResultFile> run_plan(const plan::Plan& plan, const RunnerOptions& options);

}  // namespace storh::run
