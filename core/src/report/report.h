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
// its rate in the operation's unit, and, when it has more than one run, the relative
// standard deviation (stddev / mean) and the min..max range, plus latency p50/p99
// when recorded. Engines that the experiment does not list but that have metrics
// follow the listed ones, by name.
//
// When the metrics span several dataset sizes, each engine block is followed by its
// rate-by-size table with a fitted complexity per operation (report/range_section.h);
// a single-dataset report has none.
#pragma once

#include <string>

#include "result/result.h"

namespace storh::report {

enum class ReportFormat { text, markdown };

// Text: `storh-host suite=<name> datasets=<list> repeat=<k> fingerprint=<fp>`, an
// `environment:` line, `plugin: engine=<name> build=<type> optimized=yes|no|unknown
// compiler=.. flags=.. hash=..` lines, `warning: ...` lines, then `[engine]` blocks of
// lines "  %-28s <median> <rate> ±x.x% (min .. max) p50 .. p99 ..", then `failures (n):`
// with one line per failure and the last 5 lines of its stderr indented below it
// ("    | ..."). Repeats are shown as the result file numbers them (0-based, "warmup"
// for a warm-up run) so a line can be matched with the JSON.
//
// Markdown: a title, the experiment as a list, warnings as quotes, an environment
// table, a plugin builds table (engine | build | optimization | compiler | flags | file
// hash), one table per engine (operation | median | rate | ± | runs [| p50 | p99]),
// a failures table and each failure's stderr tail as a code block. `|` in cells is
// escaped and newlines become spaces.
std::string render_report(const result::ResultFile& result, ReportFormat format);

}  // namespace storh::report
