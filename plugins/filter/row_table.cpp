#include "filter/row_table.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <deque>
#include <functional>
#include <limits>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <unordered_map>

namespace storh::engines {
namespace {

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

// An id's first 16 bytes as big-endian words (zero-padded), and where its text is.
// Word order agrees with byte order, so equal words are the only case that needs the
// text.
struct IdRef {
  std::uint64_t high;
  std::uint64_t low;
  std::uint32_t offset;
  std::uint32_t size;
};

std::uint64_t prefix_word(std::string_view text, std::size_t from) noexcept {
  std::uint64_t word = 0;
  for (std::size_t i = from; i < from + 8; ++i) {
    word = (word << 8) | (i < text.size() ? static_cast<unsigned char>(text[i]) : 0u);
  }
  return word;
}

struct IdBound {
  std::uint64_t high;
  std::uint64_t low;
  std::string text;
  int min_sign;  // a row passes when sign(compare(row id, text)) >= min_sign ...
  int max_sign;  // ... and <= max_sign
};

constexpr std::size_t kBlockRows = 1024;
using Mask = std::array<std::uint8_t, kBlockRows>;

// One compiled predicate over a column. Every kind yields, per row, the answer the
// general evaluator gives for that row's value.
struct FieldPredicate {
  enum class Kind { constant, match_any, presence, generic } kind = Kind::constant;
  bool result = false;           // constant
  bool negate = false;           // match_any, presence (presence: true = "missing")
  const Column* column = nullptr;
  std::vector<Cell> targets;     // match_any
  const QueryCondition* condition = nullptr;  // generic
  std::vector<std::uint8_t> string_results;   // generic: per interned string
  bool missing_result = false;                // generic
};

struct CompiledScan {
  std::vector<IdBound> id_bounds;
  const QueryCondition* id_condition = nullptr;
  std::vector<FieldPredicate> fields;
};

Cell scalar_cell(const Json& value) noexcept {
  switch (value.type()) {
    case Json::value_t::null: return {CellKind::null, 0, 0};
    case Json::value_t::boolean: return {CellKind::boolean, 0, value.get<bool>() ? 1u : 0u};
    case Json::value_t::number_integer:
      return {CellKind::integer, 0, static_cast<std::uint64_t>(value.get<std::int64_t>())};
    case Json::value_t::number_unsigned: {
      const auto u = value.get<std::uint64_t>();
      const bool fits = u <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
      return {fits ? CellKind::integer : CellKind::big_unsigned, 0, u};
    }
    case Json::value_t::number_float: {
      double d = value.get<double>();
      if (d == 0) d = 0.0;  // -0.0 === 0.0
      if (std::isnan(d)) d = std::numeric_limits<double>::quiet_NaN();
      return {CellKind::floating, 0, std::bit_cast<std::uint64_t>(d)};
    }
    default: return {CellKind::complex, 0, 0};  // strings and structures: not scalar cells
  }
}

Json scalar_json(const Cell& cell) {
  switch (cell.kind) {
    case CellKind::boolean: return Json(cell.bits != 0);
    case CellKind::integer: return Json(static_cast<std::int64_t>(cell.bits));
    case CellKind::big_unsigned: return Json(cell.bits);
    case CellKind::floating: return Json(std::bit_cast<double>(cell.bits));
    default: return Json(nullptr);
  }
}

Cell make_cell(Column& column, const Json& value) {
  if (value.is_string()) {
    const auto& text = value.get_ref<const std::string&>();
    auto it = column.string_ids.find(std::string_view(text));
    if (it == column.string_ids.end()) {
      if (column.strings.size() >= std::numeric_limits<std::uint32_t>::max()) {
        throw std::length_error("RowTable: more than 2^32 distinct strings in one field");
      }
      it = column.string_ids.emplace(text, static_cast<std::uint32_t>(column.strings.size())).first;
      column.strings.push_back(&it->first);
    }
    return {CellKind::string, 0, it->second};
  }
  Cell cell = scalar_cell(value);
  if (cell.kind == CellKind::complex) {
    cell.bits = column.complex_values.size();
    column.complex_values.push_back(value);
  }
  return cell;
}

// match_any over `values`, each compared strictly to the row's value. Needs the general
// evaluator (nullopt) when a value is an array or object.
std::optional<FieldPredicate> compile_match_any(const Column& column,
                                                std::span<const Json> values, bool negate) {
  FieldPredicate predicate;
  predicate.kind = FieldPredicate::Kind::match_any;
  predicate.column = &column;
  predicate.negate = negate;
  for (const Json& value : values) {
    if (value.is_string()) {
      const auto it = column.string_ids.find(std::string_view(value.get_ref<const std::string&>()));
      if (it != column.string_ids.end()) predicate.targets.push_back({CellKind::string, 0, it->second});
      continue;  // a string no row holds matches no row
    }
    const Cell cell = scalar_cell(value);
    if (cell.kind == CellKind::complex) return std::nullopt;
    const bool is_nan = cell.kind == CellKind::floating && std::isnan(std::bit_cast<double>(cell.bits));
    if (!is_nan) predicate.targets.push_back(cell);  // NaN === nothing
  }
  return predicate;
}

FieldPredicate constant(bool result) {
  FieldPredicate predicate;
  predicate.result = result;
  return predicate;
}

FieldPredicate compile_generic(const Column& column, const QueryCondition& condition) {
  FieldPredicate predicate;
  predicate.kind = FieldPredicate::Kind::generic;
  predicate.column = &column;
  predicate.condition = &condition;
  predicate.missing_result = condition.matches_value(nullptr);
  predicate.string_results.reserve(column.strings.size());
  for (const std::string* text : column.strings) {
    predicate.string_results.push_back(condition.matches_value(std::string_view(*text)) ? 1 : 0);
  }
  return predicate;
}

FieldPredicate compile_condition(const Column* column, const QueryCondition& condition) {
  if (column == nullptr) return constant(condition.matches_value(nullptr));
  const Json& value = condition.value();
  std::optional<FieldPredicate> fast;
  switch (condition.op()) {
    case QueryOperator::eq:
    case QueryOperator::neq:
      fast = compile_match_any(*column, std::span(&value, 1), condition.op() == QueryOperator::neq);
      break;
    case QueryOperator::in:
    case QueryOperator::not_in:
      if (!value.is_array()) {
        if (condition.op() == QueryOperator::in) return constant(false);
        FieldPredicate missing;  // notIn with a non-list value: only missing fields
        missing.kind = FieldPredicate::Kind::presence;
        missing.column = column;
        missing.negate = true;
        return missing;
      }
      fast = compile_match_any(*column, value.get_ref<const Json::array_t&>(),
                               condition.op() == QueryOperator::not_in);
      break;
    case QueryOperator::exists:
    case QueryOperator::missing: {
      FieldPredicate presence;
      presence.kind = FieldPredicate::Kind::presence;
      presence.column = column;
      presence.negate = condition.op() == QueryOperator::missing;
      return presence;
    }
    default: break;
  }
  if (fast) return *std::move(fast);
  return compile_generic(*column, condition);
}

}  // namespace

struct RowTable::Impl {
  std::string id_text;
  std::vector<IdRef> ids;
  StringIndex column_ids;
  std::deque<Column> columns;  // a deque: Column::strings points into its own map

