#include "filter/columns.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <optional>
#include <span>
#include <stdexcept>

namespace storh::engines::columnar {
namespace {

Cell scalar_cell(const Json& value) noexcept {
  switch (value.type()) {
    case Json::value_t::null:
      return {CellKind::null, 0, 0};
    case Json::value_t::boolean:
      return {CellKind::boolean, 0, value.get<bool>() ? 1u : 0u};
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
    default:
      return {CellKind::complex, 0, 0};  // strings and structures: not scalar cells
  }
}

Json scalar_json(const Cell& cell) {
  switch (cell.kind) {
    case CellKind::boolean:
      return Json(cell.bits != 0);
    case CellKind::integer:
      return Json(static_cast<std::int64_t>(cell.bits));
    case CellKind::big_unsigned:
      return Json(cell.bits);
    case CellKind::floating:
      return Json(std::bit_cast<double>(cell.bits));
    default:
      return Json(nullptr);
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
std::optional<FieldPredicate> compile_match_any(const Column& column, std::span<const Json> values,
                                                bool negate) {
  FieldPredicate predicate;
  predicate.kind = FieldPredicate::Kind::match_any;
  predicate.column = &column;
  predicate.negate = negate;
  for (const Json& value : values) {
    if (value.is_string()) {
      const auto it = column.string_ids.find(std::string_view(value.get_ref<const std::string&>()));
      if (it != column.string_ids.end())
        predicate.targets.push_back({CellKind::string, 0, it->second});
      continue;  // a string no row holds matches no row
    }
    const Cell cell = scalar_cell(value);
    if (cell.kind == CellKind::complex) return std::nullopt;
    const bool is_nan =
        cell.kind == CellKind::floating && std::isnan(std::bit_cast<double>(cell.bits));
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

bool evaluate_generic(const FieldPredicate& p, const Cell& cell) {
  switch (cell.kind) {
    case CellKind::missing:
      return p.missing_result;
    case CellKind::string:
      return p.string_results[cell.bits] != 0;
    case CellKind::complex:
      return p.condition->matches_value(&p.column->complex_values[cell.bits]);
    default: {
      const Json value = scalar_json(cell);
      return p.condition->matches_value(&value);
    }
  }
}

}  // namespace

void append_cell(Column& column, const Json& value) {
  column.cells.push_back(make_cell(column, value));
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
    default:
      break;
  }
  if (fast) return *std::move(fast);
  return compile_generic(*column, condition);
}

FieldPredicate compile_equal(const Column* column, const Json& value) {
  auto fast =
      column == nullptr ? std::nullopt : compile_match_any(*column, std::span(&value, 1), false);
  // where_equal only takes scalars, which match_any covers; otherwise no row has the
  // field (or the value is a discarded Json, equal to nothing).
  return fast ? *std::move(fast) : constant(false);
}

void apply(const FieldPredicate& p, std::size_t begin, std::size_t rows, std::uint8_t* mask) {
  using Kind = FieldPredicate::Kind;
  if (p.kind == Kind::constant) {
    if (!p.result) std::fill_n(mask, rows, std::uint8_t{0});
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
      mask[j] &=
          static_cast<std::uint8_t>(((cells[j].kind == kind) & (cells[j].bits == bits)) ^ negate);
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

}  // namespace storh::engines::columnar
