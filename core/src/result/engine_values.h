// result/engine_values.h: the public engine types (storh/engine.h) as every JSON the
// host writes or reads spells them: result files, A/B files, plugin descriptions,
// the plan's fingerprint and the worker's --params.
//
// The one place a parameter value is turned into JSON and back, so a value keeps its
// type (integer, number, string, boolean) on every trip.
#pragma once

#include <optional>
#include <string_view>

#include <nlohmann/json.hpp>

#include "result/result.h"
#include "storh/engine.h"
#include "util/expected.h"

namespace storh::result {

// The value as a JSON scalar of its type: 3, 0.5, "hash", true.
nlohmann::ordered_json param_value_json(const ParamValue& value);

// A JSON scalar as a parameter value: a whole number is an integer, any other number
// a double. Fails for null, arrays and objects; the message shows the value.
Expected<ParamValue> param_value_from_json(const nlohmann::json& value);

// "lower_is_better" or "higher_is_better".
const char* direction_name(MetricDirection direction);

// The direction direction_name spelled; nullopt for any other text (a caller says
// where it read it).
std::optional<MetricDirection> parse_direction(std::string_view text);

// The direction of a plugin operation's metric: lower is better, a time (the host
// refuses a plugin that declares anything else when it describes it).
MetricDirection metric_direction(Direction direction);

}  // namespace storh::result
