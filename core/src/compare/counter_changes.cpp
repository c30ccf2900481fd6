#include "compare/counter_changes.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "compare/render.h"
#include "count/counters.h"
#include "report/counters_section.h"

namespace storh::compare {
namespace {

std::optional<double> value_of(const ComparableMetric& metric, std::string_view name) {
  for (const auto& [counter, value] : metric.counters) {
    if (counter == name) return value;
  }
  return std::nullopt;
}

bool is_engine(const ComparableMetric& metric, std::string_view name) {
  return std::any_of(metric.engine_counters.begin(), metric.engine_counters.end(),
                     [&](const result::EngineCounterValue& c) { return c.name == name; });
}

bool counted(const ComparableMetric& metric) {
  return !metric.counters.empty() || !metric.not_counted.empty();
}

// Every counter name of either side, in the stable counter order.
std::vector<std::string> names_of(const ComparableMetric& base, const ComparableMetric& next) {
  std::vector<std::string> names;
  for (const ComparableMetric* side : {&base, &next}) {
    for (const auto& [counter, value] : side->counters) names.push_back(counter);
  }
  return count::in_counter_order(names);
}

std::string side_text(const std::optional<double>& value, const std::string& not_counted) {
  if (!not_counted.empty()) return "not counted";
  return value ? report::counter_value_text(*value) : std::string(report::kAbsent);
}

}  // namespace

std::vector<CounterChange> counter_changes(const PairComparison& comparison) {
  std::vector<CounterChange> changes;
  for (const PairRow& row : comparison.rows) {
    if (row.status != RowStatus::both || !row.base || !row.next) continue;
    const ComparableMetric& base = *row.base;
    const ComparableMetric& next = *row.next;
    if (!counted(base) && !counted(next)) continue;
    if (!base.not_counted.empty() || !next.not_counted.empty()) {
      changes.push_back(
          {row.key, "-", std::nullopt, std::nullopt, base.not_counted, next.not_counted});
      continue;
    }
    for (const std::string& name : names_of(base, next)) {
      const std::optional<double> a = value_of(base, name);
      const std::optional<double> b = value_of(next, name);
      if (a.value_or(0) == 0 && b.value_or(0) == 0) continue;
      changes.push_back(
          {row.key, name, a, b, "", "", is_engine(base, name) || is_engine(next, name)});
    }
  }
  return changes;
}

std::string counter_changes_title(const PairComparison& comparison,
                                  const std::vector<CounterChange>& changes, bool capital) {
  const bool engine =
      std::any_of(changes.begin(), changes.end(), [](const CounterChange& c) { return c.engine; });
  const bool other =
      std::any_of(changes.begin(), changes.end(), [](const CounterChange& c) { return !c.engine; });
  // A Google Benchmark file's counters are its own; a storh-host file's, its counting
  // pass's.
  const bool foreign = comparison.base_kind == FileKind::google_benchmark ||
                       comparison.new_kind == FileKind::google_benchmark;
  const std::string others = foreign ? "from the files" : "counting pass";
  std::string title = engine && other
                          ? fmt::format("counters per item ({} and the engine's own)", others)
                      : engine ? std::string("engine counters per item")
                               : fmt::format("counters per item ({})", others);
  if (capital) title[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(title[0])));
  return title;
}

std::string counter_change_text(const CounterChange& change) {
  if (!change.base || !change.next) return report::kAbsent;
  if (*change.base == 0) {
    return *change.next == 0 ? format_percent(0) : std::string("+inf%");
  }
  return format_percent((*change.next - *change.base) / *change.base * 100);
}

std::pair<std::vector<report::Column>, report::Rows> counter_changes_table(
    const std::vector<CounterChange>& changes, bool code) {
  using report::Align;
  std::vector<report::Column> columns = {{"metric", Align::left},
                                         {"counter per item", Align::left},
                                         {"base", Align::right},
                                         {"new", Align::right},
                                         {"change", Align::right}};
  report::Rows rows;
  rows.reserve(changes.size());
  for (const CounterChange& change : changes) {
    rows.push_back({code ? fmt::format("`{}`", change.key) : change.key, change.counter,
                    side_text(change.base, change.base_not_counted),
                    side_text(change.next, change.next_not_counted), counter_change_text(change)});
  }
  return {std::move(columns), std::move(rows)};
}

}  // namespace storh::compare
