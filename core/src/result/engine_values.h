// result/engine_values.h: the public engine types (storh/engine.h) as every JSON the
// host writes or reads spells them: result files, A/B files, plugin descriptions,
// the plan's fingerprint and the worker's --params.
//
// The one place a parameter value is turned into JSON and back, so a value keeps its
// type (integer, number, string, boolean) on every trip.
#pragma once

#include <nlohmann/json.hpp>

#include "storh/engine.h"
#include "util/expected.h"

namespace storh::result {

// The value as a JSON scalar of its type: 3, 0.5, "hash", true.
nlohmann::ordered_json param_value_json(const ParamValue& value);

// A JSON scalar as a parameter value: a whole number is an integer, any other number
// a double. Fails for null, arrays and objects; the message shows the value.
Expected<ParamValue> param_value_from_json(const nlohmann::json& value);

// "lower_is_better" or "higher_is_better".
const char* direction_name(Direction direction);

}  // namespace storh::result
