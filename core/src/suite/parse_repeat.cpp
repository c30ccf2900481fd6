// `repeat` in a suite file and --repeat: a count, or adaptive bounds (suite.h).
#include <array>
#include <cmath>
#include <string>

#include <fmt/format.h>

#include "suite/parse.h"
#include "suite/suite_internal.h"

namespace storh::suite {
namespace {

using detail::in_quotes;

// Far beyond any real suite, and small enough that repeat indices never overflow.
constexpr std::int64_t kMaxRepeats = 1'000'000;
constexpr std::string_view kSuiteForm = "repeat = { min = 5, max = 30, until = \"2%\" }";
constexpr std::string_view kFlagForm = "--repeat=5..30@2%";

// "2%" -> 0.02; nullopt unless a number in (0, 100] followed by '%'.
std::optional<double> parse_until(std::string_view text) {
  if (text.size() < 2 || text.back() != '%') return std::nullopt;
  const std::string number(text.substr(0, text.size() - 1));
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(number, &used);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (used != number.size() || !std::isfinite(value) || value <= 0 || value > 100) {
    return std::nullopt;
  }
  return value / 100;
}

std::optional<std::int64_t> parse_bound(std::string_view text) {
  const std::optional<std::uint64_t> number = parse_whole(text);
  if (!number || *number > static_cast<std::uint64_t>(kMaxRepeats)) return std::nullopt;
  return static_cast<std::int64_t>(*number);
}

// min <= max, both in 1..kMaxRepeats; the message, or empty.
std::string bounds_error(std::int64_t min, std::int64_t max) {
  if (min < 1 || max < 1 || min > kMaxRepeats || max > kMaxRepeats) {
    return fmt::format("min and max must be whole numbers from 1 to {}", kMaxRepeats);
  }
  if (min > max) return fmt::format("min {} is more than max {}", min, max);
  return {};
}

}  // namespace

std::string percent_text(double fraction) {
  return fmt::format("{:g}%", fraction * 100);
}

std::string repeat_until_text(const RepeatUntil& bounds) {
  return fmt::format("{}..{} repeats per cell until \u00b1{}", bounds.min, bounds.max,
                     percent_text(bounds.until));
}

namespace detail {

void read_repeat(Reader& reader, const toml::node& node, Suite& suite) {
  if (const auto* number = node.as_integer()) {
    if (number->get() < 1) {
      reader.type_error(node, "repeat", "an integer >= 1");
      return;
    }
    if (number->get() > kMaxRepeats) {
      reader.type_error(node, "repeat", fmt::format("an integer from 1 to {}", kMaxRepeats));
      return;
    }
    suite.repeat = static_cast<std::uint32_t>(number->get());
    suite.repeat_until.reset();
    return;
  }
  const auto* table = node.as_table();
  if (table == nullptr) {
    reader.type_error(node, "repeat",
                      fmt::format("an integer >= 1 or a table such as {}", kSuiteForm.substr(9)));
    return;
  }
  constexpr std::array<std::string_view, 3> kKeys = {"min", "max", "until"};
  std::optional<std::int64_t> min, max;
  std::optional<double> until;
  bool bad = false;
  for (const auto& [key, value] : reader.known_entries(*table, kKeys, "repeat")) {
    const std::string name(key->str());
    if (name == "until") {
      const auto* text = value->as_string();
      until = text != nullptr ? parse_until(text->get()) : std::nullopt;
      if (!until) {
        reader.type_error(
            *value, "until",
            fmt::format("a percentage above 0 and at most 100 such as \"2%\" ({})", kSuiteForm));
        bad = true;
      }
      continue;
    }
    const auto* number = value->as_integer();
    if (number == nullptr || number->get() < 1 || number->get() > kMaxRepeats) {
      reader.type_error(*value, name,
                        fmt::format("an integer from 1 to {} ({})", kMaxRepeats, kSuiteForm));
      bad = true;
      continue;
    }
    (name == "min" ? min : max) = number->get();
  }
  if (bad) return;
  if (!min || !max || !until) {
    reader.error(node, fmt::format("\"repeat\" needs min, max and until: {}", kSuiteForm));
    return;
  }
  if (std::string error = bounds_error(*min, *max); !error.empty()) {
    reader.error(node, fmt::format("\"repeat\": {} ({})", error, kSuiteForm));
    return;
  }
  suite.repeat_until =
      RepeatUntil{static_cast<std::uint32_t>(*min), static_cast<std::uint32_t>(*max), *until};
  suite.repeat = suite.repeat_until->min;
}

bool apply_repeat_flag(std::string_view text, Suite& suite, std::string& error) {
  const std::size_t dots = text.find("..");
  if (dots == std::string_view::npos) {
    const std::optional<std::int64_t> count = parse_bound(text);
    if (!count || *count < 1) {
      error = fmt::format("expected a whole number >= 1, got {} (or adaptive: {})", in_quotes(text),
                          kFlagForm);
      return false;
    }
    suite.repeat = static_cast<std::uint32_t>(*count);
    suite.repeat_until.reset();
    return true;
  }
  const std::size_t at = text.find('@', dots);
  const std::optional<std::int64_t> min = parse_bound(text.substr(0, dots));
  const std::optional<std::int64_t> max =
      parse_bound(text.substr(dots + 2, at == std::string_view::npos ? at : at - dots - 2));
  const std::optional<double> until =
      at == std::string_view::npos ? std::nullopt : parse_until(text.substr(at + 1));
  if (!min || !max || !until) {
    error = fmt::format(
        "expected MIN..MAX@PERCENT such as {} (min and max from 1 to {}, a percentage above 0 "
        "and at most 100), got {}",
        kFlagForm, kMaxRepeats, in_quotes(text));
    return false;
  }
  if (std::string bounds = bounds_error(*min, *max); !bounds.empty()) {
    error = fmt::format("{} (e.g. {}), got {}", bounds, kFlagForm, in_quotes(text));
    return false;
  }
  suite.repeat_until =
      RepeatUntil{static_cast<std::uint32_t>(*min), static_cast<std::uint32_t>(*max), *until};
  suite.repeat = suite.repeat_until->min;
  return true;
}

}  // namespace detail
}  // namespace storh::suite
