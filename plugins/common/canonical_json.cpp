#include "common/canonical_json.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "common/hex.h"
#include "common/json_text_scan.h"

namespace storh::engines {
namespace {

// The most characters write_double writes: a sign, 17 digits, a point, "e-" and a
// three-digit exponent, or a sign, "0.", three zeros and 17 digits.
constexpr std::size_t kMaxDoubleChars = 32;
// The most characters a 64-bit integer takes: "-9223372036854775808", 18446744073709551615.
constexpr std::size_t kMaxIntegerChars = 20;

// PHP's json_encode of a double with serialize_precision = -1 and
// JSON_PRESERVE_ZERO_FRACTION: zend_gcvt() layout with 17 as the exponent threshold.
// Writes at `out`, which has room for kMaxDoubleChars; returns the end.
char* write_double(char* out, double value) {
  if (!std::isfinite(value)) {
    throw std::invalid_argument("JSON cannot encode NaN or infinite floats");
  }
  // Shortest round-trip digits, as "d[.ddd]e[+-]x".
  char buffer[40];
  const auto result =
      std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::scientific);
  std::string_view text(buffer, static_cast<std::size_t>(result.ptr - buffer));
  if (text.front() == '-') {
    *out++ = '-';
    text.remove_prefix(1);
  }
  const std::size_t e_pos = text.find('e');
  char digits[24];
  std::size_t count = 0;
  for (const char c : text.substr(0, e_pos)) {
    if (c != '.') digits[count++] = c;
  }
  int exponent = 0;
  const std::string_view exponent_text = text.substr(e_pos + 2);  // after "e+" or "e-"
  std::from_chars(exponent_text.data(), exponent_text.data() + exponent_text.size(), exponent);
  if (text[e_pos + 1] == '-') exponent = -exponent;
  const int decimal_point = exponent + 1;  // digits before the decimal point

