#include "run/runner.h"

#include <chrono>
#include <cstring>
#include <functional>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "env/environment.h"
#include "env/provenance.h"
#include "plugin/describe.h"
#include "result/plugin_build.h"
#include "run/aggregate.h"
#include "run/counting_pass.h"
#include "run/fail_fast.h"
#include "run/progress_line.h"
#include "run/worker_run.h"
#include "stats/spread.h"
#include "util/expected.h"

namespace storh::run {
namespace {

// A figure a failed repeat helped make, or that the failed repeats left to the others,
// is marked: the reports put "!" beside it, and nobody reads it as a clean result.
void warn_of_failed_repeats(const plan::Plan& plan,
                            const std::vector<std::vector<std::string>>& failed_repeats,
                            std::vector<result::Metric>& metrics) {
  for (std::size_t c = 0; c < plan.cells.size(); ++c) {
    if (failed_repeats[c].empty()) continue;
    const std::string warning =
        fmt::format("{} of this cell failed: its figures are not those of clean runs",
                    fmt::join(failed_repeats[c], ", "));
    for (const std::string& operation : plan.cells[c].operation_names()) {
      const std::string key = plan::metric_key(plan.cells[c], operation);
      for (result::Metric& metric : metrics) {
        if (metric.key == key) metric.warnings.push_back(warning);
      }
    }
  }
}

using nlohmann::json;

// (cell, repeat) in execution order; warm-up runs have negative repeats. Interleaved:
// every cell's warm-ups, then repeat 0 of every cell, then repeat 1, ...
std::vector<std::pair<std::size_t, int>> schedule(const plan::Plan& plan) {
  std::vector<std::pair<std::size_t, int>> runs;
  const int first = -static_cast<int>(plan.warmup);
  const int last = static_cast<int>(plan.repeat);
  if (plan.order == suite::RunOrder::interleave) {
    for (int repeat = first; repeat < last; ++repeat) {
      for (std::size_t c = 0; c < plan.cells.size(); ++c) runs.emplace_back(c, repeat);
    }
  } else {
    for (std::size_t c = 0; c < plan.cells.size(); ++c) {
      for (int repeat = first; repeat < last; ++repeat) runs.emplace_back(c, repeat);
    }
  }
  return runs;
}

// The plan's runs per cell and units (progress_line.h), for the progress line's eta.
EtaEstimate estimate_for(const plan::Plan& plan) {
  std::uint64_t smallest = 0;
  for (const plan::Cell& cell : plan.cells) {
    if (smallest == 0 || cell.dataset < smallest) smallest = cell.dataset;
  }
  std::vector<double> units;
  for (const plan::Cell& cell : plan.cells) {
    units.push_back(cell_units(cell.operations.size(), cell.dataset, smallest));
  }
  return EtaEstimate(std::move(units),
                     std::vector<std::size_t>(plan.cells.size(), plan.repeat + plan.warmup));
}

// An engine whose plugin did not load fails every dataset of the suite, and is listed
// among the experiment's engines without a version or plugin.
void add_load_failures(const suite::Suite& suite, const RunnerOptions& options,
                       result::ResultFile& result) {
  for (const auto& [engine, message] : options.load_errors) {
    for (const auto& dataset : suite.datasets) {
      result.failures.push_back(result::make_failure({.engine = engine, .dataset = dataset.value},
                                                     result::Failure::Kind::load, message));
    }
    result.experiment.engines.push_back({engine, "", "", {}});
  }
}

}  // namespace

void check_load(const RunnerOptions& options, std::string_view when, result::Environment& env) {
  const std::optional<double> load = options.load_average ? options.load_average() : std::nullopt;
  if (!load) return;
  std::optional<std::string> warning = env::busy_warning(when, *load, env.cpu_count);
  if (!warning) return;
  if (options.warnings != nullptr) *options.warnings << "warning: " << *warning << '\n';
  env.warnings.push_back(std::move(*warning));
}

Expected<result::ResultFile> run_plan(const suite::Suite& suite, const plan::Plan& full_plan,
                                      const RunnerOptions& options) {
  // Everything below runs `plan`: the whole plan, or the shard's part of it.
  const plan::Plan plan = options.shard ? plan::shard_of(full_plan, *options.shard) : full_plan;
  Expected<WorkRoot> made_root = WorkRoot::create(suite, "", options.warnings);
  if (!made_root) return Error{made_root.error()};
  const std::filesystem::path work_root = made_root->path();

  std::vector<CellRuns> all_runs(plan.cells.size());
  std::vector<std::vector<std::string>> failed_repeats(plan.cells.size());
  result::ResultFile result;
  result.environment = env::capture_environment(work_root);
  check_load(options, "at the start of the run", result.environment);
  ProgressLine progress(options.progress);
  const std::size_t total =
      plan.cells.size() * (static_cast<std::size_t>(plan.repeat) + plan.warmup);
  std::size_t started = 0;
  EtaEstimate eta = estimate_for(plan);

  const int first = -static_cast<int>(plan.warmup);
  FailFast fail_fast(plan, options.fail_fast);
  for (const auto& [c, repeat] : schedule(plan)) {
    const plan::Cell& cell = plan.cells[c];
    if (std::optional<result::Failure> skipped = fail_fast.skip(c, repeat)) {
      result.failures.push_back(std::move(*skipped));
      eta.dropped(c);
      continue;
    }
    {
      if (options.cancel != nullptr && options.cancel->load()) {
        result.interrupted = true;
        break;
      }
      ++started;
      const std::string where = fmt::format(
          "[{}/{}] {} {} {}", started, total, plan::progress_name(cell),
          repeat < 0 ? "warm-up" : "repeat", repeat < 0 ? repeat - first + 1 : repeat + 1);
      progress.set_suffix(eta_text(eta.seconds_left()));
      progress.show(where);
      // A fresh directory per run, never reused (see the header on deletions).
      const std::filesystem::path work_dir =
          work_root / (repeat < 0
                           ? fmt::format("c{:03}-{}-warmup{}", c, cell.engine, repeat - first)
                           : fmt::format("c{:03}-{}-r{}", c, cell.engine, repeat));
      if (std::string error = create_run_dir(work_dir); !error.empty()) {
        result.failures.push_back(result::make_failure(
            cell.failed_run(repeat), result::Failure::Kind::exit, std::move(error)));
        eta.dropped(c);
        continue;
      }

      const auto run_start = std::chrono::steady_clock::now();
      WorkerRunOutcome ran = run_worker(suite, {cell, repeat, work_dir}, options, &progress, where);
      eta.finished(
          c, std::chrono::duration<double>(std::chrono::steady_clock::now() - run_start).count());
      result.runs.push_back(ran.record);
      if (ran.failure) {
        if (ran.failure->kind == result::Failure::Kind::interrupted) result.interrupted = true;
        if (std::string note = fail_fast.record(c, *ran.failure); !note.empty() && options.log) {
          progress.clear();
          *options.log << note << '\n';
        }
        if (repeat >= 0) {
          failed_repeats[c].push_back(fmt::format("repeat {} {}", repeat + 1,
                                                  result::failure_kind_name(ran.failure->kind)));
        }
        result.failures.push_back(std::move(*ran.failure));
      }
      if (repeat >= 0) all_runs[c].push_back(std::move(ran.run));
    }
    if (result.interrupted) break;
  }
  progress.clear();
  check_load(options, "at the end of the run", result.environment);

  const std::string removal_error = made_root->remove();
  result.experiment = describe_experiment(suite, full_plan, work_root);
  if (options.shard) {
    result.experiment.shard = result::ShardRecord{options.shard->index, options.shard->count,
                                                  plan.cells.size(), full_plan.cells.size()};
  }
  for (std::string& warning : result::plugin_build_warnings(result.experiment.engines)) {
    result.environment.warnings.push_back(std::move(warning));
  }
  result.experiment.hostname = env::host_name();
  if (!suite.file.empty()) {
    result.experiment.git_commit =
        env::git_commit_of(suite.file.has_parent_path() ? suite.file.parent_path() : ".");
  }
  result.experiment.work_dir_cleanup =
      !removal_error.empty()
          ? fmt::format("removal after the suite failed: {}", removal_error)
          : "each run had a fresh directory; all were removed after the last run";
  result.metrics = aggregate_metrics(plan, all_runs);
  warn_of_failed_repeats(plan, failed_repeats, result.metrics);
  stats::judge_run_spread(result);
  run_counting_pass(suite, plan, options, result);
  // Recorded by one shard only, so that merging the shards does not repeat them.
  if (!options.shard || options.shard->index == 1) add_load_failures(suite, options, result);
  result.experiment.command_line = options.command_line;
  result::mask_secrets(result);
  return result;
}

}  // namespace storh::run
