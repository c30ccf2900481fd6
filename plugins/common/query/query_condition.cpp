#include "common/query/query_condition.h"

#include <array>
#include <stdexcept>
#include <utility>

#include "common/query/json_values.h"

namespace storh::engines {
namespace {

constexpr std::array<std::pair<QueryOperator, std::string_view>, 12> kOperatorNames = {{
    {QueryOperator::eq, "eq"},
    {QueryOperator::neq, "neq"},
    {QueryOperator::in, "in"},
    {QueryOperator::not_in, "notIn"},
    {QueryOperator::gt, "gt"},
    {QueryOperator::gte, "gte"},
    {QueryOperator::lt, "lt"},
    {QueryOperator::lte, "lte"},
    {QueryOperator::between, "between"},
    {QueryOperator::exists, "exists"},
    {QueryOperator::missing, "missing"},
    {QueryOperator::prefix, "prefix"},
}};

QueryOperator checked_operator(std::string_view name) {
  if (const auto op = parse_operator(name)) return *op;
  std::string message = "Unsupported query operator \"" + std::string(name) + "\" (supported:";
  for (const auto& [op, op_name] : kOperatorNames) {
    message += ' ';
    message += op_name;
  }
  throw std::invalid_argument(message + ")");
}

// Uniform access to an actual value that is either a Json (nullptr = missing) or a
// string known to be present (the record id), so evaluate() is written once.
bool present(const Json* actual) {
  return actual != nullptr;
}
bool present(std::string_view) {
  return true;
}
bool equal_to(const Json* actual, const Json& v) {
  return strict_equal(*actual, v);
}
bool equal_to(std::string_view actual, const Json& v) {
  return strict_equal(actual, v);
}
int compare_to(const Json* actual, const Json& v) {
  return compare(*actual, v);
}
int compare_to(std::string_view actual, const Json& v) {
  return compare(actual, v);
}
bool is_string(const Json* actual) {
  return actual->is_string();
}
bool is_string(std::string_view) {
  return true;
}
// Only after is_string().
std::string_view string_of(const Json* actual) {
  return actual->get_ref<const std::string&>();
}
std::string_view string_of(std::string_view actual) {
  return actual;
}

template <typename Actual>
bool in_list(const Actual& actual, const Json& list) {
  for (const Json& element : list) {
    if (equal_to(actual, element)) return true;
  }
  return false;
}

}  // namespace

std::string_view operator_name(QueryOperator op) noexcept {
  for (const auto& [known, name] : kOperatorNames) {
    if (known == op) return name;
  }
  return "?";
}

std::optional<QueryOperator> parse_operator(std::string_view name) noexcept {
  for (const auto& [op, known] : kOperatorNames) {
    if (known == name) return op;
  }
  return std::nullopt;
}

QueryCondition::QueryCondition(std::string field, QueryOperator op, Json value, Json second_value)
    : field_(std::move(field)),
      op_(op),
      value_(std::move(value)),
      second_value_(std::move(second_value)) {
  if (is_blank_field(field_))
    throw std::invalid_argument("QueryCondition: field must not be blank");
}

QueryCondition::QueryCondition(std::string field, std::string_view op, Json value,
                               Json second_value)
    : QueryCondition(std::move(field), checked_operator(op), std::move(value),
                     std::move(second_value)) {}

template <typename Actual>
bool QueryCondition::evaluate(const Actual& actual) const {
  const bool exists = present(actual);
  switch (op_) {
    case QueryOperator::eq:
      return exists && equal_to(actual, value_);
    case QueryOperator::neq:
      return !exists || !equal_to(actual, value_);
    case QueryOperator::in:
      return exists && value_.is_array() && in_list(actual, value_);
    case QueryOperator::not_in:
      return !exists || (value_.is_array() && !in_list(actual, value_));
    case QueryOperator::gt:
      return exists && compare_to(actual, value_) > 0;
    case QueryOperator::gte:
      return exists && compare_to(actual, value_) >= 0;
    case QueryOperator::lt:
      return exists && compare_to(actual, value_) < 0;
    case QueryOperator::lte:
      return exists && compare_to(actual, value_) <= 0;
    case QueryOperator::between:
      return exists && compare_to(actual, value_) >= 0 && compare_to(actual, second_value_) <= 0;
    case QueryOperator::exists:
      return exists;
    case QueryOperator::missing:
      return !exists;
    case QueryOperator::prefix:
      return exists && is_string(actual) && value_.is_string() &&
             string_of(actual).starts_with(value_.get_ref<const std::string&>());
  }
  throw std::logic_error("QueryCondition: corrupt operator");
}

bool QueryCondition::matches_value(const Json* actual) const {
  return evaluate(actual);
}

bool QueryCondition::matches_value(std::string_view actual) const {
  return evaluate(actual);
}

bool QueryCondition::matches_data(std::string_view id, const Json& data) const {
  if (targets_id()) return evaluate(id);
  return evaluate(find_field(data, field_));
}

}  // namespace storh::engines
