// pgbench's variables: a value read from text as makeVariableValue reads it (an integer,
// a double, a boolean word or NULL, else the text itself), valid names, and the
// Variables a client keeps, with pgbench 15's messages word for word.
#include <fmt/format.h>

#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string>
#include <string_view>

#include "pg/pgbench_expr.h"

namespace storh::engines::pg {
namespace {

bool strncase_prefix(std::string_view text, std::string_view word) {
  if (text.size() > word.size()) return false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != word[i]) return false;
  }
  return true;
}

bool strcase_equal(std::string_view text, std::string_view word) {
  return text.size() == word.size() && strncase_prefix(text, word);
}

// pgbench's is_an_int: optional spaces, optional sign, digits, nothing else.
bool looks_like_int(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i])) != 0) ++i;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
  // As pgbench: a lone sign passes here and fails as bigint syntax below.
  if (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])) == 0) return false;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])) != 0) ++i;
  return i == text.size();
}

}  // namespace

Value value_from_text(std::string_view name, std::string_view text) {
  if (text.empty()) {
    throw ExprError(fmt::format("malformed variable \"{}\" value: \"\"", name));
  }
  if (strcase_equal(text, "null")) return Value::null_value();
  if (strncase_prefix(text, "true") || strncase_prefix(text, "yes") || strcase_equal(text, "on")) {
    return Value::of_bool(true);
  }
  if (strncase_prefix(text, "false") || strncase_prefix(text, "no") || strcase_equal(text, "off") ||
      strcase_equal(text, "of")) {
    return Value::of_bool(false);
  }
  const std::string copy(text);
  if (looks_like_int(text)) {
    errno = 0;
    char* end = nullptr;
    const long long parsed = std::strtoll(copy.c_str(), &end, 10);
    if (errno == ERANGE) {
      throw ExprError(fmt::format("value \"{}\" is out of range for type bigint", text));
    }
    if (end == copy.c_str() || *end != '\0') {
      throw ExprError(fmt::format("invalid input syntax for type bigint: \"{}\"", text));
    }
    return Value::of_int(parsed);
  }
  errno = 0;
  char* end = nullptr;
  const double parsed = std::strtod(copy.c_str(), &end);
  if (errno != 0 || end == copy.c_str() || *end != '\0') {
    throw ExprError(fmt::format("malformed variable \"{}\" value: \"{}\"", name, text));
  }
  return Value::of_double(parsed);
}

bool valid_variable_name(std::string_view name) noexcept {
  if (name.empty()) return false;
  auto alpha = [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || u == '_' || u >= 0x80;
  };
  if (!alpha(name[0])) return false;
  for (const char c : name) {
    if (!alpha(c) && !(c >= '0' && c <= '9')) return false;
  }
  return true;
}

void Variables::set_text(const std::string& name, std::string text) {
  Entry& entry = vars_[name];
  entry.value.reset();
  entry.text = std::move(text);
}

void Variables::set_value(const std::string& name, const Value& value) {
  Entry& entry = vars_[name];
  entry.value = value;
  entry.text.reset();
}

const Value* Variables::value(const std::string& name) {
  const auto it = vars_.find(name);
  if (it == vars_.end()) return nullptr;
  if (!it->second.value) it->second.value = value_from_text(name, *it->second.text);
  return &*it->second.value;
}

const std::string* Variables::text(const std::string& name) {
  const auto it = vars_.find(name);
  if (it == vars_.end()) return nullptr;
  if (!it->second.text) it->second.text = value_text(*it->second.value);
  return &*it->second.text;
}

bool value_truth(const Value& value) noexcept {
  switch (value.type) {
    case Value::Type::null:
      return false;
    case Value::Type::boolean:
      return value.boolean;
    case Value::Type::integer:
      return value.integer != 0;
    case Value::Type::real:
      break;
  }
  return value.real != 0.0;
}

}  // namespace storh::engines::pg
