// stats/spread.h: which metrics of a run are too noisy to trust, judged against the
// run's own noise.
//
// On a machine whose every timing varies by 15% (a shared VM, fsync-bound work), a
// fixed 10% bar would flag nearly every metric and say nothing a reader can act on. So
// a metric is flagged ("!") only when its coefficient of variation (stddev / mean, the
// report's cv column) is above kMaxTrustedVariation AND more than
// kOutlierSpreadFactor times its yardstick:
//   - its in-run floor's cv: a floor makes only the calls the operation must make, so
//     it varies as the machine's calls do. The floor is the cell's one named after the
//     operation's first word (doc.put_floor for doc.put_many), else the engine's plain
//     `floor`, else the cell's floor whose median is nearest the metric's, within
//     kNearestFloorRatio (sync-bound doc.jsonl_import against doc.bulk_floor);
//   - else the run's typical cv: the median over its metrics of two or more samples
//     (only when there are at least kMinMetricsForTypical of them).
// A yardstick excuses a spread only up to kMaxExcusedVariation: past it a metric is
// flagged whatever its yardstick, since its median may move that much between runs
// whoever is to blame.
// Two kinds of spread are not the metric's own, and are said once for the run
// instead (environment warnings, judge_run_spread):
//   - the machine's: the typical cv, and floors that vary (floors are yardsticks and
//     are never flagged themselves);
//   - one repeat far from the rest: with kMinSamplesForOutlier samples or more, a
//     metric whose cv is within its bar once its single farthest sample is left out
//     is not flagged. Its median, the figure the report shows, barely moves with one
//     sample, so one paused repeat says nothing about the engine.
// Too few samples for a significance test is not a run's concern: compare and gate say
// so when they test.
#pragma once

#include <cstddef>
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
// Over this cv a metric is flagged even when its yardstick varies as much.
inline constexpr double kMaxExcusedVariation = 0.25;
// Fewer metrics than this give no typical cv; a fixed bar alone applies then.
inline constexpr std::size_t kMinMetricsForTypical = 5;
// Below this many samples the warnings suggest more repeats.
inline constexpr std::size_t kRepeatsToNarrow = 10;
// From this many samples one sample far from the rest is an outlier, not spread.
inline constexpr std::size_t kMinSamplesForOutlier = 5;
// A floor without a name in common with the operation is its yardstick only if their
// medians are within this factor of each other.
inline constexpr double kNearestFloorRatio = 10.0;

// Judges a run's metrics once (after their summaries are set): replaces every metric's
// spread warning (other warnings stay) by the judgement above, and the file's
// environment warnings about the run's spread by the current ones, each saying what to
// do about it:
//   "this run's metrics vary by 14.2% (the median coefficient of variation of 88
//    metrics) > 10%: ..."                 when the typical cv is above 10%;
//   "the in-run floors vary by up to ..."  when a floor's cv is above 10%;
//   "3 metrics had one repeat far from the rest ..." for the outliers let pass.
// Judging again (after more samples were added) replaces, never adds twice.
// `advice` names the knobs of the tool that made the file: storh-host's by default, a
// Google Benchmark file's (--benchmark_repetitions, --benchmark_min_time) for one.
struct NarrowingAdvice {
  std::string repeat_flag = "--repeat";
  std::string min_time = "min_time (for a step that can repeat)";
};
void judge_run_spread(result::ResultFile& result, const NarrowingAdvice& advice = {});

}  // namespace storh::stats
