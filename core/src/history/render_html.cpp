// history show --format=html: trend charts of the history (report/html.h, chart kind
// "trend" in docs/html-report.md).
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <unordered_map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "history/render.h"
#include "report/format.h"
#include "report/html.h"
#include "stats/stats.h"

namespace storh::history {
namespace {

using report::html_escape;

bool is_time(const Series& series) {
  return series.direction == result::MetricDirection::lower_is_better;
}

// The x axis column of a run: its commit, or the run itself when it has none.
std::string column_key(const HistoryRun& run) {
  return run.commit.empty() ? "run " + std::to_string(run.id) : run.commit;
}

std::string column_label(const HistoryRun& run) {
  return run.commit.empty() ? run.run_time : run.commit.substr(0, 8);
}

// All series of one suite and metric (one per environment) in one trend chart. The x
// axis has one column per commit, in the order of its first run, so machines that ran
// the same commit line up; a commit a series ran more than once shows the median of
// those runs (the table lists each). An environment without a run of a commit has a gap.
std::string trend_figure(const std::vector<const Series*>& group,
                         const std::vector<SeriesChange>& changes,
                         const std::unordered_map<std::int64_t, std::size_t>& order,
                         report::HtmlCharts& charts) {
  std::vector<const HistoryRun*> runs;
  for (const Series* series : group)
    runs.insert(runs.end(), series->runs.begin(), series->runs.end());
  std::stable_sort(runs.begin(), runs.end(),
                   [&](const auto* a, const auto* b) { return order.at(a->id) < order.at(b->id); });
  std::unordered_map<std::string, std::size_t> column;
  nlohmann::json labels = nlohmann::json::array();
  for (const HistoryRun* run : runs) {
    if (column.emplace(column_key(*run), labels.size()).second)
      labels.push_back(column_label(*run));
  }
  nlohmann::json series_json = nlohmann::json::array();
  for (const Series* series : group) {
    std::vector<std::vector<double>> at(labels.size());
    for (std::size_t i = 0; i < series->runs.size(); ++i) {
      at[column.at(column_key(*series->runs[i]))].push_back(series->medians[i]);
    }
    nlohmann::json values = nlohmann::json::array();
    for (const auto& medians : at) {
      values.push_back(medians.empty() ? nlohmann::json(nullptr)
                                       : nlohmann::json(stats::summarize(medians).median));
    }
    nlohmann::json marks = nlohmann::json::array();
    for (const SeriesChange& change : changes) {
      if (change.series == series) marks.push_back(column.at(column_key(*change.run)));
    }
    series_json.push_back({{"label", fmt::format("E{}", series->environment_number)},
                           {"values", std::move(values)},
                           {"changes", std::move(marks)}});
  }
  const Series& first = *group.front();
  return charts.figure({{"kind", "trend"},
                        {"labels", std::move(labels)},
                        {"seconds", is_time(first)},
                        {"unit", first.unit},
                        {"series", std::move(series_json)}},
                       fmt::format("{}: the median of each commit's run, oldest first, on an "
                                   "axis from zero (so run-to-run noise looks as small as it "
                                   "is); triangles mark change points",
                                   first.metric),
                       280);
}

std::string series_table(const Series& series, const std::vector<SeriesChange>& changes) {
  const HistoryTable table = runs_table(series, changes);
  return fmt::format("<details><summary>E{}: {} run{}</summary>\n{}</details>\n",
                     series.environment_number, series.runs.size(),
                     series.runs.size() == 1 ? "" : "s",
                     report::html_table(table.columns, table.rows));
}

std::string changes_section(const std::vector<SeriesChange>& changes) {
  std::string out =
      fmt::format("<section id=\"changes\"><h2>Change points ({})</h2>\n", changes.size());
  if (changes.empty()) return out + "<p>No metric changed significantly.</p>\n</section>\n";
  const HistoryTable table = changes_table(changes);
  return out + report::html_table(table.columns, table.rows) + "</section>\n";
}

}  // namespace

std::string history_html(const std::vector<Series>& series,
                         const std::vector<SeriesChange>& changes,
                         const std::vector<std::string>& environments,
                         const report::HtmlAssets& assets) {
  std::unordered_map<std::int64_t, std::size_t> order;  // run id -> position in time
  {
    std::set<std::pair<std::string, std::int64_t>> all;
    for (const Series& one : series) {
      for (const HistoryRun* run : one.runs) all.insert({run->run_time, run->id});
    }
    for (const auto& [time, id] : all) order.emplace(id, order.size());
  }
  // One chart per suite and metric, its environments as lines.
  std::vector<std::vector<const Series*>> groups;
  for (const Series& one : series) {
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& group) {
      return group.front()->suite == one.suite && group.front()->metric == one.metric;
    });
    if (it == groups.end()) it = groups.insert(groups.end(), std::vector<const Series*>{});
    it->push_back(&one);
  }
  report::HtmlCharts charts;
  std::string body = "<h1>storh-host run history</h1>\n";
  body += fmt::format("<p>{} series over {} run(s); {} change point(s).</p>\n", series.size(),
                      order.size(), changes.size());
  body += changes_section(changes);
  std::string suite;
  for (const auto& group : groups) {
    const Series& first = *group.front();
    if (first.suite != suite) {
      suite = first.suite;
      body += fmt::format("<h2>Suite {}</h2>\n", html_escape(suite));
    }
    body += fmt::format("<section class=\"metric\"><h3>{}</h3>\n", html_escape(first.metric));
    body += trend_figure(group, changes, order, charts);
    for (const Series* one : group) body += series_table(*one, changes);
    body += "</section>\n";
  }
  body += "<section id=\"environments\"><h2>Environments</h2>\n<dl>\n";
  for (std::size_t i = 0; i < environments.size(); ++i) {
    body += fmt::format("<dt>E{}</dt><dd>{}</dd>\n", i + 1, html_escape(environments[i]));
  }
  body += "</dl>\n</section>\n";
  return report::html_page("storh-host run history", body, charts, assets);
}

}  // namespace storh::history
