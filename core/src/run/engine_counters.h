// run/engine_counters.h: an engine's own counters (storh::EngineCounter, plugin ABI
// 1.7) of one metric, from what the timed repeats of its cell reported.
//
// Each repeat's count is divided by the items of its step (for a load phase: every
// transaction the phase ran, warm-up and failed ones included); the metric keeps the
// median of those per-item figures over the repeats, with the unit the engine named.
// A counter repeats when the engine said so in every repeat. Pure.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "result/result.h"
#include "run/aggregate.h"

namespace storh::run {

// The counters of `operation` over `runs`, sorted by name; empty when none reported
// any. A report of 0 items is dropped (no per-item figure), and when a repeat reports a
// name twice its last report counts. With `per_repeat`, stores there each counter's
// per-item figures, one per repeat that reported it (Metric::engine_counter_repeats).
std::vector<result::EngineCounterValue> summarize_engine_counters(
    const CellRuns& runs, std::string_view operation,
    std::map<std::string, std::vector<double>>* per_repeat = nullptr);

// Adds the counters of `more` (a confirmation re-run of the same metric) to `metric`'s:
// per counter name, the median of every repeat's per-item figure over both (a metric
// read from a file, without its repeats' figures, counts its value as one repeat),
// repeating when both say so; sorted by name.
void merge_engine_counters(result::Metric& metric, const result::Metric& more);

}  // namespace storh::run
