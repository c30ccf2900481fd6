// report/ycsb_section.h: a YCSB run's summary (docs/ycsb.md): per workload, one
// table with a row per engine cell (engine, parameters, clients) and, for the load
// phase, the whole mix and each kind of operation, its ops/s and p99 latency.
//
// A YCSB metric is a load metric whose operation is "ycsb_<w>", "ycsb_<w>.load" or
// "ycsb_<w>.<kind>" (ycsb/cell.h). Pure function of its input, like the rest of the
// report; empty when the result has no YCSB metric.
#pragma once

#include <string>

#include "report/report.h"
#include "result/result.h"

namespace storh::report {

// Whether `metric` is a YCSB cell's (its operation "ycsb_<w>" or "ycsb_<w>.<phase>"):
// the load matrices leave these to ycsb_section.
bool is_ycsb_metric(const result::Metric& metric);

// Text: per workload a "YCSB workload <w>:" line and the table indented by two
// spaces. Markdown: per workload a "## YCSB workload <w>" heading and a table.
// HTML: per workload a <section class="ycsb" id="ycsb-<w>"> with an <h2> and the
// table (html_table: numbers right-aligned, the table in its scrolling box).
// Rows in result order; "-" where a cell has no such metric or percentile.
std::string ycsb_section(const result::ResultFile& result, ReportFormat format);

}  // namespace storh::report
