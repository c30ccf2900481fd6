// text.h: ASCII whitespace, and text with it trimmed, the same for every engine (the
// JSONC reader, PostgreSQL's settings). The C locale's isspace set, without a locale.
#pragma once

#include <string_view>

namespace storh::engines {

// Space, tab, newline, vertical tab, form feed or carriage return.
constexpr bool is_ascii_space(char c) noexcept {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

// `text` without leading and trailing ASCII whitespace; a view into `text`.
constexpr std::string_view trim(std::string_view text) noexcept {
  while (!text.empty() && is_ascii_space(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_ascii_space(text.back())) text.remove_suffix(1);
  return text;
}

}  // namespace storh::engines
