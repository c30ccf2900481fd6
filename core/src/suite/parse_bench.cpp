// [[load.bench]] tables of a load suite: named lists of "clients/transactions" points
// for some transaction types (docs/load.md, "Benches"). Whether each engine declares
// the operations is check_suite's job: it needs the plugins.
#include <algorithm>
#include <array>
#include <charconv>

#include <fmt/format.h>

#include "suite/suite_internal.h"
#include "util/text.h"

namespace storh::suite::detail {
namespace {

constexpr std::array<std::string_view, 3> kBenchKeys = {"name", "operations", "points"};
constexpr std::string_view kPointShape =
    "\"clients/transactions per client\" such as \"10/100\" (clients 1 to 4096, transactions "
    ">= 1)";

// A whole number in [1, max], digits only (no sign, no suffix, no spaces inside).
std::optional<std::uint64_t> whole_number(std::string_view text, std::uint64_t max) {
  const std::optional<std::uint64_t> value = parse_whole(text);
  if (!value || *value < 1 || *value > max) return std::nullopt;
  return value;
}

// "10/100" -> {10, 100}; spaces around either number are allowed.
std::optional<load::Point> parse_point(std::string_view text) {
  const std::size_t slash = text.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  const auto clients = whole_number(trim(text.substr(0, slash)), kMaxLoadClients);
  const auto transactions = whole_number(trim(text.substr(slash + 1)), kMaxLoadTransactions);
  if (!clients || !transactions) return std::nullopt;
  return load::Point{static_cast<std::uint32_t>(*clients), *transactions};
}

// The items of a non-empty list; reports (and returns nothing for) anything else.
const toml::array* non_empty_list(Reader& reader, const toml::node& node, const std::string& path,
                                  std::string_view expected) {
  const auto* list = node.as_array();
  if (list == nullptr) {
    reader.type_error(node, path, expected);
    return nullptr;
  }
  if (list->empty()) {
    reader.error(node, fmt::format("{} must not be empty", in_quotes(path)));
    return nullptr;
  }
  return list;
}

void read_bench_operations(Reader& reader, const toml::node& node, const std::string& path,
                           BenchSetting& bench) {
  constexpr std::string_view kExpected = "a list of transaction types (strings)";
  const toml::array* list = non_empty_list(reader, node, path, kExpected);
  if (list == nullptr) return;
  for (const toml::node& item : *list) {
    const auto* name = item.as_string();
    if (name == nullptr || name->get().empty()) {
      reader.type_error(item, path, kExpected);
      continue;
    }
    if (const auto* same = find_value(bench.operations, name->get())) {
      reader.error(item, fmt::format("operation {} appears twice in {} (first at {})",
                                     in_quotes(name->get()), in_quotes(path), line_col(same->pos)));
      continue;
    }
    bench.operations.push_back({name->get(), reader.pos(item)});
  }
}

void read_points(Reader& reader, const toml::node& node, const std::string& path,
                 BenchSetting& bench) {
  const std::string expected = fmt::format("a list of strings {}", kPointShape);
  const toml::array* list = non_empty_list(reader, node, path, expected);
  if (list == nullptr) return;
  for (const toml::node& item : *list) {
    const auto* text = item.as_string();
    if (text == nullptr) {
      reader.type_error(item, path, expected);
      continue;
    }
    const std::optional<load::Point> point = parse_point(text->get());
    if (!point) {
      reader.error(item, fmt::format("point {} in {} must be {}", in_quotes(text->get()),
                                     in_quotes(path), kPointShape));
      continue;
    }
    if (const auto* same = find_value(bench.points, *point)) {
      reader.error(item, fmt::format("point {} appears twice in {} (first at {})", point->text(),
                                     in_quotes(path), line_col(same->pos)));
      continue;
    }
    bench.points.push_back({*point, reader.pos(item)});
  }
}

// One [[load.bench]] table; nullopt after reporting a mistake.
std::optional<BenchSetting> read_bench(Reader& reader, const toml::node& node,
                                       const std::vector<BenchSetting>& earlier) {
  constexpr std::string_view kExpected = "a table [[load.bench]] with name, operations and points";
  const auto* table = node.as_table();
  if (table == nullptr) {
    reader.type_error(node, "load.bench", kExpected);
    return std::nullopt;
  }
  BenchSetting bench;
  bool named = false;
  for (const auto& [key, value] : reader.known_entries(*table, kBenchKeys, "[[load.bench]]")) {
    const std::string path = fmt::format("load.bench.{}", key->str());
    if (key->str() == "name") {
      const auto* text = value->as_string();
      if (text == nullptr || trim(text->get()).empty()) {
        reader.type_error(*value, path, "a non-empty string (the bench's title)");
      } else {
        bench.name = {text->get(), reader.pos(*value)};
        named = true;
      }
    } else if (key->str() == "operations") {
      read_bench_operations(reader, *value, path, bench);
    } else {
      read_points(reader, *value, path, bench);
    }
  }
  // A key given with a bad value was reported above; only absent keys are named here.
  std::vector<std::string> missing;
  for (std::string_view key : kBenchKeys) {
    if (!table->contains(key)) missing.emplace_back(key);
  }
  if (!missing.empty()) {
    reader.error(node, fmt::format("[[load.bench]] needs {} (e.g. name = \"1: read-write\", "
                                   "operations = [\"tpcb_like\"], points = [\"10/100\"])",
                                   join(missing)));
  }
  if (!named) return std::nullopt;
  const auto same = std::find_if(earlier.begin(), earlier.end(), [&](const BenchSetting& b) {
    return b.name.value == bench.name.value;
  });
  if (same != earlier.end()) {
    reader.error(bench.name.pos,
                 fmt::format("duplicate bench name {} (first at {})", in_quotes(bench.name.value),
                             line_col(same->name.pos)));
    return std::nullopt;
  }
  // A bench with other mistakes is kept: the parse fails anyway, and later benches
  // still see its name.
  return bench;
}

}  // namespace

void read_benches(Reader& reader, const toml::node& node, LoadSetting& load) {
  const auto* list = node.as_array();
  if (list == nullptr) {
    reader.type_error(node, "load.bench", "tables [[load.bench]] (an array of tables)");
    return;
  }
  if (list->empty()) {
    reader.error(node, "\"load.bench\" must not be empty: give at least one [[load.bench]]");
    return;
  }
  for (const toml::node& item : *list) {
    if (std::optional<BenchSetting> bench = read_bench(reader, item, load.benches)) {
      load.benches.push_back(std::move(*bench));
    }
  }
}

}  // namespace storh::suite::detail
