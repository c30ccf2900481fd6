// report/load_section.h: the clients x transactions matrices of a load run, one per
// metric, as the pgbench study laid them out (docs/load.md).
//
// Per engine, load metrics are grouped by transaction type and everything else that
// tells cells apart (dataset, parameters): one group is one "transaction[...]" label
// without the clients/transactions/duration qualifiers. For each group, one table per
// metric: rows are client counts (ascending), columns are transactions per client
// (or durations), ascending; "-" where the cell has no metric. The metrics:
// tps excluding set-up, tps including set-up (means over the repeats), latency mean,
// stddev, p50, p95, p99, p99.9 and max (merged over clients and repeats; "-" for a
// percentile too few transactions support), then, only when some cell has them,
// "processed of intended" (when a cell processed fewer than intended), "failed", the
// schedule lag's mean and max (cells with a rate), and late and skipped counts.
//
// Pure functions of their input, like the rest of the report.
#pragma once

#include <string>
#include <vector>

#include "report/html.h"
#include "report/report.h"
#include "result/result.h"

namespace storh::report {

// The section for one engine's metrics (in report order). Empty when none of them is
// a load metric. Text: per group a "  <label>: clients x transactions per client
// (repeats: k)" line, then per metric its name indented by four spaces and the table
// by six. Markdown: per group a "### <engine>.<label>: clients x ..." heading, then
// per metric a bold name line and a table.
std::string load_section(const std::string& engine,
                         const std::vector<const result::Metric*>& metrics, ReportFormat format);

// HTML: per group a heading, the tps matrix as a heat map table (cells coloured from
// the lowest to the group's highest tps), a chart of each cell's latency percentiles
// (chart kind "latency"), and every matrix of the text format in a <details> element.
std::string load_section_html(const std::string& engine,
                              const std::vector<const result::Metric*>& metrics,
                              HtmlCharts& charts);

}  // namespace storh::report
