#include "common/canonical_json.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

#include "common/hex.h"
#include "common/json_text_scan.h"

namespace storh::engines {
namespace {

// PHP's json_encode of a double with serialize_precision = -1 and
// JSON_PRESERVE_ZERO_FRACTION: zend_gcvt() layout with 17 as the exponent threshold.
void append_double(std::string& out, double value) {
  if (!std::isfinite(value)) {
    throw std::invalid_argument("JSON cannot encode NaN or infinite floats");
  }
  // Shortest round-trip digits, as "d[.ddd]e[+-]x".
  char buffer[40];
  const auto result =
      std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::scientific);
  std::string_view text(buffer, static_cast<std::size_t>(result.ptr - buffer));
  if (text.front() == '-') {
    out += '-';
    text.remove_prefix(1);
  }
  const std::size_t e_pos = text.find('e');
  std::string digits;
  for (const char c : text.substr(0, e_pos)) {
    if (c != '.') digits += c;
  }
  const int exponent = std::atoi(std::string(text.substr(e_pos + 1)).c_str());
  const int decimal_point = exponent + 1;  // digits before the decimal point

  if (decimal_point < -3 || decimal_point > 17) {
    out += digits[0];
    out += '.';
    out += digits.size() > 1 ? std::string_view(digits).substr(1) : std::string_view("0");
    out += exponent < 0 ? "e-" : "e+";
    out += std::to_string(std::abs(exponent));
  } else if (decimal_point <= 0) {
    out += "0.";
    out.append(static_cast<std::size_t>(-decimal_point), '0');
    out += digits;
  } else {
    const auto whole = static_cast<std::size_t>(decimal_point);
    if (digits.size() <= whole) {
      out += digits;
      out.append(whole - digits.size(), '0');
      out += ".0";
    } else {
      out.append(digits, 0, whole);
      out += '.';
      out.append(digits, whole, std::string::npos);
    }
  }
}

void append_newline_indent(std::string& out, int level) {
  out += '\n';
  out.append(static_cast<std::size_t>(level) * 4, ' ');
}

// One encoder for both forms; `pretty` < 0 means compact, else the indent level.
void append_value(std::string& out, const Json& value, int pretty) {
  switch (value.type()) {
    case Json::value_t::null:
      out += "null";
      return;
    case Json::value_t::boolean:
      out += value.get<bool>() ? "true" : "false";
      return;
    case Json::value_t::number_integer:
      out += std::to_string(value.get<std::int64_t>());
      return;
    case Json::value_t::number_unsigned:
      out += std::to_string(value.get<std::uint64_t>());
      return;
    case Json::value_t::number_float:
      append_double(out, value.get<double>());
      return;
    case Json::value_t::string:
      append_json_string(out, value.get_ref<const std::string&>());
      return;
    case Json::value_t::array:
    case Json::value_t::object: {
      if (value.empty()) {
        out += "[]";
        return;
      }
      const bool is_object = value.is_object();
      out += is_object ? '{' : '[';
      bool first = true;
      for (auto it = value.begin(); it != value.end(); ++it) {
        if (!first) out += ',';
        first = false;
        if (pretty >= 0) append_newline_indent(out, pretty + 1);
        if (is_object) {
          append_json_string(out, it.key());
          out += pretty >= 0 ? ": " : ":";
        }
        append_value(out, *it, pretty >= 0 ? pretty + 1 : -1);
      }
      if (pretty >= 0) append_newline_indent(out, pretty);
      out += is_object ? '}' : ']';
      return;
    }
    case Json::value_t::binary:
    case Json::value_t::discarded:
      break;
  }
  throw std::invalid_argument("JSON cannot encode a binary or discarded value");
}

}  // namespace

void append_json_string(std::string& out, std::string_view text) {
  out += '"';
  const char* p = text.data();
  const char* const end = p + text.size();
  while (p != end) {
    // Plain text up to the next byte that may need an escape, in one append.
    const char* const plain_end = skip_plain_json_text(p, end);
    out.append(p, plain_end);
    p = plain_end;
    if (p == end) break;
    const auto c = static_cast<unsigned char>(*p++);
    switch (c) {
      case '"':
        out += "\\\"";
        continue;
      case '\\':
        out += "\\\\";
        continue;
      case '\b':
        out += "\\b";
        continue;
      case '\f':
        out += "\\f";
        continue;
      case '\n':
        out += "\\n";
        continue;
      case '\r':
        out += "\\r";
        continue;
      case '\t':
        out += "\\t";
        continue;
      default:
        break;
    }
    if (c < 0x20) {
      out += "\\u00";
      out += kLowerHexDigits[c >> 4];
      out += kLowerHexDigits[c & 0xf];
    } else if (c == 0xe2 && end - p >= 2 && p[0] == '\x80' && (p[1] == '\xa8' || p[1] == '\xa9')) {
      // U+2028 LINE SEPARATOR and U+2029 PARAGRAPH SEPARATOR break JavaScript parsers.
      out += p[1] == '\xa8' ? "\\u2028" : "\\u2029";
      p += 2;
    } else {
      out += static_cast<char>(c);
    }
  }
  out += '"';
}

void append_compact(std::string& out, const Json& value) {
  append_value(out, value, -1);
}

void append_pretty(std::string& out, const Json& value, int indent_level) {
  append_value(out, value, indent_level);
}

std::string encode_compact(const Json& value) {
  std::string out;
  append_compact(out, value);
  return out;
}

std::string encode_pretty(const Json& value) {
  std::string out;
  append_pretty(out, value, 0);
  return out;
}

}  // namespace storh::engines