  const Column* find_column(std::string_view field) const {
    const auto it = column_ids.find(field);
    return it == column_ids.end() ? nullptr : &columns[it->second];
  }

  Column& column_for(std::string_view field, std::size_t rows_before) {
    auto it = column_ids.find(field);
    if (it == column_ids.end()) {
      it = column_ids.emplace(std::string(field), static_cast<std::uint32_t>(columns.size())).first;
      columns.emplace_back().cells.resize(rows_before);  // earlier rows lack the field
    }
    return columns[it->second];
  }

  IdBound bound(std::string_view text, int min_sign, int max_sign) const {
    return {prefix_word(text, 0), prefix_word(text, 8), std::string(text), min_sign, max_sign};
  }

  CompiledScan compile(const RecordQuery& query) const {
    CompiledScan scan;
    if (query.after_id()) scan.id_bounds.push_back(bound(*query.after_id(), 1, 1));
    if (query.lower_id()) scan.id_bounds.push_back(bound(*query.lower_id(), 0, 1));
    if (query.upper_id()) scan.id_bounds.push_back(bound(*query.upper_id(), -1, 0));
    for (const auto& [field, value] : query.equals()) {
      const Column* column = find_column(field);
      auto fast = column == nullptr ? std::nullopt
                                    : compile_match_any(*column, std::span(&value, 1), false);
      // where_equal only takes scalars, which match_any covers; no row has the field
      // otherwise (or the value is a discarded Json, equal to nothing).
      scan.fields.push_back(fast ? *std::move(fast) : constant(false));
    }
    return scan;
  }

