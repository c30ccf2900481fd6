// history/series.h: a history's runs as series, one per metric and environment, and
// the change points in each (stats/change_points.h).
//
// A series is the medians of one metric key of one suite in one environment
// (history/record.h environment_key), in run order (run_time, then id). Series of
// different environments are never joined: a faster machine is not a faster build.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "history/store.h"
#include "stats/change_points.h"
#include "util/expected.h"

namespace storh::history {

struct Series {
  std::string suite;
  std::string environment;             // the key
  std::size_t environment_number = 0;  // 1-based, in order of first appearance
  std::string metric;
  std::string unit;
  result::MetricDirection direction = result::MetricDirection::lower_is_better;
  std::vector<const HistoryRun*> runs;  // oldest first
  std::vector<HistoryPoint> points;     // points[i] is of runs[i]
  std::vector<double> medians;          // points[i].median
};

// The series of `runs` (oldest first, as HistoryStore::runs gives them) and their
// points, ordered by suite, environment number, then metric. The pointers refer into
// `runs`, which must outlive the result.
std::vector<Series> build_series(const std::vector<HistoryRun>& runs,
                                 const std::vector<HistoryPoint>& points);

// The environments in order of first appearance: environments()[n - 1] is number n.
std::vector<std::string> environments(const std::vector<HistoryRun>& runs);

struct SeriesChange {
  const Series* series = nullptr;
  stats::ChangePoint point;              // point.index: the first run after the change
  const HistoryRun* run = nullptr;       // series->runs[point.index]
  const HistoryRun* previous = nullptr;  // series->runs[point.index - 1]
  // The suite's plan changed between previous and run (another fingerprint): the step
  // may be the suite's, not the code's.
  bool plan_changed = false;
  // after / before of the medians; for higher_is_better metrics below 1 is worse.
  double ratio() const;
  // Whether the change makes the metric worse (slower, or a lower score).
  bool worse() const;
};

// The change points of every series, in series order then by index.
std::vector<SeriesChange> find_changes(const std::vector<Series>& series,
                                       const stats::ChangePointOptions& options);

// The changes in `after` that `before` did not have. A change of `before` in the same
// series (suite, environment, metric) within `tolerance` runs of one in `after` is the
// same change, moved by the new run: `ci --history` fails only once for one step.
std::vector<SeriesChange> new_changes(const std::vector<SeriesChange>& before,
                                      const std::vector<SeriesChange>& after,
                                      std::size_t tolerance);

// A history read whole: its runs, points, series and change points. Series and
// changes point into the vectors, so a view moves but never copies.
struct HistoryView {
  std::vector<HistoryRun> runs;
  std::vector<HistoryPoint> points;
  std::vector<Series> series;
  std::vector<SeriesChange> changes;

  HistoryView() = default;
  HistoryView(HistoryView&&) = default;
  HistoryView& operator=(HistoryView&&) = default;
  HistoryView(const HistoryView&) = delete;
  HistoryView& operator=(const HistoryView&) = delete;
};

// The view of these runs and points, with the change points of every series.
HistoryView make_view(std::vector<HistoryRun> runs, std::vector<HistoryPoint> points,
                      const stats::ChangePointOptions& options);

// Reads `store` and makes its view.
Expected<HistoryView> read_view(const HistoryStore& store,
                                const stats::ChangePointOptions& options);

// The history before and after the run `run_id` was added, from one read of `store`,
// so runs that other writers add meanwhile are in both or neither.
struct ViewsAroundRun {
  HistoryView before;
  HistoryView after;
};
Expected<ViewsAroundRun> read_views_around(const HistoryStore& store, std::int64_t run_id,
                                           const stats::ChangePointOptions& options);

}  // namespace storh::history
