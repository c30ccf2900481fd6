// stats/spread.h: which metrics of a run are too noisy to trust, judged against the
// run's own noise.
//
// On a machine whose every timing varies by 15% (a shared VM, fsync-bound work), a
// fixed 10% bar would flag nearly every metric and say nothing a reader can act on. So
// a metric is flagged ("!") only when its coefficient of variation (stddev / mean, the
// report's cv column) is above kMaxTrustedVariation AND more than
// kOutlierSpreadFactor times its yardstick:
//   - its in-run floor's cv, when the engine has one for the operation (an operation
//     that makes only the calls the operation must make: doc.put_floor for doc.put,
//     else the engine's plain `floor`, in the same cell);
//   - else the run's typical cv: the median over its metrics of two or more samples
//     (only when there are at least kMinMetricsForTypical of them).
// The machine's own noise is said once for the run instead (run_spread_warning).
// Too few samples for a significance test is not a run's concern: compare and gate say
// so when they test.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "result/result.h"

namespace storh::stats {

// How a metric's wide-spread warning starts.
inline constexpr std::string_view kSpreadWarning =
    "spread too wide to trust: coefficient of variation";
// A metric is flagged when its cv is over this many times its yardstick.
inline constexpr double kOutlierSpreadFactor = 2.0;
// Fewer metrics than this give no typical cv; a fixed bar alone applies then.
inline constexpr std::size_t kMinMetricsForTypical = 5;
// Below this many samples the warnings suggest more repeats.
inline constexpr std::size_t kRepeatsToNarrow = 10;

// Replaces every metric's spread warning (other warnings stay) by the judgement
// above. Call it on all the metrics of one run, after their summaries are set.
void judge_spread(std::vector<result::Metric>& metrics);

// "this run's metrics vary by 14.2% (the median coefficient of variation of 88
// metrics) > 10%: ..." when the run's typical cv is above kMaxTrustedVariation, for the
// result's environment warnings; nullopt otherwise.
std::optional<std::string> run_spread_warning(const std::vector<result::Metric>& metrics);

// judge_spread on the file's metrics, and its environment warnings get the current
// run_spread_warning in place of an earlier one.
void judge_run_spread(result::ResultFile& result);

}  // namespace storh::stats
