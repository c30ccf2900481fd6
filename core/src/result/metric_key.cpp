#include "result/metric_key.h"

#include <algorithm>

#include <fmt/format.h>

namespace storh::result {
namespace {

// Whether the comma at `comma` starts a new qualifier: a "name=" follows it.
bool starts_qualifier(std::string_view inner, std::size_t comma) {
  const std::size_t equals = inner.find('=', comma + 1);
  if (equals == std::string_view::npos) return false;
  return inner.substr(comma + 1, equals - comma - 1).find(',') == std::string_view::npos;
}

std::vector<std::string> split_qualifiers(std::string_view inner) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (std::size_t at = inner.find(','); at != std::string_view::npos;
       at = inner.find(',', at + 1)) {
    if (!starts_qualifier(inner, at)) continue;
    parts.emplace_back(inner.substr(start, at - start));
    start = at + 1;
  }
  parts.emplace_back(inner.substr(start));
  return parts;
}

}  // namespace

MetricKey MetricKey::parse(std::string_view key) {
  MetricKey parsed;
  std::string_view head = key;
  const std::size_t open = key.find('[');
  if (open != std::string_view::npos && key.ends_with(']')) {
    head = key.substr(0, open);
    parsed.qualifiers = split_qualifiers(key.substr(open + 1, key.size() - open - 2));
  }
  const std::size_t dot = head.find('.');
  parsed.engine = std::string(head.substr(0, dot));
  if (dot != std::string_view::npos) parsed.operation = std::string(head.substr(dot + 1));
  return parsed;
}

std::string MetricKey::base() const {
  return operation.empty() ? engine : engine + "." + operation;
}

std::string MetricKey::label() const {
  if (qualifiers.empty()) return operation;
  return fmt::format("{}[{}]", operation, fmt::join(qualifiers, ","));
}

std::string MetricKey::to_string() const {
  if (qualifiers.empty()) return base();
  return fmt::format("{}[{}]", base(), fmt::join(qualifiers, ","));
}

MetricKey MetricKey::without(const std::vector<std::string>& listed) const {
  MetricKey kept = *this;
  for (const std::string& qualifier : listed) {
    const auto at = std::find(kept.qualifiers.begin(), kept.qualifiers.end(), qualifier);
    if (at != kept.qualifiers.end()) kept.qualifiers.erase(at);
  }
  return kept;
}

}  // namespace storh::result
