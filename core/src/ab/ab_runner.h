// ab/ab_runner.h: running a suite's cells for two sides, base and head, in pairs.
//
// Both plans come from the same suite; they differ in where their plugins come from
// (two build directories) and possibly in parameter overrides. Each plan's `repeat` is
// the pairs per cell and its `warmup` the untimed runs per side and cell. Cell i of one
// plan is cell i of the other (same engine, dataset and qualifiers); operations may
// differ (a metric only one side has is reported as missing, not paired). Each side's
// result records its own plan's suite record; the work root goes under head's work_dir.
//
// Schedule: each side's warm-ups first (alternating per cell), then for pair p = 0,
// 1, ...: for every cell, one base run and one head run back to back, each in a
// fresh worker and a fresh work directory. Who goes first alternates (ABBA: base
// first in even pairs) or is a seeded coin per (cell, pair). Cells interleave within
// a pair, so slow drift of the machine spreads over every cell and, within a pair,
// hits both sides alike.
#pragma once

#include <cstdint>
#include <optional>
#include <set>

#include "ab/ab_result.h"
#include "plan/plan.h"
#include "run/aggregate.h"
#include "run/runner.h"
#include "util/expected.h"

namespace storh::ab {

// The most pairs per cell a run or a confirmation set may ask for.
inline constexpr std::uint32_t kMaxPairs = 1000;

struct AbRunOptions {
  run::RunnerOptions runner;
  Order order = Order::abba;
  std::uint64_t seed = 0;
  SideSetup base_setup;
  SideSetup head_setup;
  // The power harness's injected slowdown of the head side's workers (--inject-slowdown).
  std::optional<double> head_inject_slowdown;
  bool counting_pass = true;  // run the cells' counters after the pairs
};

// Whether the plans can be paired; empty when they can, else why not.
std::string check_pairable(const plan::Plan& base, const plan::Plan& head);

// Runs both sides and pairs their samples; each side's result is finished as a run's
// is (run/finish.h), with options.runner.command_line. Fails only when the plans cannot
// be paired or no work directory can be made; worker failures are in each side's
// failures.
Expected<AbResult> run_ab(const plan::Plan& base, const plan::Plan& head,
                          const AbRunOptions& options);

// Confirms wall-time regressions (verdict.h): runs a fresh set of `pairs` pairs of the
// cells holding `keys`, without a counting pass, and records the pairs of `keys`
// in result.confirmation. Its worker runs and failures join each side's; an interrupt
// marks both sides interrupted. Empty on success, else why it could not run (as
// run_ab fails).
std::string confirm(const plan::Plan& base, const plan::Plan& head, std::uint32_t pairs,
                    AbRunOptions options, const std::set<std::string>& keys, AbResult& result);

// The pairs of one metric from the two sides' runs of one cell (runs by pair index;
// a run that lacks the operation's sample breaks only its own pair).
PairedMetric pair_samples(const std::string& key, const OperationSpec& operation,
                          const std::vector<run::CellRun>& base_runs,
                          const std::vector<run::CellRun>& head_runs,
                          const std::vector<Side>& first);

}  // namespace storh::ab