  const auto put = [&out](const char* from, std::size_t size) {
    std::memcpy(out, from, size);
    out += size;
  };
  if (decimal_point < -3 || decimal_point > 17) {
    *out++ = digits[0];
    *out++ = '.';
    if (count > 1) {
      put(digits + 1, count - 1);
    } else {
      *out++ = '0';
    }
    put(exponent < 0 ? "e-" : "e+", 2);
    out = std::to_chars(out, out + 3, std::abs(exponent)).ptr;
  } else if (decimal_point <= 0) {
    put("0.", 2);
    out = std::fill_n(out, -decimal_point, '0');
    put(digits, count);
  } else {
    const auto whole = static_cast<std::size_t>(decimal_point);
    if (count <= whole) {
      put(digits, count);
      out = std::fill_n(out, whole - count, '0');
      put(".0", 2);
    } else {
      put(digits, whole);
      *out++ = '.';
      put(digits + whole, count - whole);
    }
  }
  return out;
}

template <typename Integer>
void write_integer(TextOut& out, Integer value) {
  char* const at = out.room(kMaxIntegerChars);
  out.set_end(std::to_chars(at, at + kMaxIntegerChars, value).ptr);
}

void write_newline_indent(TextOut& out, int level) {
  const auto spaces = static_cast<std::size_t>(level) * 4;
  char* const at = out.room(1 + spaces);
  *at = '\n';
  std::memset(at + 1, ' ', spaces);
  out.advance(1 + spaces);
}

// One encoder for both forms; `pretty` < 0 means compact, else the indent level.
void write_value(TextOut& out, const Json& value, int pretty) {
  switch (value.type()) {
    case Json::value_t::null:
      out.put("null");
      return;
    case Json::value_t::boolean:
      out.put(value.get_ref<const Json::boolean_t&>() ? "true" : "false");
      return;
    case Json::value_t::number_integer:
      write_integer(out, value.get_ref<const Json::number_integer_t&>());
      return;
    case Json::value_t::number_unsigned:
      write_integer(out, value.get_ref<const Json::number_unsigned_t&>());
      return;
    case Json::value_t::number_float: {
      char* const at = out.room(kMaxDoubleChars);
      out.set_end(write_double(at, value.get_ref<const Json::number_float_t&>()));
      return;
    }
    case Json::value_t::string:
      write_json_string(out, value.get_ref<const std::string&>());
      return;
    case Json::value_t::array:
    case Json::value_t::object: {
      if (value.empty()) {
        out.put("[]");
        return;
      }
      const int inner = pretty >= 0 ? pretty + 1 : -1;
      const auto separate = [&](bool first) {
        if (!first) out.put(',');
        if (pretty >= 0) write_newline_indent(out, inner);
      };
      // The containers themselves, not nlohmann's iterators: an object is a vector of
      // (key, value) pairs in insertion order.
      if (value.is_object()) {
        out.put('{');
        bool first = true;
        for (const auto& [key, member] : value.get_ref<const Json::object_t&>()) {
          separate(first);
          first = false;
          write_json_string(out, key);
          out.put(pretty >= 0 ? std::string_view(": ") : std::string_view(":"));
          write_value(out, member, inner);
        }
      } else {
        out.put('[');
        bool first = true;
        for (const Json& element : value.get_ref<const Json::array_t&>()) {
          separate(first);
          first = false;
          write_value(out, element, inner);
        }
      }
      if (pretty >= 0) write_newline_indent(out, pretty);
      out.put(value.is_object() ? '}' : ']');
      return;
    }
    case Json::value_t::binary:
    case Json::value_t::discarded:
      break;
  }
  throw std::invalid_argument("JSON cannot encode a binary or discarded value");
}

// Writes the escape of the byte at `from`, which is not plain, and advances `from` past
// what it stands for. `to` has room for 6 characters; returns the end.
char* write_escape(const char*& from, const char* end, char* to) {
  const auto c = static_cast<unsigned char>(*from++);
  const auto two = [to](char second) {
    to[0] = '\\';
    to[1] = second;
    return to + 2;
  };
  switch (c) {
    case '"':
      return two('"');
    case '\\':
      return two('\\');
    case '\b':
      return two('b');
    case '\f':
      return two('f');
    case '\n':
      return two('n');
    case '\r':
      return two('r');
    case '\t':
      return two('t');
    default:
      break;
  }
  if (c < 0x20) {
    to = std::copy_n("\\u00", 4, to);
    to[0] = kLowerHexDigits[c >> 4];
    to[1] = kLowerHexDigits[c & 0xf];
    return to + 2;
  }
  if (c == 0xe2 && end - from >= 2 && from[0] == '\x80' &&
      (from[1] == '\xa8' || from[1] == '\xa9')) {
    // U+2028 LINE SEPARATOR and U+2029 PARAGRAPH SEPARATOR break JavaScript parsers.
    const char* const escape = from[1] == '\xa8' ? "\\u2028" : "\\u2029";
    from += 2;
    return std::copy_n(escape, 6, to);
  }
  *to = static_cast<char>(c);  // any other byte of a non-ASCII character: as it is
  return to + 1;
}

}  // namespace

void write_json_string(TextOut& out, std::string_view text) {
  const char* from = text.data();
  const char* const end = from + text.size();
  // Room for the text as it is, its quotes and the copy's slack. Invariant: the room
  // left holds what is left of the text, the closing quote and the slack; an escape asks
  // for its extra characters.
  char* to = out.room(text.size() + 2 + kPlainCopySlack);
  *to++ = '"';
  while (true) {
    to = copy_plain_json_text(from, end, to);
    if (from == end) break;
    out.set_end(to);
    to = write_escape(from, end,
                      out.room(6 + static_cast<std::size_t>(end - from) + kPlainCopySlack));
  }
  *to++ = '"';
  out.set_end(to);
}

void write_compact(TextOut& out, const Json& value) {
  write_value(out, value, -1);
}

void append_json_string(std::string& out, std::string_view text) {
  TextOut text_out(out);
  write_json_string(text_out, text);
}

void append_compact(std::string& out, const Json& value) {
  TextOut text_out(out);
  write_value(text_out, value, -1);
}

void append_pretty(std::string& out, const Json& value, int indent_level) {
  TextOut text_out(out);
  write_value(text_out, value, indent_level);
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
