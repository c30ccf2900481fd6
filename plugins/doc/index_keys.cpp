// Key encodings of engine-spec.md 4.7.2. The printf formats are PHP's; %G and %F of C are
// the same for finite doubles, the only ones JSON can hold.
#include "doc/index_keys.h"

#include <cinttypes>
#include <cstdio>

#include "common/canonical_json.h"
#include "common/hashes.h"
#include "common/query/json_values.h"

namespace storh::engines::doc {
namespace {

constexpr std::size_t kMaxHexStringBytes = 96;
constexpr std::uint64_t kOrderedIntLimit = 100000000000000000ULL;  // 10^17

void replace_chars(std::string& text, char from, char to) {
  for (char& c : text) {
    if (c == from) c = to;
  }
}

std::string integer_text(const Json& value) {
  return value.is_number_unsigned() ? std::to_string(value.get<std::uint64_t>())
                                    : std::to_string(value.get<std::int64_t>());
}

bool is_negative_integer(const Json& value) {
  return value.is_number_integer() && !value.is_number_unsigned() && value.get<std::int64_t>() < 0;
}

std::string printf_double(const char* format, double value) {
  char buffer[512];
  const int written = std::snprintf(buffer, sizeof buffer, format, value);
  if (written < 0) return {};
  return std::string(buffer, static_cast<std::size_t>(written) < sizeof buffer
                                 ? static_cast<std::size_t>(written)
                                 : sizeof buffer - 1);
}

// PHP's float repr in serialize() (serialize_precision -1): shortest round trip, no
// forced fraction ("1", "0.1", "1.0E+25").
std::string php_float(double value) {
  std::string text = encode_compact(Json(value));
  if (text.size() > 2 && text.compare(text.size() - 2, 2, ".0") == 0 &&
      text.find('e') == std::string::npos) {
    text.resize(text.size() - 2);
  }
  for (char& c : text) {
    if (c == 'e') c = 'E';
  }
  return text;
}

void append_php_string(std::string& out, std::string_view text) {
  out += "s:" + std::to_string(text.size()) + ":\"";
  out.append(text);
  out += "\";";
}

// A PHP array key: canonical decimal integers become integer keys.
void append_php_key(std::string& out, std::string_view key) {
  bool integer_like = !key.empty() && key.size() < 19;
  if (integer_like) {
    std::size_t start = key[0] == '-' ? 1 : 0;
    integer_like = start < key.size() && !(key[start] == '0' && key.size() > start + 1) &&
                   !(start == 1 && key == "-0");
    for (std::size_t i = start; integer_like && i < key.size(); ++i) {
      integer_like = key[i] >= '0' && key[i] <= '9';
    }
  }
  if (integer_like) {
    out += "i:";
    out.append(key);
    out += ';';
  } else {
    append_php_string(out, key);
  }
}

void append_php_value(std::string& out, const Json& value) {
  if (value.is_boolean()) {
    out += value.get<bool>() ? "b:1;" : "b:0;";
  } else if (value.is_number_integer()) {
    out += "i:" + integer_text(value) + ";";
  } else if (value.is_number_float()) {
    out += "d:" + php_float(value.get<double>()) + ";";
  } else if (value.is_string()) {
    append_php_string(out, value.get_ref<const std::string&>());
  } else if (value.is_array()) {
    out += "a:" + std::to_string(value.size()) + ":{";
    std::size_t index = 0;
    for (const Json& element : value) {
      out += "i:" + std::to_string(index++) + ";";
      append_php_value(out, element);
    }
    out += '}';
  } else if (value.is_object()) {
    out += "a:" + std::to_string(value.size()) + ":{";
    for (const auto& [key, element] : value.items()) {
      append_php_key(out, key);
      append_php_value(out, element);
    }
    out += '}';
  } else {  // null (and nothing else reaches here)
    out += "N;";
  }
}

}  // namespace

std::string hex_bytes(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.resize(bytes.size() * 2);
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    const auto byte = static_cast<unsigned char>(bytes[i]);
    out[2 * i] = kDigits[byte >> 4];
    out[2 * i + 1] = kDigits[byte & 0x0f];
  }
  return out;
}

std::string value_key(const Json& value) {
  if (value.is_number_integer()) {
    std::string text = "i-" + integer_text(value);
    replace_chars(text, '-', 'm');
    text[1] = '-';
    return text;
  }
  if (value.is_string()) {
    const auto& text = value.get_ref<const std::string&>();
    if (text.size() <= kMaxHexStringBytes) return "s-" + hex_bytes(text);
    return "s-" + xxh128_hex(text);
  }
  if (value.is_boolean()) return value.get<bool>() ? "b-1" : "b-0";
  if (value.is_number_float()) {
    std::string text = printf_double("%.17G", value.get<double>());
    replace_chars(text, '-', 'm');
    replace_chars(text, '.', 'd');
    replace_chars(text, '+', 'p');
    return "f-" + text;
  }
  if (value.is_null()) return "n";
  return "z-" + xxh128_hex(php_serialize(value));
}

std::string range_key(const Json& value) {
  if (value.is_number_integer() && !is_negative_integer(value)) {
    const std::string digits = integer_text(value);
    std::string key = "n-";
    if (digits.size() < 17) key.append(17 - digits.size(), '0');
    key += digits;
    key += "d000000";
    return key;
  }
  if (value.is_number()) {
    std::string text = printf_double("%024.6F", value.get<double>());
    replace_chars(text, '-', 'm');
    replace_chars(text, '.', 'd');
    return "n-" + text;
  }
  if (value.is_string()) return "s-" + hex_bytes(value.get_ref<const std::string&>());
  if (value.is_boolean()) return value.get<bool>() ? "b-1" : "b-0";
  return "z-" + value_key(value);
}

std::string compound_key(const Json& left, const Json& right) {
  std::string joined = value_key(left);
  joined += '\0';
  joined += value_key(right);
  return "c-" + xxh128_hex(joined);
}

bool is_indexable(const Json& value) noexcept {
  return !value.is_array() && !value.is_object() && !value.is_binary() && !value.is_discarded();
}

// NOLINTNEXTLINE(bugprone-exception-escape): each get<> follows its own type check
bool is_ordered(const Json& value) noexcept {
  if (value.is_string() || value.is_boolean()) return true;
  if (value.is_number_unsigned()) return value.get<std::uint64_t>() < kOrderedIntLimit;
  if (value.is_number_integer()) {
    const auto v = value.get<std::int64_t>();
    return v >= 0 && static_cast<std::uint64_t>(v) < kOrderedIntLimit;
  }
  return false;
}

std::string php_serialize(const Json& value) {
  std::string out;
  append_php_value(out, value);
  return out;
}

const Json* indexed_value(const Json* data, std::string_view field) noexcept {
  if (data == nullptr) return nullptr;
  const Json* value = find_field(*data, field);
  return value != nullptr && is_indexable(*value) ? value : nullptr;
}

}  // namespace storh::engines::doc