  CompiledScan compile(const QueryCondition& condition) const {
    CompiledScan scan;
    if (condition.targets_id()) {
      scan.id_condition = &condition;
    } else {
      scan.fields.push_back(compile_condition(find_column(condition.field()), condition));
    }
    return scan;
  }

  std::string_view id_at(std::size_t row) const {
    return std::string_view(id_text).substr(ids[row].offset, ids[row].size);
  }

  void apply_bound(const IdBound& bound, std::size_t begin, std::size_t rows, Mask& mask) const {
    for (std::size_t j = 0; j < rows; ++j) {
      const IdRef& row = ids[begin + j];
      int sign;
      if (row.high != bound.high) {
        sign = row.high < bound.high ? -1 : 1;
      } else if (row.low != bound.low) {
        sign = row.low < bound.low ? -1 : 1;
      } else {
        const int c = id_at(begin + j).compare(bound.text);
        sign = c < 0 ? -1 : (c > 0 ? 1 : 0);
      }
      mask[j] &= static_cast<std::uint8_t>((sign >= bound.min_sign) & (sign <= bound.max_sign));
    }
  }

  static void apply_field(const FieldPredicate& p, std::size_t begin, std::size_t rows,
                          Mask& mask) {
    using Kind = FieldPredicate::Kind;
    if (p.kind == Kind::constant) {
      if (!p.result) std::fill_n(mask.begin(), rows, std::uint8_t{0});
      return;
    }
    const Cell* cells = p.column->cells.data() + begin;
    const auto negate = static_cast<std::uint8_t>(p.negate);
    if (p.kind == Kind::presence) {
      for (std::size_t j = 0; j < rows; ++j) {
        mask[j] &= static_cast<std::uint8_t>((cells[j].kind != CellKind::missing) ^ negate);
      }
    } else if (p.kind == Kind::match_any && p.targets.size() == 1) {
      // The benchmark's shape: one branch-free compare per row.
      const CellKind kind = p.targets[0].kind;
      const std::uint64_t bits = p.targets[0].bits;
      for (std::size_t j = 0; j < rows; ++j) {
        mask[j] &= static_cast<std::uint8_t>(((cells[j].kind == kind) & (cells[j].bits == bits)) ^
                                             negate);
      }
    } else if (p.kind == Kind::match_any) {
      for (std::size_t j = 0; j < rows; ++j) {
        bool hit = false;
        for (const Cell& target : p.targets) {
          hit |= (cells[j].kind == target.kind) & (cells[j].bits == target.bits);
        }
        mask[j] &= static_cast<std::uint8_t>(hit ^ p.negate);
      }
    } else {
      for (std::size_t j = 0; j < rows; ++j) {
        if (mask[j] == 0) continue;  // the general evaluator is the costly part
        mask[j] = evaluate_generic(p, cells[j]) ? 1 : 0;
      }
    }
  }

  static bool evaluate_generic(const FieldPredicate& p, const Cell& cell) {
    switch (cell.kind) {
      case CellKind::missing: return p.missing_result;
      case CellKind::string: return p.string_results[cell.bits] != 0;
      case CellKind::complex: return p.condition->matches_value(&p.column->complex_values[cell.bits]);
      default: {
        const Json value = scalar_json(cell);
        return p.condition->matches_value(&value);
      }
    }
  }

