#include "result/engine_values.h"

#include <string>

#include <fmt/format.h>

namespace storh::result {

nlohmann::ordered_json param_value_json(const ParamValue& value) {
  return std::visit([](const auto& v) { return nlohmann::ordered_json(v); }, value);
}

Expected<ParamValue> param_value_from_json(const nlohmann::json& value) {
  if (value.is_boolean()) return ParamValue(value.get<bool>());
  if (value.is_number_integer()) return ParamValue(value.get<std::int64_t>());
  if (value.is_number_float()) return ParamValue(value.get<double>());
  if (value.is_string()) return ParamValue(value.get<std::string>());
  return Error{fmt::format("parameter value must be a scalar, got {}", value.dump())};
}

MetricDirection metric_direction(Direction direction) {
  return direction == Direction::lower_is_better ? MetricDirection::lower_is_better
                                                 : MetricDirection::higher_is_better;
}

const char* direction_name(MetricDirection direction) {
  return direction == MetricDirection::higher_is_better ? "higher_is_better" : "lower_is_better";
}

std::optional<MetricDirection> parse_direction(std::string_view text) {
  for (const MetricDirection direction :
       {MetricDirection::lower_is_better, MetricDirection::higher_is_better}) {
    if (text == direction_name(direction)) return direction;
  }
  return std::nullopt;
}

}  // namespace storh::result
