#include "util/text.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <system_error>

namespace storh {

std::string_view trim(std::string_view text) {
  const auto space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
  while (!text.empty() && space(text.front())) text.remove_prefix(1);
  while (!text.empty() && space(text.back())) text.remove_suffix(1);
  return text;
}

namespace {

template <typename Number>
std::optional<Number> parse_all(std::string_view text) {
  Number value{};
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, value);
  if (text.empty() || error != std::errc() || stop != end) return std::nullopt;
  return value;
}

}  // namespace

std::optional<double> parse_decimal(std::string_view text) {
  const std::optional<double> value = parse_all<double>(text);
  if (!value || !std::isfinite(*value)) return std::nullopt;
  return value;
}

std::optional<std::uint64_t> parse_whole(std::string_view text) {
  return parse_all<std::uint64_t>(text);
}

}  // namespace storh
