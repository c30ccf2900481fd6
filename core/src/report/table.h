// report/table.h: tables for people (aligned text, Markdown) and for machines (CSV),
// shared by the report, compare and gate so a table looks the same everywhere.
//
// All functions are pure: the same cells give the same bytes.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace storh::report {

// What a table shows in a cell that has no value.
inline constexpr const char* kAbsent = "-";

enum class Align { left, right };

struct Column {
  std::string header;
  Align align = Align::left;
};

// Each row has one cell per column; missing cells read as empty, extra cells are an
// error of the caller and are dropped.
using Rows = std::vector<std::vector<std::string>>;

// Aligned text: the header line, then one line per row. Each column is as wide as its
// widest cell (header included, counted in code points), columns are separated by two
// spaces, and trailing spaces are trimmed. Every line ends with '\n'.
std::string text_table(const std::vector<Column>& columns, const Rows& rows);

// A GitHub-flavoured Markdown table: header, alignment row (`---` or `---:`), rows.
// Cells are passed through markdown_cell. Ends with '\n' (no blank line after).
std::string markdown_table(const std::vector<Column>& columns, const Rows& rows);

// Text safe in one Markdown table cell: newlines become spaces and `|` is escaped.
std::string markdown_cell(std::string_view text);

// One RFC 4180 line ending in '\n': a field holding a comma, quote, CR or LF is quoted
// and its quotes doubled; other fields are written as they are.
std::string csv_line(const std::vector<std::string>& fields);

}  // namespace storh::report
