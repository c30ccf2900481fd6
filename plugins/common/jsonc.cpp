#include "common/jsonc.h"

#include "common/canonical_json.h"
#include "common/fast_json.h"
#include "common/text.h"

namespace storh::engines {
namespace {

bool looks_like_object(std::string_view text) noexcept {
  return text.size() >= 2 && text.front() == '{' && text.back() == '}';
}

Json parse_object(std::string_view text) {
  Json value = parse_json(text);
  if (value.is_discarded()) throw JsoncError("Jsonc: invalid JSON");
  if (!value.is_object()) throw JsoncError("Jsonc: must decode to an object");
  return value;
}

// The string-literal state both strippers share: a '"' opens a literal, inside one every
// character is copied, a backslash copies the next character too, and '"' closes it.
// Returns true when text[i] was consumed here (i may step over an escaped character).
bool copy_string_literal(std::string_view text, std::size_t& i, bool& in_string, std::string& out) {
  const char c = text[i];
  if (!in_string && c != '"') return false;
  out.push_back(c);
  if (!in_string) {
    in_string = true;
  } else if (c == '\\' && i + 1 < text.size()) {
    out.push_back(text[++i]);
  } else if (c == '"') {
    in_string = false;
  }
  return true;
}

}  // namespace

std::string strip_comments(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (copy_string_literal(text, i, in_string, out)) continue;
    const char c = text[i];
    const char next = i + 1 < text.size() ? text[i + 1] : '\0';
    if (c == '/' && next == '/') {
      // Drop up to, not including, the line break.
      while (i + 1 < text.size() && text[i + 1] != '\n' && text[i + 1] != '\r') ++i;
    } else if (c == '/' && next == '*') {
      const std::size_t end = text.find("*/", i + 2);
      if (end == std::string_view::npos) break;  // unterminated: drop everything to the end
      for (std::size_t j = i; j < end + 2; ++j) {
        out.push_back(text[j] == '\n' || text[j] == '\r' ? text[j] : ' ');
      }
      i = end + 1;
    } else {
      out.push_back(c);
    }
  }
  return out;
}

std::string strip_trailing_commas(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (copy_string_literal(text, i, in_string, out)) continue;
    if (text[i] == ',') {
      std::size_t next = i + 1;
      while (next < text.size() && is_ascii_space(text[next])) ++next;
      if (next < text.size() && (text[next] == '}' || text[next] == ']')) continue;
    }
    out.push_back(text[i]);
  }
  return out;
}

Json decode_object(std::string_view text) {
  const std::string_view trimmed = trim(text);
  if (looks_like_object(trimmed)) {
    Json value = parse_json(trimmed);
    if (!value.is_discarded() && value.is_object()) return value;
  }
  const std::string cleaned = strip_trailing_commas(strip_comments(trimmed));
  const std::string_view candidate = trim(cleaned);
  if (!looks_like_object(candidate)) throw JsoncError("Jsonc: must decode to an object");
  return parse_object(candidate);
}

std::string encode_object(const Json& value) {
  if (value.empty()) return "{}\n";
  std::string out = encode_pretty(value);
  out.push_back('\n');
  return out;
}

std::string encode_compact_object(const Json& value) {
  if (value.empty()) return "{}\n";
  std::string out = encode_compact(value);
  out.push_back('\n');
  return out;
}

}  // namespace storh::engines
