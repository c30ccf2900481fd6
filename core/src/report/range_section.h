// report/range_section.h: the "rate by dataset size" part of a report on a result
// with several dataset sizes (a range run).
//
// Per engine, one row per operation and parameter combination, labelled like the
// engine block's lines but without the "n=<size>" qualifier (`cold[validation=hash]`);
// one column per dataset size the engine has metrics for, ascending (`n=1000`), each
// cell the rate at that size ("-" where the cell has no metric); and a last column
// with the fitted complexity of the median time t(n) (stats/complexity.h), printed as
// `O(n)  err 3.1%`, or "too few sizes" when fewer than kMinComplexitySizes sizes
// have a time. Rows keep the engine block's order: scenario order, then parameters.
//
// Pure functions of their input, like the rest of the report.
#pragma once

#include <string>
#include <vector>

#include "report/html.h"
#include "report/report.h"
#include "result/result.h"

namespace storh::report {

// True when the result's metrics span more than one dataset size. Only then does a
// report carry range sections, so single-dataset reports are unchanged by them.
bool has_several_datasets(const result::ResultFile& result);

// The section for one engine's metrics (given in report order). Text: a
// "  rate by dataset size:" line and the table indented by four spaces. Markdown: a
// "### <engine>: rate by dataset size" heading, the table and a blank line. Empty when
// `metrics` is empty.
std::string range_section(const std::string& engine,
                          const std::vector<const result::Metric*>& metrics, ReportFormat format);

// HTML: a "Time by dataset size" heading, a chart of each operation's median time
// against the size on log axes with its fitted curve (chart kind "range"), and the
// text format's table. Empty when `metrics` is empty.
std::string range_section_html(const std::vector<const result::Metric*>& metrics,
                               HtmlCharts& charts);

}  // namespace storh::report
