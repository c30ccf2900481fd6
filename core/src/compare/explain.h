// compare/explain.h: why a metric changed, in the engine's own words (engine counters,
// docs/counters.md): under each metric that got slower or faster, the engine counters
// that changed with it.
//
// For a metric on both sides whose verdict is slower or faster and that has engine
// counters on both sides, one line: the metric, its change, then each engine counter
// present on both sides whose value per item moved by more than 1% (or from or to
// zero), as "base -> new", and how many others held still:
//   pg.tpcb_like[clients=1] tps -31.0%: pg.wal_sync per transaction 1 -> 0 syncs,
//   pg.wal_bytes per transaction unchanged
// (the second form when exactly one other counter held still, else "N other engine
// counters unchanged"). A metric with no counter that moved gets "no engine counter
// changed". Pure; no lines when no metric qualifies, so comparisons of files without
// engine counters are unchanged.
#pragma once

#include <string>
#include <vector>

#include "compare/compare.h"

namespace storh::compare {

// The lines above, in row order.
std::vector<std::string> engine_counter_explanations(const PairComparison& comparison);

// One such line for a metric whose value changed by `delta_percent` (its unit in
// `unit`: "tps" for a load metric, whose counters are per transaction).
std::string explain_change(const std::string& key, const std::string& unit, double delta_percent,
                           const std::vector<result::EngineCounterValue>& base,
                           const std::vector<result::EngineCounterValue>& next);

// Whether some engine counter on both sides moved as explain_change counts a move.
bool engine_counters_changed(const std::vector<result::EngineCounterValue>& base,
                             const std::vector<result::EngineCounterValue>& next);

}  // namespace storh::compare
