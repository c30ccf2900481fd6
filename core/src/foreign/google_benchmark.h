// foreign/google_benchmark.h: a Google Benchmark JSON file (a binary's output with
// --benchmark_format=json or --benchmark_out=FILE) read as a storh-host result, so
// report, compare, gate and history take it like a file this host wrote.
//
// The file's shape: {"context": {...}, "benchmarks": [{...}, ...]}. Each benchmark
// instance (its `run_name`: "BM_sort/64", "BM_copy/threads:4") becomes two metrics:
//   - "<run_name>": the real (wall) time per iteration, in seconds, whatever the
//     file's time_unit ("ns", "us", "ms", "s");
//   - "<run_name>[cpu_time]": the CPU time per iteration.
// Both are lower-is-better and count "iterations" as their items, so the report's
// rate is iterations per second. The metric's samples are the repetitions (the
// entries of run_type "iteration"), each timing `iterations` calls, in file order.
// When the file holds only aggregates (--benchmark_report_aggregates_only), there are
// no samples: the median, mean and standard deviation come from the `_median`,
// `_mean` and `_stddev` aggregates, runs is the `repetitions` field, and min and max
// are the median (the file does not say them). User counters and the rate counters
// (items_per_second, bytes_per_second, any numeric field Google Benchmark does not
// define) are the real-time metric's counters, as the median over the repetitions.
// A benchmark that reported an error (error_occurred) is a failure, not a metric.
//
// Metrics keep the file's order (Google Benchmark's registration order). The engine
// of every metric, and the one engine record, is the executable's file name; its
// version is context.library_version ("unknown" when absent, as in 1.7.1). The
// context maps to the environment as google_benchmark_context.cpp says.
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "result/result.h"
#include "util/expected.h"

namespace storh::foreign {

// The result for a Google Benchmark file read from `origin` (used in messages).
// Errors name the origin, the JSON path and what is wrong:
// "gb.json: /benchmarks/2/time_unit: unknown time unit \"ps\" (known: ns, us, ms, s)".
Expected<result::ResultFile> from_google_benchmark(const nlohmann::json& document,
                                                   const std::string& origin);

}  // namespace storh::foreign
