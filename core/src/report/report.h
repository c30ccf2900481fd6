// report/report.h: the human view of a result file, for the terminal (text, in the
// style of the storh harness's stdout) and for pull requests and wikis (markdown).
//
// A report is a pure function of the result: the same ResultFile renders to the same
// bytes on any machine, at any time (no clock, no locale), so reports can be golden-
// tested and diffed.
//
// Layout, both formats: the experiment (suite, datasets, repeat, fingerprint), the
// environment, each plugin's build when the result records it, the warnings, whether
// the run was interrupted, then one block per engine in experiment order, then the
// failures.
//
// Within an engine, metrics appear in scenario order (the engine record's
// `operations`; operations not listed there follow by name), then by dataset
// ascending, then by parameters. A metric is labelled by its key without the
// "<engine>." prefix, e.g. "put" or "get[validation=hash]", and shows its median time,
// its rate in the operation's unit, and, when it has more than one run, its cv (the
// coefficient of variation, stddev / mean, in percent) and the min..max range, plus
// latency p50/p99 when recorded. A metric with warnings (Metric::warnings: a wide
// spread, too few samples) is marked `!` in its row, and its warnings are listed
// under its engine's table; a summary line near the top counts such metrics. Engines
// that the experiment does not list but that have metrics follow the listed ones, by
// name.
//
// When the metrics span several dataset sizes, each engine block is followed by its
// rate-by-size table with a fitted complexity per operation (report/range_section.h);
// a single-dataset report has none.
//
// A load run's engine block is followed by its clients x transactions matrices
// (report/load_section.h), or, when the experiment records benches
// (Experiment::load_benches), by the benches' tables instead (report/bench_section.h;
// the HTML page keeps the matrices).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "report/html_assets.h"
#include "result/result.h"

namespace storh::report {

enum class ReportFormat { text, markdown, csv, json, html, csv_intervals };

// "text", "md" (or "markdown"), "csv", "json", "html", "csv-intervals"; nullopt for
// anything else.
std::optional<ReportFormat> parse_report_format(std::string_view name);

// Text: `storh-host suite=<name> datasets=<list> repeat=<k> fingerprint=<fp>`, an
// `environment:` line, `plugin: engine=<name> build=<type> optimized=yes|no|unknown
// compiler=.. flags=.. hash=..` lines, `warning: ...` lines (the environment's, then
// "3 of 6 metrics have warnings (marked !, ...)"), a `legend:` line saying what the
// median, per item and cv columns are, a `min_time ...` line when some metric was
// timed in batches (measure_repeated), then `[engine]` blocks: an aligned table with a header row
// (report::text_table, indented by two spaces; [!] operation median per-item rate [cv
// min .. max] [runs] [p50 p99], a column only when some row fills it; per item is
// the median divided by the step's items; runs appears
// only when a metric has fewer runs than repeats, and then reads "2/3" for it), then
// "  ! <label>: <warnings joined by "; ">" per warned metric; then `failures (n):`
// with one line per failure and the last 5 lines of its stderr indented below it
// ("    | ..."). Repeats are shown as the result file numbers them
// (0-based, "warmup" for a warm-up run) so a line can be matched with the JSON.
//
// Markdown: a title, the experiment as a list, warnings as quotes (the metric summary
// last), an environment table, a plugin builds table (engine | build | optimization |
// compiler | flags | file hash), a legend line (and a min_time note), one table per engine ([!] |
// operation | median | per item | rate | cv | runs [| p50 | p99]) followed by a "Warnings:" list of
// its warned metrics, a failures table and each failure's stderr tail as a code block. `|` in cells
// is escaped and newlines become spaces.
//
// CSV: metrics_csv; csv-intervals: intervals_csv. JSON: the whole file as this host reads it,
// written again by result::to_json_text (fixed key order, fields added since the file was written
// filled with their defaults), for tools that want one normalised form.
//
// HTML: render_html_report, with the assets given (an html report needs them; the
// other formats ignore them).
std::string render_report(const result::ResultFile& result, ReportFormat format,
                          const HtmlAssets& assets = {});

// One self-contained page (report/html.h): the experiment, warnings, failures count
// and interrupted mark at the top, links to the engines, then per engine a chart of
// each operation's median on its min .. max bar (log axis) above the Markdown
// report's table with its min .. max column, its warned metrics, for range runs a
// chart of time against dataset size with the fitted complexity and the rate table,
// for load runs a tps heat map and a latency percentile chart per group; then the
// failures with their stderr tails, the environment and the plugin builds.
std::string render_html_report(const result::ResultFile& result, const HtmlAssets& assets);

// One RFC 4180 line per metric, in file order, after a header line: key, engine,
// operation, dataset, params ("name=value" separated by spaces), unit, direction,
// runs, median/min/max/mean/stddev/mad seconds, cv_percent (empty for one run),
// per_item_seconds (median / the step's items, 1 / rate; empty for load metrics),
// rate_per_second, p50/p99
// seconds (empty when not recorded), warnings (joined by
// "; "). Numbers at full precision: the shortest text that reads back to the double.
std::string metrics_csv(const result::ResultFile& result);

// The load metrics' interval series (docs/load.md, "A run over time") as RFC 4180 lines,
// one per interval of each repeat, in file order, after a header line: key, engine,
// operation, repeat (0-based, as the file numbers them), interval (0-based),
// start_seconds, end_seconds (the last interval ends with the repeat's run_seconds),
// transactions (the ok ones), tps (transactions over the interval's length), failed,
// retries, skipped, late, latency mean/stddev/p50/p90/p99/max seconds, lag mean/max
// seconds (empty without a rate). The same columns whatever the file holds; only the
// header without load metrics.
std::string intervals_csv(const result::ResultFile& result);

}  // namespace storh::report
