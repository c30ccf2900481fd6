// Rendering a two-file comparison in every format, and the number formats that all
// compare and gate renderers share.
#include <algorithm>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "compare/counter_changes.h"
#include "compare/explain.h"
#include "compare/render.h"
#include "report/format.h"
#include "report/table.h"
#include "result/engine_values.h"

namespace storh::compare {
namespace {

using nlohmann::ordered_json;
using report::Align;
using report::Column;
using report::kAbsent;

std::string runs_text(const std::optional<ComparableMetric>& metric) {
  if (!metric) return kAbsent;
  return metric->runs == 0 ? std::string("?") : std::to_string(metric->runs);
}

std::string median_text(const std::optional<ComparableMetric>& metric) {
  return metric ? format_value(metric->direction, metric->median) : kAbsent;
}

// "±2.50%", or "unmeasured" when neither side has a spread (so the verdict is same).
std::string noise_text(const PairRow& row) {
  if (row.status != RowStatus::both) return "";
  return row.noise_percent ? fmt::format("±{:.2f}%", *row.noise_percent) : "unmeasured";
}

Verdict geomean_verdict(double ratio) {
  return ratio > 1 ? Verdict::slower : ratio < 1 ? Verdict::faster : Verdict::same;
}

// The table rows of text and md; `code` wraps metric keys for Markdown.
report::Rows table_rows(const PairComparison& c, bool markdown) {
  report::Rows rows;
  for (const PairRow& row : c.rows) {
    const bool both = row.status == RowStatus::both;
    rows.push_back({markdown ? "`" + row.key + "`" : row.key, median_text(row.base),
                    median_text(row.next), both ? format_percent(row.delta_percent) : "",
                    noise_text(row), std::string(verdict_name(row.verdict)),
                    fmt::format("{}/{}", runs_text(row.base), runs_text(row.next)),
                    row.significance ? row.significance->text : ""});
  }
  const std::string label = fmt::format("geomean ({})", c.geomean.metrics);
  if (c.geomean.ratio) {
    const double ratio = *c.geomean.ratio;
    rows.push_back({markdown ? "**" + label + "**" : label, "", "",
                    format_percent((ratio - 1) * 100), "",
                    std::string(verdict_name(geomean_verdict(ratio))), "", ""});
  } else {
    rows.push_back({label, "", "", "", "", "no metric on both sides", "", ""});
  }
  return rows;
}

const std::vector<Column>& pair_columns() {
  static const std::vector<Column> columns = {
      {"metric", Align::left}, {"base", Align::right},       {"new", Align::right},
      {"delta", Align::right}, {"noise", Align::right},      {"verdict", Align::left},
      {"runs", Align::right},  {"significance", Align::left}};
  return columns;
}

std::string skipped_note(const Geomean& geomean) {
  if (geomean.skipped == 0) return "";
  return fmt::format("geomean leaves out {} metric{} with a zero median\n", geomean.skipped,
                     geomean.skipped == 1 ? "" : "s");
}

std::string render_text(const PairComparison& c) {
  std::string out =
      fmt::format("base: {} ({})\nnew:  {} ({})\n\n", c.base_name, file_kind_name(c.base_kind),
                  c.new_name, file_kind_name(c.new_kind));
  out += report::text_table(pair_columns(), table_rows(c, false));
  out += skipped_note(c.geomean);
  if (const auto changes = counter_changes(c); !changes.empty()) {
    const auto [columns, rows] = counter_changes_table(changes);
    out += "\n" + counter_changes_title(c, changes) + ":\n" + report::text_table(columns, rows);
  }
  if (const auto lines = engine_counter_explanations(c); !lines.empty()) {
    out += "\nengine counters that changed with it:\n";
    for (const std::string& line : lines) out += "  " + line + "\n";
  }
  return out;
}

std::string render_markdown(const PairComparison& c) {
  std::string out = "### storh-host compare\n\n";
  out += fmt::format("Base `{}` ({}) vs new `{}` ({}).\n\n", report::markdown_cell(c.base_name),
                     file_kind_name(c.base_kind), report::markdown_cell(c.new_name),
                     file_kind_name(c.new_kind));
  for (const std::string& warning : c.warnings) {
    out += fmt::format("> **Warning:** {}\n\n", report::markdown_cell(warning));
  }
  out += report::markdown_table(pair_columns(), table_rows(c, true));
  out += fmt::format("\n{}\n", pair_explanation(c));
  if (c.geomean.skipped > 0) out += fmt::format("\n{}", skipped_note(c.geomean));
  if (const auto changes = counter_changes(c); !changes.empty()) {
    const auto [columns, rows] = counter_changes_table(changes, true);
    out += "\n" + counter_changes_title(c, changes, true) + ":\n\n" +
           report::markdown_table(columns, rows);
  }
  if (const auto lines = engine_counter_explanations(c); !lines.empty()) {
    out += "\nEngine counters that changed with it:\n\n";
    for (const std::string& line : lines) out += "- " + report::markdown_cell(line) + "\n";
  }
  return out;
}

std::string number(double value) {
  return fmt::format("{}", value);
}

// The counter names of the changes, in the order they first appear (the stable
// counter order within a metric).
std::vector<std::string> change_names(const std::vector<CounterChange>& changes) {
  std::vector<std::string> names;
  for (const CounterChange& change : changes) {
    if (change.counter != "-" &&
        std::find(names.begin(), names.end(), change.counter) == names.end()) {
      names.push_back(change.counter);
    }
  }
  return names;
}

// A row's counter cells: base and new per counter, "not counted" for a side the
// counters could not see, empty where a side has no such counter.
std::vector<std::string> change_cells(const std::string& key,
                                      const std::vector<CounterChange>& changes,
                                      const std::vector<std::string>& names) {
  std::vector<std::string> cells(names.size() * 2);
  for (const CounterChange& change : changes) {
    if (change.key != key) continue;
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (change.counter == "-") {
        cells[2 * i] = change.base_not_counted.empty() ? "" : "not counted";
        cells[2 * i + 1] = change.next_not_counted.empty() ? "" : "not counted";
      } else if (change.counter == names[i]) {
        cells[2 * i] = change.base ? number(*change.base) : "";
        cells[2 * i + 1] = change.next ? number(*change.next) : "";
      }
    }
  }
  return cells;
}

std::string render_csv(const PairComparison& c) {
  std::vector<std::string> header = {"metric",      "status",     "unit",          "direction",
                                     "base_median", "new_median", "delta_percent", "noise_percent",
                                     "verdict",     "base_runs",  "new_runs",      "p_value",
                                     "significance"};
  // Counter columns only when some metric was counted, so other comparisons keep their form.
  const std::vector<CounterChange> changes = counter_changes(c);
  const std::vector<std::string> names = change_names(changes);
  for (const std::string& name : names) {
    header.push_back(name + "_base");
    header.push_back(name + "_new");
  }
  std::string out = report::csv_line(header);
  const std::size_t width = header.size();
  for (const PairRow& row : c.rows) {
    const ComparableMetric& any = row.base ? *row.base : *row.next;
    const bool tested = row.significance && row.significance->test;
    std::vector<std::string> fields = {
        row.key,
        row.status == RowStatus::both ? "both" : std::string(verdict_name(row.verdict)),
        any.unit,
        result::direction_name(any.direction),
        row.base ? number(row.base->median) : "",
        row.next ? number(row.next->median) : "",
        row.status == RowStatus::both ? number(row.delta_percent) : "",
        row.noise_percent ? number(*row.noise_percent) : "",
        std::string(verdict_name(row.verdict)),
        row.base ? std::to_string(row.base->runs) : "",
        row.next ? std::to_string(row.next->runs) : "",
        tested ? number(row.significance->test->p_value) : "",
        row.significance ? row.significance->text : ""};
    const std::vector<std::string> cells = change_cells(row.key, changes, names);
    fields.insert(fields.end(), cells.begin(), cells.end());
    out += report::csv_line(fields);
  }
  const std::optional<double> ratio = c.geomean.ratio;
  std::vector<std::string> geomean = {
      "geomean",
      "summary",
      "",
      "",
      "",
      "",
      ratio ? number((*ratio - 1) * 100) : "",
      "",
      ratio ? std::string(verdict_name(geomean_verdict(*ratio))) : "",
      "",
      "",
      "",
      ""};
  geomean.resize(width);
  out += report::csv_line(geomean);
  return out;
}

ordered_json side_json(const std::optional<ComparableMetric>& metric) {
  if (!metric) return nullptr;
  ordered_json side = {{"median", metric->median},
                       {"min", metric->min},
                       {"max", metric->max},
                       {"runs", metric->runs},
                       {"samples", metric->samples}};
  // Only for counted files, so other comparisons keep their form.
  if (!metric->counters.empty()) {
    ordered_json counters = ordered_json::object();
    for (const auto& [name, value] : metric->counters) counters[name] = value;
    side["counters"] = std::move(counters);
  }
  if (!metric->not_counted.empty()) side["not_counted"] = metric->not_counted;
  return side;
}

std::string render_json(const PairComparison& c) {
  ordered_json metrics = ordered_json::array();
  for (const PairRow& row : c.rows) {
    const ComparableMetric& any = row.base ? *row.base : *row.next;
    ordered_json significance = nullptr;
    if (row.significance) {
      const auto& s = *row.significance;
      significance = {{"p_value", s.test ? ordered_json(s.test->p_value) : ordered_json(nullptr)},
                      {"u", s.test ? ordered_json(s.test->u) : ordered_json(nullptr)},
                      {"exact", s.test ? ordered_json(s.test->exact) : ordered_json(nullptr)},
                      {"significant", s.significant},
                      {"text", s.text}};
    }
    const bool both = row.status == RowStatus::both;
    metrics.push_back(
        {{"key", row.key},
         {"status", both ? "both" : std::string(verdict_name(row.verdict))},
         {"unit", any.unit},
         {"direction", result::direction_name(any.direction)},
         {"base", side_json(row.base)},
         {"new", side_json(row.next)},
         {"delta_percent", both ? ordered_json(row.delta_percent) : ordered_json(nullptr)},
         {"noise_percent",
          row.noise_percent ? ordered_json(*row.noise_percent) : ordered_json(nullptr)},
         {"verdict", verdict_name(row.verdict)},
         {"significance", significance}});
  }
  const std::optional<double> ratio = c.geomean.ratio;
  const ordered_json root = {
      {"base", {{"file", c.base_name}, {"kind", file_kind_name(c.base_kind)}}},
      {"new", {{"file", c.new_name}, {"kind", file_kind_name(c.new_kind)}}},
      {"alpha", c.alpha},
      {"warnings", c.warnings},
      {"metrics", metrics},
      {"geomean",
       {{"ratio", ratio ? ordered_json(*ratio) : ordered_json(nullptr)},
        {"delta_percent", ratio ? ordered_json((*ratio - 1) * 100) : ordered_json(nullptr)},
        {"verdict",
         ratio ? ordered_json(verdict_name(geomean_verdict(*ratio))) : ordered_json(nullptr)},
        {"metrics", c.geomean.metrics},
        {"skipped", c.geomean.skipped}}}};
  return root.dump(2) + "\n";
}

}  // namespace

