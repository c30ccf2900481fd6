// report/statements_section.h: per-command latencies of script load cells
// (result::StatementLatency), as pgbench -r prints them, in text, Markdown and HTML.
//
// One block per load metric that has statement rows, in report order; metrics without
// rows print nothing, so reports of other results are unchanged. A command's latency
// is its mean over every run (seconds / count) in milliseconds, 0.000 for a command
// that never ran, as pgbench prints it.
//
// Pure functions of their input, like the rest of the report.
#pragma once

#include <string>
#include <vector>

#include "report/report.h"
#include "result/result.h"

namespace storh::report {

// Text: "  statement latencies in milliseconds, failures and retries: <cell>" then per
// script with a name "    script <name>:" and one line per command, pgbench's columns
// (latency %11.3f, failures, retries, the command's first line) indented by four.
// Markdown: a bold title line per cell and a table (script, line, latency ms, failures,
// retries, command). Empty when no metric has rows.
std::string statements_section(const std::vector<const result::Metric*>& metrics,
                               ReportFormat format);

// HTML: a heading and the Markdown form's table per cell. Empty when no metric has rows.
std::string statements_html(const std::vector<const result::Metric*>& metrics);

}  // namespace storh::report
