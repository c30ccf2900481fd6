#include "report/table.h"

#include <algorithm>

#include <fmt/format.h>

namespace storh::report {
namespace {

// Display width of UTF-8 text: code points, since every cell we print is ASCII or
// a few single-width symbols; continuation bytes take no column.
std::size_t width_of(std::string_view text) {
  return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }));
}

const std::string& cell_at(const std::vector<std::string>& row, std::size_t i) {
  static const std::string kEmpty;
  return i < row.size() ? row[i] : kEmpty;
}

}  // namespace

std::string text_table(const std::vector<Column>& columns, const Rows& rows) {
  std::vector<std::size_t> widths;
  for (const Column& column : columns) widths.push_back(width_of(column.header));
  for (const auto& row : rows) {
    for (std::size_t i = 0; i < columns.size(); ++i) {
      widths[i] = std::max(widths[i], width_of(cell_at(row, i)));
    }
  }
  std::string out;
  auto emit = [&](auto cell_of) {
    std::string line;
    for (std::size_t i = 0; i < columns.size(); ++i) {
      const std::string& text = cell_of(i);
      const std::string padding(widths[i] - width_of(text), ' ');
      if (i > 0) line += "  ";
      line += columns[i].align == Align::right ? padding + text : text + padding;
    }
    line.erase(line.find_last_not_of(' ') + 1);
    out += line + '\n';
  };
  emit([&](std::size_t i) -> const std::string& { return columns[i].header; });
  for (const auto& row : rows) {
    emit([&](std::size_t i) -> const std::string& { return cell_at(row, i); });
  }
  return out;
}

std::string markdown_table(const std::vector<Column>& columns, const Rows& rows) {
  std::vector<std::string> headers, rule;
  for (const Column& column : columns) {
    headers.push_back(markdown_cell(column.header));
    rule.emplace_back(column.align == Align::right ? "---:" : "---");
  }
  std::string out = fmt::format("| {} |\n|{}|\n", fmt::join(headers, " | "), fmt::join(rule, "|"));
  for (const auto& row : rows) {
    std::vector<std::string> cells;
    for (std::size_t i = 0; i < columns.size(); ++i)
      cells.push_back(markdown_cell(cell_at(row, i)));
    out += fmt::format("| {} |\n", fmt::join(cells, " | "));
  }
  return out;
}

std::string markdown_cell(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '\n' || c == '\r') {
      out += ' ';
      continue;
    }
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

std::string csv_line(const std::vector<std::string>& fields) {
  std::vector<std::string> quoted;
  for (const std::string& field : fields) {
    if (field.find_first_of(",\"\r\n") == std::string::npos) {
      quoted.push_back(field);
      continue;
    }
    std::string text = "\"";
    for (char c : field) text += c == '"' ? std::string("\"\"") : std::string(1, c);
    quoted.push_back(text + "\"");
  }
  return fmt::format("{}\n", fmt::join(quoted, ","));
}

}  // namespace storh::report
