#include "suite/suite_internal.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <type_traits>
#include <variant>

#include <fmt/format.h>

#include "util/shorten.h"

namespace storh::suite::detail {

std::string in_quotes(std::string_view text) {
  return fmt::format("\"{}\"", shorten(text));
}

std::string join(const std::vector<std::string>& items) {
  return fmt::format("{}", fmt::join(items, ", "));
}

std::string line_col(const SourcePos& pos) {
  return fmt::format("{}:{}", pos.line, pos.column);
}

std::vector<std::string_view> split_unquoted(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  char quote = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quote != 0) {
      if (c == quote) quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == separator) {
      parts.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  parts.push_back(text.substr(start));
  return parts;
}

std::string describe(const ParamValue& value) {
  return std::visit(
      [&](const auto& v) -> std::string {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::string>) return "string " + in_quotes(v);
        if constexpr (std::is_same_v<T, std::int64_t>) return "integer " + param_value_text(value);
        if constexpr (std::is_same_v<T, double>) return "float " + param_value_text(value);
        if constexpr (std::is_same_v<T, bool>) return "boolean " + param_value_text(value);
      },
      value);
}

SourcePos Reader::pos(const toml::source_region& region) const {
  return SourcePos{origin_, region.begin.line, region.begin.column};
}

void Reader::error(SourcePos where, std::string message) {
  errors_.push_back(SuiteError{std::move(where), std::move(message)});
}

std::vector<Reader::Entry> Reader::in_file_order(const toml::table& table) {
  std::vector<Entry> entries;
  for (auto&& [key, node] : table) entries.emplace_back(&key, &node);
  std::stable_sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    const toml::source_position& pa = a.first->source().begin;
    const toml::source_position& pb = b.first->source().begin;
    return pa.line != pb.line ? pa.line < pb.line : pa.column < pb.column;
  });
  return entries;
}

std::vector<Reader::Entry> Reader::known_entries(const toml::table& table,
                                                 std::span<const std::string_view> valid,
                                                 std::string_view context) {
  std::vector<Entry> entries = in_file_order(table);
  std::erase_if(entries, [&](const Entry& entry) {
    const std::string_view name = entry.first->str();
    if (std::find(valid.begin(), valid.end(), name) != valid.end()) return false;
    const std::vector<std::string> choices(valid.begin(), valid.end());
    error(pos(*entry.first), fmt::format("unknown key {}{}{} (valid: {}){}", in_quotes(name),
                                         context.empty() ? "" : " in ", context, join(choices),
                                         did_you_mean(name, choices)));
    return true;
  });
  return entries;
}

void Reader::type_error(const toml::node& node, std::string_view name, std::string_view expected) {
  error(node, fmt::format("{} must be {}, got {}", in_quotes(name), expected, describe(node)));
}

std::string Reader::describe(const toml::node& node) {
  if (std::optional<ParamValue> value = scalar(node)) return detail::describe(*value);
  switch (node.type()) {
    case toml::node_type::array:
      return "array";
    case toml::node_type::table:
      return "table";
    case toml::node_type::date:
      return "date";
    case toml::node_type::time:
      return "time";
    case toml::node_type::date_time:
      return "date-time";
    default:
      return "nothing";
  }
}

std::optional<ParamValue> Reader::scalar(const toml::node& node) {
  if (const auto* s = node.as_string()) return ParamValue(s->get());
  if (const auto* i = node.as_integer()) return ParamValue(i->get());
  if (const auto* f = node.as_floating_point()) {
    // nan and inf have no JSON form: they could not reach a worker or a result file.
    if (!std::isfinite(f->get())) return std::nullopt;
    return ParamValue(f->get());
  }
  if (const auto* b = node.as_boolean()) return ParamValue(b->get());
  return std::nullopt;
}

}  // namespace storh::suite::detail
