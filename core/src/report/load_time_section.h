// report/load_time_section.h: load cells over time (result::LoadIntervals), as
// pgbench's -P lines in text and markdown and as a line chart on the HTML page.
//
// Each cell shows one repeat: the one whose tps (excluding set-up) is the median, the
// lower one of an even count. Text and markdown print a cell's lines only when its
// series has at most kMaxProgressLines intervals, and at most kMaxProgressTotal lines
// per engine; the other cells get one line saying where their series are. HTML draws
// a chart (kind "timeline") for at most kMaxTimeCharts cells per engine.
//
// Pure functions of their input, like the rest of the report.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "report/html.h"
#include "report/report.h"
#include "result/result.h"

namespace storh::report {

inline constexpr std::size_t kMaxProgressLines = 20;
inline constexpr std::size_t kMaxProgressTotal = 100;
inline constexpr std::size_t kMaxTimeCharts = 12;

// The index of the repeat with the median tps; 0 for none.
std::size_t median_repeat(const result::LoadResult& load);

// pgbench's -P lines of one repeat's series, each ending in '\n':
// "progress: 5.0 s, 1234.5 tps, lat 1.234 ms stddev 0.321, 0 failed", then with a
// rate ", lag 0.012 ms" (and with a latency limit ", 3 skipped"), then ", 7 retries"
// when some interval retried. The time is the interval's end (the run's end for the
// last, partial one); its tps counts the partial interval's own length.
std::string progress_lines(const result::LoadIntervals& series, double run_seconds, bool rate,
                           bool latency_limit);

// Text ("  over time: <label> (repeat k, median tps)" then the lines indented by four)
// or markdown (a heading line and the lines in a code block). Empty when no metric has
// a series.
std::string load_time_section(const std::vector<const result::Metric*>& metrics,
                              ReportFormat format);

// HTML: per cell with a series a figure with a "timeline" chart: labels (each
// interval's end, seconds), tps and p99 (seconds) per interval.
std::string load_time_html(const std::vector<const result::Metric*>& metrics, HtmlCharts& charts);

}  // namespace storh::report
