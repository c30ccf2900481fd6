// report/report_parts.h: the pieces every report format is built from (text, Markdown
// and HTML), so that a metric reads the same in each: the engine blocks in report
// order, labels, the metric table's columns and cells, warning summaries, the legend,
// and how a failure is named.
//
// Pure functions of the result, like the rest of the report (report/report.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "report/report.h"
#include "report/table.h"
#include "result/result.h"

namespace storh::report {

inline constexpr std::string_view kInterrupted = "the run was interrupted: results are partial";

// One engine's metrics, in report order.
struct EngineBlock {
  std::string name;
  std::vector<const result::Metric*> metrics;
};

// Engines in experiment order, then unlisted engines that have metrics, by name.
// Within an engine: scenario order, then operation, dataset and parameters.
std::vector<EngineBlock> engine_blocks(const result::ResultFile& result);

// The metric key without "<engine>." (result/metric_key.h, MetricKey::label) and
// without the `dropped` qualifiers: "put", "get[validation=hash]". A key of another
// engine stays whole; an empty key labels the metric by its operation.
std::string label_of(const result::Metric& metric, const std::vector<std::string>& dropped = {});

// "name=value" pairs separated by spaces, each value in its canonical text.
std::string params_text(const std::vector<result::Param>& params);

// The text with newlines and carriage returns turned into spaces.
std::string one_line(std::string_view text);

// The text with every line indented by `spaces` spaces (a last line without '\n' too).
std::string indent_lines(const std::string& text, std::size_t spaces);

// Whether a metric key's qualifier is one a load cell adds (load/config.h):
// "clients=4", "transactions=100" or "duration=10s".
bool is_load_qualifier(std::string_view qualifier);

// The text, or "unknown" when it is empty.
std::string or_unknown(const std::string& text);

// stddev / mean in percent, when the metric has more than one run.
std::optional<double> spread_percent(const result::Metric& metric);

// The median divided by the step's items ("-" for load metrics and zero rates).
std::string per_item_text(const result::Metric& metric);

// Whether some sample of the metric is a measure_repeated batch (min_time).
bool is_repeated(const result::Metric& metric);

// The rate in the operation's unit, or "-".
std::string rate_text(const result::Metric& metric);

// A result file's repeat index as people count: 0 -> "1", and warm-up run -1 ->
// "warm-up 1" (stderr's progress and skip messages count the same way).
std::string repeat_text(int repeat);

// The experiment's repeats as the header shows them: "5", or "5..30@2%" when adaptive
// (the --repeat form).
std::string repeat_setting(const result::Experiment& experiment);

// "signal 11", "exit code 3", both, or empty.
std::string status_text(const result::Failure& failure);

// "cache dataset=1000 validation=hash repeat=1 operation=cold"
std::string failure_context(const result::Failure& failure);

// The last 5 lines of a stderr tail, without trailing blank lines and carriage returns.
std::vector<std::string> tail_lines(std::string_view text);

// The environment's warnings, plus one when the run's durability is not "durable".
std::vector<std::string> run_warnings(const result::ResultFile& result);

bool has_warnings(const result::Metric& metric);

// The environment as (label, value) rows for people: OS, kernel, CPU, memory, work
// directory filesystem, compiler, build, build flags, CPU governor.
std::vector<std::pair<std::string, std::string>> environment_rows(const result::Environment& env);

// One engine's metrics as a table with a header row. Columns that no metric of the
// block fills are left out: the marker (`!`: the metric has warnings), cv and
// min .. max (single runs), runs (text: only when a metric has fewer runs than
// repeats; Markdown and HTML: always), p50/p99 (no latency recorded). HTML is laid
// out as Markdown but keeps the min .. max column, which Markdown leaves out.
std::pair<std::vector<Column>, Rows> metric_table(const std::vector<const result::Metric*>& metrics,
                                                  std::uint32_t repeat, ReportFormat format);

// "3 of 6 metrics have warnings (marked !, ...)", or empty when no metric has any.
std::string metric_warnings_summary(const result::ResultFile& result);

// What the median, per item and cv columns mean (cv: only when shown).
std::string legend(const result::ResultFile& result, ReportFormat format);

// "min_time 20.00 ms: 3 metrics timed in batches ...", or empty when no step was.
std::string min_time_note(const result::ResultFile& result);

}  // namespace storh::report