std::string pair_explanation(const PairComparison& comparison) {
  return fmt::format(
      "Delta is (new - base) / base. Noise: a delta within the larger coefficient of "
      "variation of the two sides (at least {}%) is `same`, and so is any delta between "
      "single runs. Geomean: direction-normalised ratios of the metrics on both sides. "
      "Significance: two-sided Mann-Whitney U test at alpha {}.",
      kNoiseFloorPercent, comparison.alpha);
}

std::pair<std::vector<Column>, report::Rows> pair_table(const PairComparison& comparison) {
  return {pair_columns(), table_rows(comparison, false)};
}

std::optional<OutputFormat> parse_output_format(std::string_view name) {
  if (name == "text") return OutputFormat::text;
  if (name == "md" || name == "markdown") return OutputFormat::markdown;
  if (name == "csv") return OutputFormat::csv;
  if (name == "json") return OutputFormat::json;
  return std::nullopt;
}

std::string format_value(result::MetricDirection direction, double value) {
  return direction == result::MetricDirection::lower_is_better ? report::format_seconds(value)
                                                               : fmt::format("{:.4g}", value);
}

std::string format_percent(double percent) {
  return fmt::format("{:+.2f}%", percent);
}

std::string format_ratio(double ratio) {
  return fmt::format("x{:.3f}", ratio);
}

std::string render_pair(const PairComparison& comparison, OutputFormat format) {
  switch (format) {
    case OutputFormat::text:
      return render_text(comparison);
    case OutputFormat::markdown:
      return render_markdown(comparison);
    case OutputFormat::csv:
      return render_csv(comparison);
    case OutputFormat::json:
      return render_json(comparison);
  }
  return "";
}

}  // namespace storh::compare
