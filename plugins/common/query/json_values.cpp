#include "common/query/json_values.h"

#include <cstdint>
#include <string>

#include "common/canonical_json.h"

namespace storh::engines {
namespace {

using Type = Json::value_t;

bool is_integer(const Json& v) noexcept {
  return v.type() == Type::number_integer || v.type() == Type::number_unsigned;
}

template <typename T>
int three_way(const T& a, const T& b) noexcept {
  return a < b ? -1 : (b < a ? 1 : 0);
}

// Exact: long double holds every int64, uint64 and double value on x86-64 (64-bit
// mantissa), so no two distinct numbers compare equal through rounding.
long double as_long_double(const Json& v) noexcept {
  switch (v.type()) {
    case Type::number_integer:
      return static_cast<long double>(v.get<std::int64_t>());
    case Type::number_unsigned:
      return static_cast<long double>(v.get<std::uint64_t>());
    default:
      return static_cast<long double>(v.get<double>());
  }
}

bool integers_equal(const Json& a, const Json& b) noexcept {
  if (a.type() == b.type()) {
    return a.type() == Type::number_integer ? a.get<std::int64_t>() == b.get<std::int64_t>()
                                            : a.get<std::uint64_t>() == b.get<std::uint64_t>();
  }
  const Json& signed_one = a.type() == Type::number_integer ? a : b;
  const Json& unsigned_one = a.type() == Type::number_integer ? b : a;
  const auto s = signed_one.get<std::int64_t>();
  return s >= 0 && static_cast<std::uint64_t>(s) == unsigned_one.get<std::uint64_t>();
}

// The bytes compare() orders mixed values by: the pretty encoding of {"value": v} minus
// the "{\n    \"value\": " prefix both sides share.
std::string fallback_key(const Json& v) {
  std::string out;
  append_pretty(out, v, 1);
  out += "\n}\n";
  return out;
}

std::string fallback_key(std::string_view text) {
  std::string out;
  append_json_string(out, text);
  out += "\n}\n";
  return out;
}

}  // namespace

bool strict_equal(const Json& a, const Json& b) noexcept {
  if (is_integer(a) || is_integer(b)) return is_integer(a) && is_integer(b) && integers_equal(a, b);
  const bool a_array = a.is_array() || a.is_object();
  const bool b_array = b.is_array() || b.is_object();
  if (a_array || b_array) {
    if (!a_array || !b_array || a.size() != b.size()) return false;
    if (a.empty()) return true;
    if (a.type() != b.type()) return false;  // a non-empty list never has string keys
    if (a.is_array()) {
      for (std::size_t i = 0; i < a.size(); ++i) {
        if (!strict_equal(a[i], b[i])) return false;
      }
      return true;
    }
    for (auto ia = a.begin(), ib = b.begin(); ia != a.end(); ++ia, ++ib) {
      if (ia.key() != ib.key() || !strict_equal(*ia, *ib)) return false;
    }
    return true;
  }
  if (a.type() != b.type()) return false;
  switch (a.type()) {
    case Type::null:
      return true;
    case Type::boolean:
      return a.get<bool>() == b.get<bool>();
    case Type::number_float:
      return a.get<double>() == b.get<double>();
    case Type::string:
      return a.get_ref<const std::string&>() == b.get_ref<const std::string&>();
    default:
      return false;  // binary and discarded values are never query values
  }
}

bool strict_equal(std::string_view a, const Json& b) noexcept {
  return b.is_string() && b.get_ref<const std::string&>() == a;
}

int compare(const Json& a, const Json& b) {
  if (a.is_number() && b.is_number()) {
    if (is_integer(a) && is_integer(b) && a.type() == b.type()) {
      return a.type() == Type::number_integer
                 ? three_way(a.get<std::int64_t>(), b.get<std::int64_t>())
                 : three_way(a.get<std::uint64_t>(), b.get<std::uint64_t>());
    }
    return three_way(as_long_double(a), as_long_double(b));
  }
  if (a.is_string() && b.is_string()) {
    return compare(std::string_view(a.get_ref<const std::string&>()), b);
  }
  if (a.is_boolean() && b.is_boolean()) return three_way(a.get<bool>(), b.get<bool>());
  if (a.is_null() && b.is_null()) return 0;
  return three_way(fallback_key(a), fallback_key(b));
}

int compare(std::string_view a, const Json& b) {
  if (b.is_string()) return three_way(a, std::string_view(b.get_ref<const std::string&>()));
  return three_way(fallback_key(a), fallback_key(b));
}

const Json* find_field(const Json& data, std::string_view field) noexcept {
  if (data.is_object()) {
    for (const auto& [key, value] : data.get_ref<const Json::object_t&>()) {
      if (key == field) return &value;
    }
    return nullptr;
  }
  if (data.is_array()) {
    // PHP turns a canonical decimal key into an integer index.
    if (field.empty() || field.size() > 18 || (field.size() > 1 && field[0] == '0')) {
      return nullptr;
    }
    std::size_t index = 0;
    for (const char c : field) {
      if (c < '0' || c > '9') return nullptr;
      index = index * 10 + static_cast<std::size_t>(c - '0');
    }
    return index < data.size() ? &data[index] : nullptr;
  }
  return nullptr;
}

bool is_blank_field(std::string_view field) noexcept {
  return field.find_first_not_of(std::string_view(" \t\n\r\v\0", 6)) == std::string_view::npos;
}

}  // namespace storh::engines
