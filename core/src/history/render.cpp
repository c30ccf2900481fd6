// history/render.cpp: the history as text, JSON, CSV and an HTML page.
#include "history/render.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "report/format.h"
#include "report/html.h"
#include "report/table.h"
#include "result/engine_values.h"

namespace storh::history {
namespace {

using report::Align;
using report::Column;
using report::Rows;

std::string or_dash(const std::string& text) {
  return text.empty() ? "-" : text;
}

std::string ratio_text(const SeriesChange& change) {
  return fmt::format("x{:.3f}", change.ratio());
}

std::string p_text(double p) {
  return p < 1e-4 ? fmt::format("{:.1e}", p) : fmt::format("{:.4f}", p);
}

// The changes of `series`, by the index of the first run after each.
std::map<std::size_t, const SeriesChange*> changes_of(const Series& series,
                                                      const std::vector<SeriesChange>& changes) {
  std::map<std::size_t, const SeriesChange*> found;
  for (const SeriesChange& change : changes) {
    if (change.series == &series) found[change.point.index] = &change;
  }
  return found;
}

std::string environments_text(const std::vector<std::string>& environments) {
  std::string out = "\nEnvironments (series of different environments are never mixed):\n";
  for (std::size_t i = 0; i < environments.size(); ++i) {
    out += fmt::format("  E{}: {}\n", i + 1, environments[i]);
  }
  return out;
}

std::string change_note(const SeriesChange& change) {
  std::string note = change.worse() ? "worse" : "better";
  if (change.plan_changed) {
    note += fmt::format("; the suite's plan changed here (fingerprint {} -> {})",
                        change.previous->fingerprint, change.run->fingerprint);
  }
  return note;
}

}  // namespace

std::string median_text(const Series& series, double value) {
  if (series.direction == result::MetricDirection::lower_is_better) {
    return report::format_seconds(value);
  }
  return fmt::format("{:.4g} {}", value, series.unit);
}

std::string short_commit(const HistoryRun& run) {
  return run.commit.empty() ? "-" : run.commit.substr(0, 12);
}

std::string overview_text(const std::vector<Series>& series,
                          const std::vector<SeriesChange>& changes,
                          const std::vector<std::string>& environments) {
  if (series.empty()) return "The history has no runs.\n";
  const std::vector<Column> columns = {{"metric"},
                                       {"env"},
                                       {"runs", Align::right},
                                       {"latest", Align::right},
                                       {"lowest", Align::right},
                                       {"highest", Align::right},
                                       {"changes", Align::right},
                                       {"latest commit"}};
  Rows rows;
  std::string suite;
  std::string out;
  auto flush = [&] {
    if (!rows.empty())
      out += fmt::format("Suite {}:\n{}", suite, report::text_table(columns, rows));
    rows.clear();
  };
  for (const Series& one : series) {
    if (one.suite != suite) {
      flush();
      if (!out.empty()) out += '\n';
      suite = one.suite;
    }
    const auto [low, high] = std::minmax_element(one.medians.begin(), one.medians.end());
    rows.push_back(
        {one.metric, fmt::format("E{}", one.environment_number), std::to_string(one.medians.size()),
         median_text(one, one.medians.back()), median_text(one, *low), median_text(one, *high),
         std::to_string(changes_of(one, changes).size()), short_commit(*one.runs.back())});
  }
  flush();
  return out + environments_text(environments);
}

HistoryTable runs_table(const Series& series, const std::vector<SeriesChange>& changes) {
  HistoryTable table;
  table.columns = {{"#", Align::right},
                   {"run time"},
                   {"commit"},
                   {"branch"},
                   {"median", Align::right},
                   {"min", Align::right},
                   {"max", Align::right},
                   {"repeats", Align::right},
                   {"change"}};
  const auto marks = changes_of(series, changes);
  for (std::size_t i = 0; i < series.runs.size(); ++i) {
    const HistoryRun& run = *series.runs[i];
    const HistoryPoint& point = series.points[i];
    std::string mark;
    if (auto it = marks.find(i); it != marks.end()) {
      mark = fmt::format("<- change {} (p {})", ratio_text(*it->second),
                         p_text(it->second->point.p_value));
    }
    table.rows.push_back({std::to_string(i + 1), run.run_time, short_commit(run),
                          or_dash(run.branch), median_text(series, point.median),
                          median_text(series, point.minimum), median_text(series, point.maximum),
                          std::to_string(point.runs), mark});
  }
  return table;
}

HistoryTable changes_table(const std::vector<SeriesChange>& changes) {
  HistoryTable table;
  table.columns = {{"metric"},
                   {"env"},
                   {"commit"},
                   {"run time"},
                   {"before", Align::right},
                   {"after", Align::right},
                   {"ratio", Align::right},
                   {"p", Align::right},
                   {"note"}};
  for (const SeriesChange& change : changes) {
    const Series& one = *change.series;
    table.rows.push_back({one.metric, fmt::format("E{}", one.environment_number),
                          short_commit(*change.run), change.run->run_time,
                          median_text(one, change.point.median_before),
                          median_text(one, change.point.median_after), ratio_text(change),
                          p_text(change.point.p_value), change_note(change)});
  }
  return table;
}

std::string series_text(const std::vector<Series>& series, const std::vector<SeriesChange>& changes,
                        const std::vector<std::string>& environments) {
  std::string out;
  for (const Series& one : series) {
    const HistoryTable table = runs_table(one, changes);
    if (!out.empty()) out += '\n';
    out += fmt::format("{} in suite {}, E{}:\n{}", one.metric, one.suite, one.environment_number,
                       report::text_table(table.columns, table.rows));
  }
  return out + environments_text(environments);
}

std::string changes_text(const std::vector<SeriesChange>& changes,
                         const stats::ChangePointOptions& options) {
  std::string out = fmt::format(
      "Change points (E-divisive means, Welch t-test p < {}, at least {} runs each side): {}\n",
      options.max_p_value, options.min_segment, changes.size());
  if (changes.empty()) return out;
  const HistoryTable table = changes_table(changes);
  return out + report::text_table(table.columns, table.rows);
}

std::string new_changes_text(const std::vector<SeriesChange>& changes) {
  std::string out;
  for (const SeriesChange& change : changes) {
    const Series& one = *change.series;
    out += fmt::format(
        "history: new change point in {} (E{}) at commit {} ({}): median {} -> {} ({}, p {}), "
        "{}\n",
        one.metric, one.environment_number, short_commit(*change.run), change.run->run_time,
        median_text(one, change.point.median_before), median_text(one, change.point.median_after),
        ratio_text(change), p_text(change.point.p_value), change_note(change));
  }
  return out;
}

std::string export_json(const std::vector<HistoryRun>& runs,
                        const std::vector<HistoryPoint>& points,
                        const std::optional<std::vector<std::string>>& results) {
  std::unordered_map<std::int64_t, nlohmann::ordered_json> metrics;
  for (const HistoryPoint& point : points) {
    metrics[point.run_id][point.metric] = {
        {"median", point.median}, {"min", point.minimum},
        {"max", point.maximum},   {"runs", point.runs},
        {"unit", point.unit},     {"direction", result::direction_name(point.direction)}};
  }
  nlohmann::ordered_json out = {{"history_schema", kHistorySchema},
                                {"runs", nlohmann::ordered_json::array()}};
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const HistoryRun& run = runs[i];
    nlohmann::ordered_json one = {{"id", run.id},
                                  {"commit", run.commit},
                                  {"branch", run.branch},
                                  {"run_time", run.run_time},
                                  {"added_time", run.added_time},
                                  {"suite", run.suite},
                                  {"fingerprint", run.fingerprint},
                                  {"environment", run.environment},
                                  {"host_version", run.host_version},
                                  {"result_hash", run.result_hash}};
    auto found = metrics.find(run.id);
    one["metrics"] = found != metrics.end() ? found->second : nlohmann::ordered_json::object();
    if (results) {
      // Stored by add() from a result it had read; should a database hold something
      // else there, the text goes out as a string rather than stopping the export.
      nlohmann::ordered_json parsed = nlohmann::ordered_json::parse(results->at(i), nullptr, false);
      one["result"] = parsed.is_discarded() ? nlohmann::ordered_json(results->at(i)) : parsed;
    }
    out["runs"].push_back(std::move(one));
  }
  // Invalid UTF-8 (a --branch given in another encoding) is replaced, not thrown.
  return out.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

std::string export_csv(const std::vector<HistoryRun>& runs,
                       const std::vector<HistoryPoint>& points) {
  std::unordered_map<std::int64_t, const HistoryRun*> by_id;
  for (const HistoryRun& run : runs) by_id[run.id] = &run;
  std::string out = report::csv_line({"run_id", "run_time", "commit", "branch", "suite",
                                      "fingerprint", "environment", "metric", "median", "min",
                                      "max", "runs", "unit", "direction"});
  std::vector<const HistoryPoint*> ordered;
  for (const HistoryPoint& point : points) {
    if (by_id.count(point.run_id)) ordered.push_back(&point);
  }
  std::unordered_map<std::int64_t, std::size_t> position;
  for (std::size_t i = 0; i < runs.size(); ++i) position[runs[i].id] = i;
  std::stable_sort(ordered.begin(), ordered.end(), [&](const auto* a, const auto* b) {
    return position[a->run_id] < position[b->run_id];
  });
  for (const HistoryPoint* point : ordered) {
    const HistoryRun& run = *by_id.at(point->run_id);
    out += report::csv_line({std::to_string(run.id), run.run_time, run.commit, run.branch,
                             run.suite, run.fingerprint, run.environment, point->metric,
                             fmt::format("{}", point->median), fmt::format("{}", point->minimum),
                             fmt::format("{}", point->maximum), std::to_string(point->runs),
                             point->unit, result::direction_name(point->direction)});
  }
  return out;
}

}  // namespace storh::history
