// run/adaptive.h: adaptive repeats (suite.h's RepeatUntil): whether a cell's figures
// are stable yet, and what each metric records about the repeats it took.
//
// A cell's figures: for a scenario cell, the seconds of each timed operation per
// repeat (every one must be stable: the slowest to converge decides); for a load cell,
// each transaction type's tps per repeat (tps_excluding_setup). Stable: the 95%
// interval of the median lies within median x (1 +- until) (stats/median_interval.h),
// which needs at least 6 repeats. Pure functions of what the workers reported.
#pragma once

#include <string>
#include <vector>

#include "plan/plan.h"
#include "result/result.h"
#include "run/aggregate.h"

namespace storh::run {

// The figure per repeat of `operation` in `runs`, in repeat order; runs that did not
// report it (a failure) contribute nothing.
std::vector<double> repeat_figures(const plan::Cell& cell, const CellRuns& runs,
                                   const std::string& operation);

// True when every operation of `cell` has stable figures at `until` (a fraction).
// A cell with an operation that has no figures at all is not stable.
bool cell_is_stable(const plan::Cell& cell, const CellRuns& runs, double until);

// Sets metric.repeats on each metric of an adaptive plan (no-op otherwise): taken,
// the interval and converged; a metric whose cell ran max repeats without converging
// gets a warning: "30 repeats (max) and the 95% interval of the median is +-3.4%,
// wider than the +-2% asked".
void record_repeats(const plan::Plan& plan, const std::vector<CellRuns>& runs,
                    std::vector<result::Metric>& metrics);

// After `added` more repeats of a metric's cell were appended to its samples (ci
// --confirm): taken grows by `added`, and the interval, converged and the max warning
// are recomputed over all its samples (a load metric's figure: items / seconds, its
// tps). No-op for a metric without a repeat record.
void add_to_record(result::Metric& metric, std::uint32_t added, const result::RepeatBounds& bounds);

}  // namespace storh::run
