#include "run/finish.h"

#include <fmt/format.h>

#include "env/provenance.h"
#include "result/plugin_build.h"
#include "run/adaptive.h"
#include "run/counting_pass.h"
#include "stats/spread.h"

namespace storh::run {
namespace {

// A figure a failed repeat helped make, or that the failed repeats left to the others,
// is marked: the reports put "!" beside it, and nobody reads it as a clean result.
void warn_of_failed_repeats(const plan::Plan& plan,
                            const std::vector<std::vector<std::string>>& failed_repeats,
                            std::vector<result::Metric>& metrics) {
  for (std::size_t c = 0; c < plan.cells.size() && c < failed_repeats.size(); ++c) {
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

// Engines whose plugin did not load are recorded by one shard only, so that merging
// the shards does not repeat them.
bool records_load_errors(const RunnerOptions& options) {
  return !options.shard || options.shard->index == 1;
}

// An engine whose plugin did not load fails every dataset of the suite.
void add_load_failures(const plan::Plan& plan, const RunnerOptions& options,
                       result::ResultFile& result) {
  for (const auto& [engine, message] : options.load_errors) {
    for (const std::uint64_t dataset : plan.suite.datasets) {
      result.failures.push_back(result::make_failure({.engine = engine, .dataset = dataset},
                                                     result::Failure::Kind::load, message));
    }
  }
}

// The experiment block with where, from what and how the run was made.
result::Experiment experiment_of(const FinishedRuns& finished, const RunnerOptions& options) {
  result::Experiment e = describe_experiment(*finished.described, finished.work_root);
  if (options.shard) {
    e.shard = result::ShardRecord{options.shard->index, options.shard->count,
                                  finished.ran->cells.size(), finished.described->cells.size()};
  }
  e.hostname = env::host_name();
  if (const std::filesystem::path& file = finished.described->suite.file; !file.empty()) {
    e.git_commit = env::git_commit_of(file.has_parent_path() ? file.parent_path() : ".");
  }
  e.work_dir_cleanup =
      !finished.removal_error.empty()
          ? fmt::format("removal after the suite failed: {}", finished.removal_error)
          : "each run had a fresh directory; all were removed after the last run";
  e.command_line = options.command_line;
  // An engine that did not load is listed without a version or plugin.
  if (records_load_errors(options)) {
    for (const auto& load_error : options.load_errors)
      e.engines.push_back({load_error.first, "", "", {}});
  }
  return e;
}

}  // namespace

void finish_result(const FinishedRuns& finished, const RunnerOptions& options,
                   result::ResultFile& result) {
  const plan::Plan& plan = *finished.ran;
  result.experiment = experiment_of(finished, options);
  // The plugin-build warnings of the engines that ran (a failed load has no build).
  for (std::string& warning : result::plugin_build_warnings(result.experiment.engines)) {
    result.environment.warnings.push_back(std::move(warning));
  }
  result.metrics = aggregate_metrics(plan, finished.runs);
  warn_of_failed_repeats(plan, finished.failed_repeats, result.metrics);
  stats::judge_run_spread(result);
  if (finished.adaptive) record_repeats(plan, finished.runs, result.metrics);
  if (finished.counting_pass) run_counting_pass(plan, options, result);
  if (records_load_errors(options)) add_load_failures(*finished.described, options, result);
  result::mask_secrets(result);
}

}  // namespace storh::run
