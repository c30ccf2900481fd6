#include "foreign/json_fields.h"

#include <cmath>

#include <fmt/format.h>

namespace storh::foreign {
namespace {

// The field's value, or nullptr when absent or null.
const nlohmann::json* field(const nlohmann::json& object, const char* key) {
  const auto it = object.find(key);
  if (it == object.end() || it->is_null()) return nullptr;
  return &*it;
}

[[noreturn]] void wrong_type(const nlohmann::json& value, const char* key, const std::string& path,
                             const char* expected) {
  throw BadField{fmt::format("{}/{}: expected {}, got {}", path, key, expected, value.type_name())};
}

}  // namespace

std::optional<std::string> optional_string(const nlohmann::json& object, const char* key,
                                           const std::string& path) {
  const nlohmann::json* value = field(object, key);
  if (value == nullptr) return std::nullopt;
  if (!value->is_string()) wrong_type(*value, key, path, "a string");
  return value->get<std::string>();
}

std::optional<double> optional_number(const nlohmann::json& object, const char* key,
                                      const std::string& path) {
  const nlohmann::json* value = field(object, key);
  if (value == nullptr) return std::nullopt;
  if (!value->is_number()) wrong_type(*value, key, path, "a number");
  const auto number = value->get<double>();
  if (!std::isfinite(number)) {
    throw BadField{fmt::format("{}/{}: expected a finite number, got {}", path, key, number)};
  }
  return number;
}

std::optional<bool> optional_bool(const nlohmann::json& object, const char* key,
                                  const std::string& path) {
  const nlohmann::json* value = field(object, key);
  if (value == nullptr) return std::nullopt;
  if (!value->is_boolean()) wrong_type(*value, key, path, "true or false");
  return value->get<bool>();
}

std::string required_string(const nlohmann::json& object, const char* key,
                            const std::string& path) {
  std::optional<std::string> value = optional_string(object, key, path);
  if (!value) throw BadField{fmt::format("{}: missing \"{}\"", path.empty() ? "/" : path, key)};
  return *std::move(value);
}

double required_number(const nlohmann::json& object, const char* key, const std::string& path) {
  const std::optional<double> value = optional_number(object, key, path);
  if (!value) throw BadField{fmt::format("{}: missing \"{}\"", path.empty() ? "/" : path, key)};
  return *value;
}

}  // namespace storh::foreign
