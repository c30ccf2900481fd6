// foreign/json_fields.h: typed fields of another tool's JSON, for its reader.
//
// A field of the wrong type throws BadField with the field's JSON path and what was
// expected; each reader's entry point catches it and returns an Error that also names
// the file, so a foreign file of the wrong shape gives a message, never a crash.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace storh::foreign {

struct BadField {
  std::string message;  // "/benchmarks/3/real_time: expected a number, got string"
};

// `path` is the JSON path of `object` ("" for the root, "/context").
// Precondition: object.is_object().
// The field as a string; nullopt when absent or null.
std::optional<std::string> optional_string(const nlohmann::json& object, const char* key,
                                           const std::string& path);
// The field as a finite number (a boolean is not one); nullopt when absent or null.
std::optional<double> optional_number(const nlohmann::json& object, const char* key,
                                      const std::string& path);
// The field as a boolean; nullopt when absent or null.
std::optional<bool> optional_bool(const nlohmann::json& object, const char* key,
                                  const std::string& path);
// The field as a string; BadField when absent.
std::string required_string(const nlohmann::json& object, const char* key, const std::string& path);
// The field as a finite number; BadField when absent.
double required_number(const nlohmann::json& object, const char* key, const std::string& path);

}  // namespace storh::foreign