  // Calls sink(begin, rows, mask) for consecutive blocks; mask[j] is row begin+j's answer.
  template <typename Sink>
  void scan(const CompiledScan& compiled, Sink&& sink) const {
    Mask mask;
    for (std::size_t begin = 0; begin < ids.size(); begin += kBlockRows) {
      const std::size_t rows = std::min(kBlockRows, ids.size() - begin);
      std::fill_n(mask.begin(), rows, std::uint8_t{1});
      for (const IdBound& bound : compiled.id_bounds) apply_bound(bound, begin, rows, mask);
      if (compiled.id_condition != nullptr) {
        for (std::size_t j = 0; j < rows; ++j) {
          mask[j] &= static_cast<std::uint8_t>(compiled.id_condition->matches_value(id_at(begin + j)));
        }
      }
      for (const FieldPredicate& field : compiled.fields) apply_field(field, begin, rows, mask);
      sink(begin, rows, mask);
    }
  }

  std::uint64_t count(const CompiledScan& compiled) const {
    std::uint64_t total = 0;
    scan(compiled, [&](std::size_t, std::size_t rows, const Mask& mask) {
      std::uint32_t block = 0;
      for (std::size_t j = 0; j < rows; ++j) block += mask[j];
      total += block;
    });
    return total;
  }

  std::vector<bool> matches(const CompiledScan& compiled) const {
    std::vector<bool> result(ids.size());
    scan(compiled, [&](std::size_t begin, std::size_t rows, const Mask& mask) {
      for (std::size_t j = 0; j < rows; ++j) result[begin + j] = mask[j] != 0;
    });
    return result;
  }
};

RowTable::RowTable() : impl_(std::make_unique<Impl>()) {}
RowTable::~RowTable() = default;
RowTable::RowTable(RowTable&&) noexcept = default;
RowTable& RowTable::operator=(RowTable&&) noexcept = default;

std::size_t RowTable::size() const noexcept { return impl_->ids.size(); }

void RowTable::append(std::string_view id, const Json& data) {
  Impl& t = *impl_;
  const std::size_t row = t.ids.size();
  if (t.id_text.size() + id.size() > std::numeric_limits<std::uint32_t>::max()) {
    throw std::length_error("RowTable: more than 4 GiB of id text");
  }
  t.ids.push_back({prefix_word(id, 0), prefix_word(id, 8),
                   static_cast<std::uint32_t>(t.id_text.size()),
                   static_cast<std::uint32_t>(id.size())});
  t.id_text.append(id);
  try {
    if (data.is_object()) {
      for (const auto& [key, value] : data.get_ref<const Json::object_t&>()) {
        Column& column = t.column_for(key, row);
        column.cells.push_back(make_cell(column, value));
      }
    } else if (data.is_array()) {
      // A list's fields are "0", "1", ... (find_field's PHP key rule).
      for (std::size_t i = 0; i < data.size(); ++i) {
        Column& column = t.column_for(std::to_string(i), row);
        column.cells.push_back(make_cell(column, data[i]));
      }
    }
    for (Column& column : t.columns) {
      if (column.cells.size() == row) column.cells.emplace_back();  // missing in this row
    }
  } catch (...) {
    // Leave the table as it was (columns and strings added on the way stay, unused).
    for (Column& column : t.columns) column.cells.resize(row);
    t.ids.pop_back();
    t.id_text.resize(t.id_text.size() - id.size());
    throw;
  }
}

std::uint64_t RowTable::count(const RecordQuery& query) const {
  return impl_->count(impl_->compile(query));
}

std::uint64_t RowTable::count(const QueryCondition& condition) const {
  return impl_->count(impl_->compile(condition));
}

std::vector<bool> RowTable::matches(const RecordQuery& query) const {
  return impl_->matches(impl_->compile(query));
}

std::vector<bool> RowTable::matches(const QueryCondition& condition) const {
  return impl_->matches(impl_->compile(condition));
}

}  // namespace storh::engines
