#include "report/format.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

namespace storh::report {
namespace {

struct Scaled {
  std::string number;
  int power = 0;  // of 1000
};

// Rounds `value` to `digits` significant digits, then scales it by the power of 1000
// in [min_power, max_power] that brings it nearest to [1, 1000). Rounding before
// scaling is what turns 999.96 into "1.000" of the next unit instead of "1000.0".
Scaled scale(double value, int digits, int min_power, int max_power) {
  if (value == 0 || !std::isfinite(value)) {
    return {fmt::format("{}", value), std::clamp(0, min_power, max_power)};
  }
  const std::string scientific = fmt::format("{:.{}e}", value, digits - 1);  // "4.123e-04"
  const std::size_t e = scientific.find('e');
  int exponent = 0;
  std::from_chars(scientific.data() + e + 1 + (scientific[e + 1] == '+' ? 1 : 0),
                  scientific.data() + scientific.size(), exponent);
  const double rounded = std::strtod(scientific.c_str(), nullptr);
  const int power =
      std::clamp(exponent >= 0 ? exponent / 3 : -((2 - exponent) / 3), min_power, max_power);
  const int decimals = std::max(0, digits - 1 - (exponent - 3 * power));
  return {fmt::format("{:.{}f}", rounded / std::pow(1000.0, power), decimals), power};
}

}  // namespace

std::string format_seconds(double seconds) {
  constexpr std::array<const char*, 4> kUnits = {"ns", "us", "ms", "s"};  // powers -3..0
  const Scaled scaled = scale(seconds, 4, -3, 0);
  const int unit = scaled.power + 3;
  return fmt::format("{} {}", scaled.number, kUnits[static_cast<std::size_t>(unit)]);
}

std::string format_rate(double per_second, std::string_view unit) {
  constexpr std::array<const char*, 5> kPrefixes = {"", "k ", "M ", "G ", "T "};
  const Scaled scaled = scale(per_second, 3, 0, 4);
  return fmt::format("{} {}{}/s", scaled.number, kPrefixes[static_cast<std::size_t>(scaled.power)],
                     unit.empty() ? std::string_view("items") : unit);
}

std::string format_bytes(std::uint64_t bytes) {
  constexpr std::array<const char*, 7> kUnits = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (bytes < 1024) return fmt::format("{} B", bytes);
  auto value = static_cast<double>(bytes);
  std::size_t unit = 0;
  while (value >= 1024 && unit + 1 < kUnits.size()) {
    value /= 1024;
    ++unit;
  }
  return fmt::format("{:.1f} {}", value, kUnits[unit]);
}

}  // namespace storh::report
