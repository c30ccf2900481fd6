// util/secrets.cpp: finding the passwords of connection strings (secrets.h).
#include "util/secrets.h"

#include <array>
#include <cctype>

namespace storh {

namespace {

constexpr std::string_view kMask = "***";

bool is_word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

// Masks the password of each scheme://user:password@host in `text`.
void mask_user_info(std::string& text) {
  for (std::size_t scheme = text.find("://"); scheme != std::string::npos;
       scheme = text.find("://", scheme + 3)) {
    const std::size_t start = scheme + 3;
    // The authority ends at the path, query, fragment or the end of the word.
    std::size_t end = text.find_first_of("/?# \t\r\n\"'", start);
    if (end == std::string::npos) end = text.size();
    const std::size_t at = text.rfind('@', end - 1);
    if (at == std::string::npos || at < start || at >= end) continue;
    const std::size_t colon = text.find(':', start);
    if (colon == std::string::npos || colon > at) continue;
    if (text.compare(colon + 1, at - colon - 1, kMask) == 0) continue;
    text.replace(colon + 1, at - colon - 1, kMask);
  }
}

// The end of a password= value starting at `value`: a quoted libpq value ends at its
// closing quote (backslash escapes), a URI parameter at '&', a keyword value at white
// space; any of them at a double quote or the end.
std::size_t value_end(const std::string& text, std::size_t value) {
  if (value < text.size() && text[value] == '\'') {
    for (std::size_t i = value + 1; i < text.size(); ++i) {
      if (text[i] == '\\') {
        ++i;
      } else if (text[i] == '\'') {
        return i + 1;
      }
    }
    return text.size();
  }
  const std::size_t end = text.find_first_of("& \t\r\n\"", value);
  return end == std::string::npos ? text.size() : end;
}

// Masks the value of each password= (or "password =") that starts a parameter.
void mask_password_parameters(std::string& text) {
  static constexpr std::string_view kKey = "password";
  for (std::size_t at = text.find(kKey); at != std::string::npos; at = text.find(kKey, at + 1)) {
    if (at > 0 && is_word_char(text[at - 1])) continue;  // "mypassword=", "pg_password="
    std::size_t equals = at + kKey.size();
    while (equals < text.size() && (text[equals] == ' ' || text[equals] == '\t')) ++equals;
    if (equals >= text.size() || text[equals] != '=') continue;
    std::size_t value = equals + 1;
    while (value < text.size() && (text[value] == ' ' || text[value] == '\t')) ++value;
    const std::size_t end = value_end(text, value);
    if (end == value || text.compare(value, end - value, kMask) == 0) continue;
    text.replace(value, end - value, kMask);
  }
}

}  // namespace

std::string mask_secrets(std::string_view text) {
  std::string masked(text);
  if (masked.find("://") != std::string::npos) mask_user_info(masked);
  if (masked.find("password") != std::string::npos) mask_password_parameters(masked);
  return masked;
}

bool holds_secret(std::string_view text) {
  return mask_secrets(text) != text;
}

bool is_keyword_connection_string(std::string_view location) {
  // libpq's connection keywords a history location may start with.
  static constexpr std::array<std::string_view, 10> kKeywords = {
      "host",     "hostaddr", "port",    "dbname",           "user",
      "password", "service",  "sslmode", "application_name", "connect_timeout"};
  std::size_t start = 0;
  while (start < location.size() && std::isspace(static_cast<unsigned char>(location[start]))) {
    ++start;
  }
  for (std::string_view keyword : kKeywords) {
    if (location.substr(start, keyword.size()) != keyword) continue;
    std::size_t next = start + keyword.size();
    while (next < location.size() && (location[next] == ' ' || location[next] == '\t')) ++next;
    if (next < location.size() && location[next] == '=') return true;
  }
  return false;
}

}  // namespace storh
