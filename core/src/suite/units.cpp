#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>

#include <fmt/format.h>

#include "suite/parse.h"
#include "util/secrets.h"

namespace storh::suite {
namespace {

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

std::size_t count_digits(std::string_view text, std::size_t from) {
  std::size_t end = from;
  while (end < text.size() && is_digit(text[end])) ++end;
  return end - from;
}

std::string lowercase(std::string_view text) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](char c) {
    return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  });
  return lower;
}

}  // namespace

std::optional<std::uint64_t> parse_count(std::string_view text) {
  std::uint64_t multiple = 1;
  if (!text.empty()) {
    switch (text.back()) {
      case 'k':
      case 'K':
        multiple = 1'000;
        break;
      case 'M':
        multiple = 1'000'000;
        break;
      case 'G':
        multiple = 1'000'000'000;
        break;
      default:
        break;
    }
  }
  if (multiple != 1) text.remove_suffix(1);
  std::uint64_t number = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), number);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  if (number > std::numeric_limits<std::uint64_t>::max() / multiple) return std::nullopt;
  return number * multiple;
}

// Every suffix is a binary multiple, "MB" included, as PHP's memory_limit read them:
// nobody sizes a memory limit in powers of ten, and one reading is less surprising.
std::optional<std::uint64_t> parse_size(std::string_view text) {
  constexpr std::array<std::pair<std::string_view, int>, 14> kSuffixes = {{
      {"", 0},
      {"b", 0},
      {"k", 10},
      {"kb", 10},
      {"kib", 10},
      {"m", 20},
      {"mb", 20},
      {"mib", 20},
      {"g", 30},
      {"gb", 30},
      {"gib", 30},
      {"t", 40},
      {"tb", 40},
      {"tib", 40},
  }};
  const std::size_t digits = count_digits(text, 0);
  if (digits == 0) return std::nullopt;
  std::uint64_t number = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + digits, number);
  if (ec != std::errc() || end != text.data() + digits) return std::nullopt;

  const std::string suffix = lowercase(text.substr(digits));
  const auto found = std::find_if(kSuffixes.begin(), kSuffixes.end(),
                                  [&](const auto& entry) { return entry.first == suffix; });
  if (found == kSuffixes.end()) return std::nullopt;
  const int shift = found->second;
  if (number > (std::numeric_limits<std::uint64_t>::max() >> shift)) return std::nullopt;
  return number << shift;
}

// Suffixes are case-sensitive: "M" could be read as months, so only "m" is minutes.
std::optional<double> parse_duration(std::string_view text) {
  const std::size_t whole = count_digits(text, 0);
  if (whole == 0) return std::nullopt;
  std::size_t number_end = whole;
  if (number_end < text.size() && text[number_end] == '.') {
    const std::size_t fraction = count_digits(text, number_end + 1);
    if (fraction == 0) return std::nullopt;
    number_end += 1 + fraction;
  }
  double number = 0;
  const auto [end, ec] =
      std::from_chars(text.data(), text.data() + number_end, number, std::chars_format::fixed);
  if (ec != std::errc() || end != text.data() + number_end) return std::nullopt;

  const std::string_view suffix = text.substr(number_end);
  double seconds = 0;
  if (suffix.empty() || suffix == "s") {
    seconds = number;
  } else if (suffix == "ms") {
    seconds = number / 1000;  // divide: 1500 * 0.001 is not exactly 1.5
  } else if (suffix == "us") {
    seconds = number / 1e6;  // gate.min_effect is usually microseconds
  } else if (suffix == "ns") {
    seconds = number / 1e9;
  } else if (suffix == "m") {
    seconds = number * 60;
  } else if (suffix == "h") {
    seconds = number * 3600;
  } else {
    return std::nullopt;
  }
  if (!std::isfinite(seconds)) return std::nullopt;
  return seconds;
}

std::string param_value_text(const ParamValue& value) {
  return std::visit(
      [](const auto& v) -> std::string {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::string>) {
          return mask_secrets(v);
        } else if constexpr (std::is_same_v<T, bool>) {
          return v ? "true" : "false";
        } else if constexpr (std::is_same_v<T, std::int64_t>) {
          return fmt::format("{}", v);
        } else {
          // Shortest round-trip text, with ".0" kept so 2.0 does not read as an integer.
          std::string text = fmt::format("{}", v);
          const bool integral =
              std::all_of(text.begin(), text.end(), [](char c) { return is_digit(c) || c == '-'; });
          if (integral) text += ".0";
          return text;
        }
      },
      value);
}

}  // namespace storh::suite
