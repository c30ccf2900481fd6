#include "util/param_rules.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <variant>

namespace storh {

bool is_identifier(std::string_view name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

bool has_param_type(const ParamValue& value, ParamType type) {
  switch (type) {
    case ParamType::integer:
      return std::holds_alternative<std::int64_t>(value);
    case ParamType::number:
      return std::holds_alternative<double>(value) || std::holds_alternative<std::int64_t>(value);
    case ParamType::string:
      return std::holds_alternative<std::string>(value);
    case ParamType::boolean:
      return std::holds_alternative<bool>(value);
  }
  return false;
}

}  // namespace storh
