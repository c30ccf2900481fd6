// json_values.h: how queries see record data (engine-spec.md sections 3.1-3.3): strict
// identity, the total order compare(), and field lookup.
//
// storh's values are PHP values, so the rules follow PHP's:
//   * JSON integers (nlohmann's number_integer and number_unsigned alike) are one type,
//     floats another; an integer never equals a float (1 !== 1.0), a string never equals
//     a number ("1" !== 1).
//   * Arrays and objects are PHP arrays: equal when they hold strictly equal elements
//     under equal keys in the same order. An empty object is the same value as an empty
//     array, since PHP has no empty-object form and both encode as [].
//   * -0.0 equals 0.0; NaN equals nothing (it cannot come from parsed JSON).
#pragma once

#include <string_view>

#include "common/record.h"

namespace storh::engines {

// PHP's === on the values above. Never throws.
bool strict_equal(const Json& a, const Json& b) noexcept;
// strict_equal(Json(a), b) without building the Json: true only for an equal string.
bool strict_equal(std::string_view a, const Json& b) noexcept;

// storh's compare(a, b): negative, zero or positive as a sorts before, with or after b.
//   1. both numbers: numeric (integers and floats compared exactly);
//   2. both strings: byte-wise (unsigned bytes, then length);
//   3. both booleans: false < true;   4. both null: equal;
//   5. otherwise: the pretty canonical encodings of {"value": a} and {"value": b},
//      compared byte-wise. Mixed types thus order by the first character of their JSON:
//      string < number < array < false < null < true < object.
// Throws std::invalid_argument only when case 5 meets a NaN or infinite float.
int compare(const Json& a, const Json& b);
// compare(Json(a), b) without building the Json.
int compare(std::string_view a, const Json& b);

// The value of `field` in record data, or nullptr when the field is missing. A present
// null is a value (a non-null pointer to a null Json). Data that is a list has the
// fields "0", "1", ...: PHP array keys (canonical decimal integers only, so "01" is
// missing). Any other data has no fields.
const Json* find_field(const Json& data, std::string_view field) noexcept;

// True when `field` is empty or only ASCII whitespace (PHP's trim() set).
bool is_blank_field(std::string_view field) noexcept;

}  // namespace storh::engines
