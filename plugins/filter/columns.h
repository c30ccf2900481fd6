// columns.h: RowTable's storage and compiled predicates (internal to storh::filter).
//
// A column holds one typed 16-byte cell per row for one data field. Strings are
// interned per column, so equal strings have equal cells; arrays and objects are kept
// as Json beside the cells. A FieldPredicate is a QueryCondition (or an equality
// filter) compiled against one column; apply() evaluates it over a block of rows.
// Every compiled form gives, row for row, the answer of the general evaluator
// (QueryCondition::matches_value / strict_equal) on the original value.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/query/query_condition.h"
#include "common/record.h"

namespace storh::engines::columnar {

enum class CellKind : std::uint32_t {
  missing,
  null,
  boolean,
  integer,       // any integer that fits int64, signed or not; bits = two's complement
  big_unsigned,  // an unsigned integer above INT64_MAX
  floating,      // bits = the double, with -0.0 stored as 0.0 and every NaN as one NaN
  string,        // bits = index into Column::strings
  complex,       // array, object or other: bits = index into Column::complex_values
};

// Two cells of a column hold strictly identical scalars exactly when kind and bits
// are equal (NaN aside, which never matches anything; see compile_match_any).
struct Cell {
  CellKind kind = CellKind::missing;
  std::uint32_t unused = 0;
  std::uint64_t bits = 0;
};

struct StringHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view text) const noexcept {
    return std::hash<std::string_view>{}(text);
  }
};
using StringIndex = std::unordered_map<std::string, std::uint32_t, StringHash, std::equal_to<>>;

struct Column {
  std::vector<Cell> cells;  // one per row
  StringIndex string_ids;
  std::vector<const std::string*> strings;  // by id; keys of string_ids (nodes are stable)
  std::vector<Json> complex_values;
};

// Appends `value` as the next cell of `column`. Throws std::length_error past 2^32
// distinct strings.
void append_cell(Column& column, const Json& value);

// One compiled predicate over a column. Every kind yields, per row, the answer the
// general evaluator gives for that row's value.
struct FieldPredicate {
  enum class Kind { constant, match_any, presence, generic } kind = Kind::constant;
  bool result = false;  // constant
  bool negate = false;  // match_any, presence (presence: true = "missing")
  const Column* column = nullptr;
  std::vector<Cell> targets;                  // match_any
  const QueryCondition* condition = nullptr;  // generic
  std::vector<std::uint8_t> string_results;   // generic: per interned string
  bool missing_result = false;                // generic
};

// `condition` compiled against the column of its field (nullptr: no row has the
// field). The result refers to `column` and `condition`, which must outlive it.
FieldPredicate compile_condition(const Column* column, const QueryCondition& condition);

// RecordQuery's where_equal(field, value) compiled against the field's column.
FieldPredicate compile_equal(const Column* column, const Json& value);

// mask[j] &= the predicate's answer for row begin + j, for j < rows.
void apply(const FieldPredicate& predicate, std::size_t begin, std::size_t rows,
           std::uint8_t* mask);

}  // namespace storh::engines::columnar
