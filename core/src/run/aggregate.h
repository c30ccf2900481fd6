// run/aggregate.h: from what the workers reported to the metrics of a result file.
// Separate from the runner so it is tested without processes.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "plan/plan.h"
#include "result/result.h"
#include "worker/engine_counter_event.h"

namespace storh::run {

struct OperationSample {
  std::string operation;
  double seconds = 0;
  std::uint64_t items = 0;
  nlohmann::json latency;   // a LatencyHistogram's JSON, or null
  std::uint64_t calls = 1;  // > 1: a measure_repeated batch; seconds are per call
};

// One load phase of a worker run: a load::LoadOutcome as JSON.
struct LoadSample {
  std::string operation;
  nlohmann::json outcome;
};

// One worker run of a cell, as its events described it.
struct CellRun {
  int repeat = 0;
  bool loaded = false;
  bool done = false;
  double startup_seconds = 0;  // fork to "loaded"
  std::string current_operation;
  std::string failed_operation;
  std::string failure_message;
  std::string progress_message;
  std::vector<OperationSample> samples;
  std::vector<LoadSample> loads;                            // load cells only
  std::vector<worker::EngineCounterEvent> engine_counters;  // as the worker sent them
};

using CellRuns = std::vector<CellRun>;  // the timed repeats of one cell

// One metric per (cell, selected operation) that has at least one sample, sorted by
// key. Samples keep repeat order; the rate is items / median seconds. A load cell's
// metric has one sample per repeat (seconds of the timed phase, transactions
// processed), its `load` block, and the mean tps excluding set-up as its rate. Their
// spread is not judged here: the caller judges the whole run once (stats::judge_run_spread).
std::vector<result::Metric> aggregate_metrics(const plan::Plan& plan,
                                              const std::vector<CellRuns>& runs);

// Adds the samples and runs of `extra` (a re-run of some cells of the same plan) to
// `result`: each metric's samples grow and its summary, rate and warnings are
// recomputed, and so are its engine counters (merge_engine_counters: the median over
// every repeat) and an adaptive run's repeat record (run/adaptive.h, add_to_record).
// The latency block keeps the first run's histogram.
void add_samples(result::ResultFile& result, const result::ResultFile& extra);

// The experiment block of `plan`: its suite record, fingerprint, engines (operations:
// the union of the engine's cells', in declared order), parameter values, limits.
result::Experiment describe_experiment(const plan::Plan& plan,
                                       const std::filesystem::path& work_root);

}  // namespace storh::run
