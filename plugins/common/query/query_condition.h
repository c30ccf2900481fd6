// query_condition.h: one predicate on one field of a record (engine-spec.md section 3.2).
//
// Values are immutable after construction; copies are independent. Evaluation is
// const and thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "common/record.h"

namespace storh::engines {

enum class QueryOperator {
  eq,
  neq,
  in,
  not_in,
  gt,
  gte,
  lt,
  lte,
  between,
  exists,
  missing,
  prefix
};

// The names storh uses: "eq", "neq", "in", "notIn", "gt", "gte", "lt", "lte",
// "between", "exists", "missing", "prefix".
std::string_view operator_name(QueryOperator op) noexcept;
// nullopt for any other name (names are case-sensitive).
std::optional<QueryOperator> parse_operator(std::string_view name) noexcept;

class QueryCondition {
 public:
  // `field` names a data key, or the record id when it is "id". `value` and
  // `second_value` are what the operator needs (between uses both; exists and missing
  // neither). Throws std::invalid_argument when `field` is blank.
  QueryCondition(std::string field, QueryOperator op, Json value = nullptr,
                 Json second_value = nullptr);
  // Same, with the operator by name. An unknown name throws std::invalid_argument
  // naming it and the supported ones. (storh raised "Unsupported query operator" only
  // when the condition was evaluated; failing at construction reports it earlier and
  // never later.)
  QueryCondition(std::string field, std::string_view op, Json value = nullptr,
                 Json second_value = nullptr);

  // Whether record (id, data) satisfies the condition. With "actual" the record id for
  // field "id", else find_field(data, field) (nullptr = missing):
  //   eq       present and strictly identical to value
  //   neq      missing, or not strictly identical
  //   in       present, value is a list, and actual is strictly identical to an element
  //   notIn    missing, or (value is a list and actual is in none of its elements)
  //   gt gte lt lte   present and compare(actual, value) > >= < <= 0
  //   between  present and compare(actual, value) >= 0 and compare(actual, second) <= 0
  //   exists / missing   the field is present / absent (a null value is present)
  //   prefix   present, actual and value are strings, and actual starts with value
  // Throws only what compare() throws.
  bool matches_data(std::string_view id, const Json& data) const;

  // The operator applied to an actual value: `actual` nullptr means missing. These are
  // the building blocks of matches_data for engines that look values up themselves.
  bool matches_value(const Json* actual) const;
  bool matches_value(std::string_view actual) const;  // a present string, e.g. the id

  // True when the condition reads the record id rather than data.
  bool targets_id() const noexcept { return field_ == "id"; }

  const std::string& field() const noexcept { return field_; }
  QueryOperator op() const noexcept { return op_; }
  const Json& value() const noexcept { return value_; }
  const Json& second_value() const noexcept { return second_value_; }

 private:
  template <typename Actual>
  bool evaluate(const Actual& actual) const;

  std::string field_;
  QueryOperator op_;
  Json value_;
  Json second_value_;
};

}  // namespace storh::engines
