// history/series.cpp: series of a history and their change points.
#include "history/series.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <unordered_map>

namespace storh::history {

std::vector<std::string> environments(const std::vector<HistoryRun>& runs) {
  std::vector<std::string> found;
  for (const HistoryRun& run : runs) {
    if (std::find(found.begin(), found.end(), run.environment) == found.end()) {
      found.push_back(run.environment);
    }
  }
  return found;
}

std::vector<Series> build_series(const std::vector<HistoryRun>& runs,
                                 const std::vector<HistoryPoint>& points) {
  const std::vector<std::string> envs = environments(runs);
  std::unordered_map<std::int64_t, std::size_t> position;  // run id -> index in runs
  for (std::size_t i = 0; i < runs.size(); ++i) position[runs[i].id] = i;

  // Points in run order, so each series comes out oldest first.
  std::vector<const HistoryPoint*> ordered;
  for (const HistoryPoint& point : points) {
    if (position.count(point.run_id)) ordered.push_back(&point);
  }
  std::stable_sort(ordered.begin(), ordered.end(), [&](const auto* a, const auto* b) {
    return position.at(a->run_id) < position.at(b->run_id);
  });
  using Key = std::tuple<std::string, std::size_t, std::string>;  // suite, env number, metric
  std::map<Key, Series> series;
  for (const HistoryPoint* point : ordered) {
    const HistoryRun& run = runs[position.at(point->run_id)];
    const std::size_t env =
        static_cast<std::size_t>(std::find(envs.begin(), envs.end(), run.environment) -
                                 envs.begin()) +
        1;
    Series& one = series[{run.suite, env, point->metric}];
    if (one.runs.empty()) {
      one.suite = run.suite;
      one.environment = run.environment;
      one.environment_number = env;
      one.metric = point->metric;
    }
    // The latest unit and direction describe the series.
    one.unit = point->unit;
    one.direction = point->direction;
    one.runs.push_back(&run);
    one.points.push_back(*point);
    one.medians.push_back(point->median);
  }
  std::vector<Series> out;
  out.reserve(series.size());
  for (auto& [key, one] : series) out.push_back(std::move(one));
  return out;
}

double SeriesChange::ratio() const {
  return point.median_before == 0 ? 0 : point.median_after / point.median_before;
}

bool SeriesChange::worse() const {
  const bool higher_better =
      series && series->direction == result::MetricDirection::higher_is_better;
  return higher_better ? point.median_after < point.median_before
                       : point.median_after > point.median_before;
}

std::vector<SeriesChange> find_changes(const std::vector<Series>& series,
                                       const stats::ChangePointOptions& options) {
  std::vector<SeriesChange> changes;
  for (const Series& one : series) {
    for (const stats::ChangePoint& point : stats::find_change_points(one.medians, options)) {
      SeriesChange change;
      change.series = &one;
      change.point = point;
      change.run = one.runs.at(point.index);
      change.previous = one.runs.at(point.index - 1);
      change.plan_changed = change.run->fingerprint != change.previous->fingerprint;
      changes.push_back(change);
    }
  }
  return changes;
}

std::vector<SeriesChange> new_changes(const std::vector<SeriesChange>& before,
                                      const std::vector<SeriesChange>& after,
                                      std::size_t tolerance) {
  auto same_series = [](const Series& a, const Series& b) {
    return a.suite == b.suite && a.environment == b.environment && a.metric == b.metric;
  };
  std::vector<SeriesChange> added;
  for (const SeriesChange& change : after) {
    const bool known = std::any_of(before.begin(), before.end(), [&](const SeriesChange& old) {
      const std::size_t distance = old.point.index > change.point.index
                                       ? old.point.index - change.point.index
                                       : change.point.index - old.point.index;
      return same_series(*old.series, *change.series) && distance <= tolerance;
    });
    if (!known) added.push_back(change);
  }
  return added;
}

HistoryView make_view(std::vector<HistoryRun> runs, std::vector<HistoryPoint> points,
                      const stats::ChangePointOptions& options) {
  HistoryView view;
  view.runs = std::move(runs);
  view.points = std::move(points);
  view.series = build_series(view.runs, view.points);
  view.changes = find_changes(view.series, options);
  return view;
}

Expected<HistoryView> read_view(const HistoryStore& store,
                                const stats::ChangePointOptions& options) {
  Expected<std::vector<HistoryRun>> runs = store.runs();
  if (!runs) return Error{runs.error()};
  Expected<std::vector<HistoryPoint>> points = store.points();
  if (!points) return Error{points.error()};
  return make_view(std::move(*runs), std::move(*points), options);
}

Expected<ViewsAroundRun> read_views_around(const HistoryStore& store, std::int64_t run_id,
                                           const stats::ChangePointOptions& options) {
  Expected<std::vector<HistoryRun>> runs = store.runs();
  if (!runs) return Error{runs.error()};
  Expected<std::vector<HistoryPoint>> points = store.points();
  if (!points) return Error{points.error()};
  std::vector<HistoryRun> runs_before;
  std::copy_if(runs->begin(), runs->end(), std::back_inserter(runs_before),
               [&](const HistoryRun& run) { return run.id != run_id; });
  std::vector<HistoryPoint> points_before;
  std::copy_if(points->begin(), points->end(), std::back_inserter(points_before),
               [&](const HistoryPoint& point) { return point.run_id != run_id; });
  ViewsAroundRun views{make_view(std::move(runs_before), std::move(points_before), options),
                       make_view(std::move(*runs), std::move(*points), options)};
  return views;
}

}  // namespace storh::history
