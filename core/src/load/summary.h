// load/summary.h: from the repeats of a load cell to its block in the result file.
#pragma once

#include <optional>
#include <vector>

#include "load/config.h"
#include "load/outcome.h"
#include "result/result.h"

namespace storh::load {

// The latency block: stats::latency_summary of the histogram with the exact stddev.
// nullopt for no transactions.
std::optional<result::Latency> load_latency(const LatencyRecord& latency);

// Precondition: at least one repeat. tps values are means over the repeats; intended
// sums only when every repeat has one.
result::LoadResult summarize_load(const LoadConfig& config,
                                  const std::vector<LoadOutcome>& repeats);

}  // namespace storh::load
