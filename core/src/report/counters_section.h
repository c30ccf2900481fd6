// report/counters_section.h: the counting pass's figures (docs/counters.md) beside the
// times, in every report format.
//
// Per engine, when some metric of its block was counted (it has counters or a
// not_counted reason), a table of one row per metric in report order: its label and
// its counters per item, the nonzero ones in the stable counter order
// (count::counter_infos) as "fsync 2, opens 2.05, stats 3"; "not counted (<reason>)"
// for a metric whose work the counters could not see (never 0); "none nonzero" when
// every counter was 0; "-" when the metric has no counters (its counting run failed,
// or its engine was not counted). A block without counted metrics has no section, so
// reports of results without counters are unchanged.
//
// Pure functions of their input, like the rest of the report.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "report/report.h"
#include "report/table.h"
#include "result/result.h"

namespace storh::report {

// Whether some metric has counters or a not_counted reason.
bool has_counted(const std::vector<const result::Metric*>& metrics);
// Whether some metric has engine counters (result::EngineCounterValue).
bool has_engine_counters(const std::vector<const result::Metric*>& metrics);

// The engine's counters per item, nonzero ones by name, each with its unit:
// "pg.blks_hit 4.02 blocks, pg.xact_commit 1 commits"; a value the engine does not
// say repeats is marked "~" ("pg.wal_bytes ~812 bytes"). "none nonzero" when every one
// is 0, "-" when the metric has none.
std::string engine_counters_text(const result::Metric& metric);

// "fsync 2, opens 2.05", "not counted (...)", "none nonzero" or "-", as above.
std::string counters_text(const result::Metric& metric);

// A counter's value per item: up to 6 significant digits, whole numbers of a million
// or more without an exponent.
std::string counter_value_text(double value);

// Columns "operation" and "counters per item", one row per metric, and a third,
// "engine's counters per item", when some metric has engine counters.
std::pair<std::vector<Column>, Rows> counters_table(
    const std::vector<const result::Metric*>& metrics);

// Where a result's counters came from, as the section's title says it: storh-host's
// counting pass (per item), or the file itself (a Google Benchmark file's counters:
// rates per second, the others as the benchmark reported them).
std::string counters_title(const result::ResultFile& result);

// Text: "  <title>:" and the table indented by four spaces. Markdown: "<Title>:", a
// blank line, the table and a blank line. Empty when no metric was counted and none
// has engine counters. Text and Markdown only.
std::string counters_section(const std::vector<const result::Metric*>& metrics, ReportFormat format,
                             const std::string& title);

}  // namespace storh::report
