// history/render.h: what `history show`, `history changes` and `history export` print.
// Pure functions: the same history gives the same bytes.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "history/series.h"
#include "history/store.h"
#include "report/html_assets.h"
#include "report/table.h"

namespace storh::history {

// A median as people read it: a duration for times ("1.234 ms"), 4 significant digits
// and the unit for scores ("1523 transactions").
std::string median_text(const Series& series, double value);

// The first 12 digits of the run's commit, or "-".
std::string short_commit(const HistoryRun& run);

// A table that the text and HTML views both show.
struct HistoryTable {
  std::vector<report::Column> columns;
  report::Rows rows;
};

// The runs of one series: #, run time, commit, branch, median, min, max, repeats, and
// "<- change x1.172 (p 3.5e-14)" at the first run after each change point.
HistoryTable runs_table(const Series& series, const std::vector<SeriesChange>& changes);

// One row per change point: metric, env, commit and time of the first run after it,
// median before and after, ratio, p, and a note (worse or better; a changed plan).
HistoryTable changes_table(const std::vector<SeriesChange>& changes);

// Every series in one table: metric, environment, runs, the latest median, the
// range of medians, and how many change points it has. Then the environments.
std::string overview_text(const std::vector<Series>& series,
                          const std::vector<SeriesChange>& changes,
                          const std::vector<std::string>& environments);

// The runs of each series in `series` (one metric's, one table per environment): run
// time, commit, branch, median, min .. max, repeats, and the change points marked.
std::string series_text(const std::vector<Series>& series, const std::vector<SeriesChange>& changes,
                        const std::vector<std::string>& environments);

// One line per change point: metric, environment, the first run after it (commit,
// time), median before and after, their ratio, p-value, and notes. `options` are
// stated in the header.
std::string changes_text(const std::vector<SeriesChange>& changes,
                         const stats::ChangePointOptions& options);

// The change points as the lines ci prints when its run makes one.
std::string new_changes_text(const std::vector<SeriesChange>& changes);

// One page: per metric a trend chart (one line per environment, change points marked)
// and its table, then the change points and the environments.
std::string history_html(const std::vector<Series>& series,
                         const std::vector<SeriesChange>& changes,
                         const std::vector<std::string>& environments,
                         const report::HtmlAssets& assets);

// `history export --format=json`: {"history_schema", "runs": [{id, commit, branch,
// run_time, added_time, suite, fingerprint, environment, host_version, result_hash,
// metrics: {key: {median, min, max, runs, unit, direction}}, result?}]}, oldest run
// first. `results[i]`, when given, is runs[i]'s stored result file, embedded as JSON.
std::string export_json(const std::vector<HistoryRun>& runs,
                        const std::vector<HistoryPoint>& points,
                        const std::optional<std::vector<std::string>>& results);

// `history export --format=csv`: a header, then one line per run and metric.
std::string export_csv(const std::vector<HistoryRun>& runs,
                       const std::vector<HistoryPoint>& points);

}  // namespace storh::history
