// plan/plan.h: expanding a checked suite into the cells the runner executes.
//
// A cell is one (dataset, engine, parameter combination); each cell runs `warmup`
// untimed and `repeat` timed times, each in a fresh worker process. Cells are
// ordered dataset by dataset (as the suite lists them), engine by engine (suite
// order), then through the parameter matrix (parameters in declaration order, the
// last varying fastest). In a load suite each of those expands further: clients
// (suite order), then transactions or durations (suite order). With [[load.bench]]
// tables it expands instead into the union of the benches' points, in order of first
// appearance (a point listed by two benches is one cell).
//
// The plan is all a runner reads (run/runner.h, ab/ab_runner.h): besides the cells,
// the limits, the work directory and what the experiment records of the suite are
// copied here once, from the suite with its overrides applied.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "load/config.h"
#include "plugin/describe.h"
#include "result/result.h"
#include "suite/suite.h"

namespace storh::plan {

struct Cell {
  std::string engine;
  std::filesystem::path plugin;
  std::string engine_version;
  result::PluginBuild build;  // recorded in the result; not part of the fingerprint
  std::uint64_t dataset = 0;
  // Every declared parameter with its value for this cell (defaults included),
  // sorted by name. Only values the suite set are passed to the worker.
  std::vector<result::Param> params;
  std::vector<result::Param> chosen;  // the suite-set subset of params
  // What tells this cell's metrics apart from its siblings': "n=1000" when the suite
  // has several datasets, then every parameter with more than one value.
  std::vector<std::string> qualifiers;
  // Selected, in scenario order (declared order). For a bench point: the union of
  // the operations of the benches that list it, kept only where the engine's own
  // `operations` select them; a point left with none is no cell.
  std::vector<OperationSpec> operations;
  // Set in a load suite: the cell runs these transactions (`operations` holds the
  // selected transaction types) with this many clients and this much work. Its
  // qualifiers then end with "clients=C" and "transactions=T" (or "duration=Ds").
  std::optional<load::LoadConfig> load;
  // The counting pass's instruments by name ("syscalls", count/counters.h), in the
  // order listed: the engine's own `counters`, else the suite's. Not part of the
  // fingerprint.
  std::vector<std::string> counters;

  std::vector<std::string> operation_names() const;
  // Run `repeat` of this cell (negative: a warm-up) as a Failure names it.
  result::FailedRun failed_run(int repeat) const;
};

// The suite a plan came from, as its result's experiment records it.
struct SuiteRecord {
  std::string name;
  std::filesystem::path file;                   // as given; empty for a suite made of flags
  std::vector<std::uint64_t> datasets;          // suite order
  std::vector<result::LoadBench> load_benches;  // [[load.bench]] tables, in file order
};

struct Plan {
  std::vector<Cell> cells;
  std::uint32_t repeat = 1;
  // Adaptive repeats (suite.h): `repeat` is its min, and a cell may run up to max.
  std::optional<suite::RepeatUntil> repeat_until;
  std::uint32_t warmup = 0;
  suite::RunOrder order = suite::RunOrder::sequential;
  std::string fingerprint;  // 16 hex digits
  // What each worker of the plan runs under: the suite's limits, overrides applied.
  std::optional<std::uint64_t> memory_limit_bytes;  // resident; none: unlimited
  std::optional<double> timeout_seconds;            // wall clock; none: unlimited
  // A repeatable step (measure_repeated) runs until one batch lasts this long; not
  // asked of load cells.
  double min_time_seconds = suite::kDefaultMinTimeSeconds;
  // The parent of the run's work roots (run/work_root.h); none: the temporary directory.
  std::optional<std::filesystem::path> work_dir;
  SuiteRecord suite;  // not part of the fingerprint
};

// A load suite's view of a plugin: its transaction types as operations (unit
// "transactions"), so suite checks, selection and metric keys work unchanged.
// Returns false when the plugin offers no transactions.
bool use_transactions_as_operations(plugin::Description& description);

// A YCSB suite's view of a plugin: the metrics its cells report (ycsb/cell.h) as
// operations, so suite checks, selection and metric keys work unchanged. A workload
// whose properties are invalid adds none (check_suite reports it). Returns false when
// the plugin offers no key-value store.
bool use_ycsb_as_operations(const suite::YcsbSetting& ycsb, plugin::Description& description);

// The spec of `ycsb`'s cells of workload `letter`.
load::YcsbSpec ycsb_spec(const suite::YcsbSetting& ycsb, char letter);

// Precondition: suite::check_suite passed with these descriptions (engine name ->
// description) for every engine of the suite.
Plan expand_plan(const suite::Suite& suite,
                 const std::map<std::string, plugin::Description>& descriptions);

// "doc.put" or "cache.cold[n=1000,validation=hash]" (result/metric_key.h).
std::string metric_key(const Cell& cell, const std::string& operation);

// The cell as the progress line names it: the engine, its dataset, then every other
// qualifier, so that the cells of a matrix read apart ("filter n=20000
// evaluation=compiled", "queue n=1000 clients=10 transactions=100").
std::string progress_name(const Cell& cell);

// `plan` narrowed to its cells that have a metric among `keys` (re-running only what a
// gate doubts); every other setting, fingerprint included, stays.
Plan with_metrics(const Plan& plan, const std::set<std::string>& keys);

}  // namespace storh::plan
