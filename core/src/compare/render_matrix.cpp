// Rendering an N-file comparison (metrics as rows, files as columns) in every format.
#include <filesystem>
#include <set>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "compare/render.h"
#include "report/table.h"
#include "result/engine_values.h"

namespace storh::compare {
namespace {

using nlohmann::ordered_json;
using report::Align;
using report::Column;
using report::kAbsent;

std::string cell_text(const MatrixRow& row, std::size_t i) {
  const MatrixCell& cell = row.cells[i];
  if (!cell.median) return kAbsent;
  std::string text = format_value(row.direction, *cell.median);
  if (i > 0)
    text += fmt::format(" {}", cell.ratio ? format_ratio(*cell.ratio) : std::string(kAbsent));
  return text;
}

std::string geomean_text(const Geomean& geomean) {
  if (!geomean.ratio) return kAbsent;
  return fmt::format("{} ({})", format_ratio(*geomean.ratio), geomean.metrics);
}

// Column headers: each file's base name when those are unique (paths make wide
// tables), else the names as given. The legend above the table has the full names.
std::vector<Column> columns(const MatrixComparison& m) {
  std::vector<std::string> headers;
  for (const std::string& name : m.names) {
    headers.push_back(std::filesystem::path(name).filename().string());
  }
  const std::set<std::string> unique(headers.begin(), headers.end());
  if (unique.size() != headers.size()) headers = m.names;
  std::vector<Column> list = {{"metric", Align::left}};
  for (const std::string& header : headers) list.push_back({header, Align::right});
  return list;
}

report::Rows table_rows(const MatrixComparison& m, bool markdown) {
  report::Rows rows;
  for (const MatrixRow& row : m.rows) {
    std::vector<std::string> cells = {markdown ? fmt::format("`{}`", row.key) : row.key};
    for (std::size_t i = 0; i < row.cells.size(); ++i) cells.push_back(cell_text(row, i));
    rows.push_back(std::move(cells));
  }
  std::vector<std::string> summary = {markdown ? "**geomean**" : "geomean", ""};
  for (std::size_t i = 1; i < m.geomeans.size(); ++i)
    summary.push_back(geomean_text(m.geomeans[i]));
  rows.push_back(std::move(summary));
  return rows;
}

constexpr const char* kExplanation =
    "Each cell is the median; from the second file on, followed by its ratio to the first "
    "file's median. Geomean: direction-normalised ratios to the first file (> 1 is slower) "
    "over the metrics both have, and how many.";

std::string render_text(const MatrixComparison& m) {
  std::string out = "files (ratios are to the first):\n";
  for (std::size_t i = 0; i < m.names.size(); ++i) {
    out += fmt::format("  {}. {} ({})\n", i + 1, m.names[i], file_kind_name(m.kinds[i]));
  }
  out += fmt::format("\n{}", report::text_table(columns(m), table_rows(m, false)));
  return out;
}

std::string render_markdown(const MatrixComparison& m) {
  std::string out = "### storh-host compare\n\n";
  for (std::size_t i = 0; i < m.names.size(); ++i) {
    out += fmt::format("{}. `{}` ({}){}\n", i + 1, report::markdown_cell(m.names[i]),
                       file_kind_name(m.kinds[i]), i == 0 ? ": the base" : "");
  }
  out += "\n";
  for (const std::string& warning : m.warnings) {
    out += fmt::format("> **Warning:** {}\n\n", report::markdown_cell(warning));
  }
  out += report::markdown_table(columns(m), table_rows(m, true));
  out += fmt::format("\n{}\n", kExplanation);
  return out;
}

std::string number(const std::optional<double>& value) {
  return value ? fmt::format("{}", *value) : "";
}

std::string render_csv(const MatrixComparison& m) {
  std::vector<std::string> header = {"metric", "unit", "direction"};
  for (const std::string& name : m.names) {
    header.push_back(name + " median");
    header.push_back(name + " ratio");
  }
  std::string out = report::csv_line(header);
  for (const MatrixRow& row : m.rows) {
    std::vector<std::string> fields = {row.key, row.unit, result::direction_name(row.direction)};
    for (const MatrixCell& cell : row.cells) {
      fields.push_back(number(cell.median));
      fields.push_back(number(cell.ratio));
    }
    out += report::csv_line(fields);
  }
  std::vector<std::string> summary = {"geomean", "", ""};
  for (const Geomean& geomean : m.geomeans) {
    summary.emplace_back();
    summary.push_back(number(geomean.ratio));
  }
  out += report::csv_line(summary);
  return out;
}

ordered_json optional_number(const std::optional<double>& value) {
  return value ? ordered_json(*value) : ordered_json(nullptr);
}

std::string render_json(const MatrixComparison& m) {
  ordered_json files = ordered_json::array();
  for (std::size_t i = 0; i < m.names.size(); ++i) {
    files.push_back({{"file", m.names[i]}, {"kind", file_kind_name(m.kinds[i])}});
  }
  ordered_json metrics = ordered_json::array();
  for (const MatrixRow& row : m.rows) {
    ordered_json cells = ordered_json::array();
    for (const MatrixCell& cell : row.cells) {
      cells.push_back(
          {{"median", optional_number(cell.median)}, {"ratio", optional_number(cell.ratio)}});
    }
    metrics.push_back({{"key", row.key},
                       {"unit", row.unit},
                       {"direction", result::direction_name(row.direction)},
                       {"cells", cells}});
  }
  ordered_json geomeans = ordered_json::array();
  for (std::size_t i = 0; i < m.geomeans.size(); ++i) {
    if (i == 0) {
      geomeans.push_back(nullptr);
      continue;
    }
    geomeans.push_back({{"ratio", optional_number(m.geomeans[i].ratio)},
                        {"metrics", m.geomeans[i].metrics},
                        {"skipped", m.geomeans[i].skipped}});
  }
  const ordered_json root = {
      {"files", files}, {"warnings", m.warnings}, {"metrics", metrics}, {"geomean", geomeans}};
  return root.dump(2) + "\n";
}

}  // namespace

std::string_view matrix_explanation() {
  return kExplanation;
}

std::pair<std::vector<Column>, report::Rows> matrix_table(const MatrixComparison& comparison) {
  return {columns(comparison), table_rows(comparison, false)};
}

std::string render_matrix(const MatrixComparison& comparison, OutputFormat format) {
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
