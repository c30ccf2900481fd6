#include "suite/parse.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <utility>

#include <fmt/format.h>

#include "suite/suite_internal.h"
#include "util/files.h"

namespace storh::suite {
namespace {

using detail::in_quotes;
using detail::Reader;

// Scalars first, then the sections, as a suite file is usually laid out.
constexpr std::array<std::string_view, 17> kTopKeys = {
    "counters", "datasets",    "memory_limit", "min_time", "name",    "order",
    "output",   "plugin_path", "range_output", "repeat",   "timeout", "warmup",
    "work_dir", "engines",     "gate",         "load",     "ycsb"};

std::optional<std::string> read_string(Reader& reader, const toml::node& node,
                                       std::string_view name) {
  const auto* text = node.as_string();
  if (text == nullptr || text->get().empty()) {
    reader.type_error(node, name, "a non-empty string");
    return std::nullopt;
  }
  return text->get();
}

std::optional<std::uint32_t> read_count(Reader& reader, const toml::node& node,
                                        std::string_view name, std::int64_t min) {
  // Far beyond any real suite, and small enough that repeat indices never overflow.
  constexpr std::int64_t kMax = 1'000'000;
  const auto* number = node.as_integer();
  if (number == nullptr || number->get() < min) {
    reader.type_error(node, name, fmt::format("an integer >= {}", min));
    return std::nullopt;
  }
  if (number->get() > kMax) {
    reader.type_error(node, name, fmt::format("an integer from {} to {}", min, kMax));
    return std::nullopt;
  }
  return static_cast<std::uint32_t>(number->get());
}

void read_datasets(Reader& reader, const toml::node& node, Suite& suite) {
  std::vector<const toml::node*> items;
  if (const auto* list = node.as_array()) {
    if (list->empty()) {
      reader.error(node, "\"datasets\" must not be empty: give at least one size, e.g. [1000]");
      return;
    }
    for (const toml::node& item : *list) items.push_back(&item);
  } else {
    items.push_back(&node);
  }
  for (const toml::node* item : items) {
    // A record count as on the command line: 1000, or "10k" / "1M" as a string.
    std::optional<std::uint64_t> counted;
    if (const auto* number = item->as_integer(); number != nullptr && number->get() >= 1) {
      counted = static_cast<std::uint64_t>(number->get());
    } else if (const auto* text = item->as_string()) {
      counted = parse_count(text->get());
    }
    if (!counted || *counted == 0) {
      reader.type_error(*item, "datasets",
                        "a record count >= 1 (1000, or a string such as \"10k\" or \"1M\") or "
                        "a list of them");
      continue;
    }
    const std::uint64_t size = *counted;
    if (size > kMaxDataset) {
      reader.error(*item, fmt::format("dataset {} is more than the {} records a cell may have",
                                      size, kMaxDataset));
      continue;
    }
    const auto same = std::find_if(suite.datasets.begin(), suite.datasets.end(),
                                   [&](const auto& dataset) { return dataset.value == size; });
    if (same != suite.datasets.end()) {
      reader.error(*item, fmt::format("duplicate dataset {} (first at {}:{})", size, same->pos.line,
                                      same->pos.column));
      continue;
    }
    suite.datasets.push_back({size, reader.pos(*item)});
  }
}

void read_memory_limit(Reader& reader, const toml::node& node, Suite& suite) {
  std::optional<std::uint64_t> bytes;
  if (const auto* number = node.as_integer(); number != nullptr && number->get() > 0) {
    bytes = static_cast<std::uint64_t>(number->get());
  } else if (const auto* text = node.as_string()) {
    bytes = parse_size(text->get());
  }
  if (!bytes || *bytes == 0) {
    reader.type_error(node, "memory_limit",
                      "a size > 0 such as \"512M\" or \"2G\", or a number of bytes");
    return;
  }
  suite.memory_limit_bytes = bytes;
}

// A duration as a suite writes it: a number of seconds, or a string such as "10m".
std::optional<double> seconds_of(const toml::node& node) {
  if (const auto* whole = node.as_integer()) return static_cast<double>(whole->get());
  if (const auto* real = node.as_floating_point()) return real->get();
  if (const auto* text = node.as_string()) return parse_duration(text->get());
  return std::nullopt;
}

void read_timeout(Reader& reader, const toml::node& node, Suite& suite) {
  const std::optional<double> seconds = seconds_of(node);
  if (!seconds || !(*seconds > 0) || !std::isfinite(*seconds)) {
    reader.type_error(node, "timeout",
                      "a duration > 0 such as \"10m\", \"30s\" or \"1500ms\", or a number of "
                      "seconds");
    return;
  }
  if (*seconds > kMaxTimeoutSeconds) {
    reader.error(node, fmt::format("timeout {} s is longer than the {} s (30 days) a cell may run",
                                   *seconds, kMaxTimeoutSeconds));
    return;
  }
  suite.timeout_seconds = seconds;
}

// min_time = "20ms": 0 turns repetition off; more than an hour is surely a typo.
void read_min_time(Reader& reader, const toml::node& node, Suite& suite) {
  const std::optional<double> seconds = seconds_of(node);
  if (!seconds || !(*seconds >= 0) || *seconds > 3600) {
    reader.type_error(node, "min_time",
                      "a duration from 0 to 1h such as \"20ms\" or \"0.5s\", or a number of "
                      "seconds");
    return;
  }
  suite.min_time_seconds = *seconds;
}

void read_plugin_path(Reader& reader, const toml::node& node, Suite& suite) {
  constexpr std::string_view kExpected = "a directory or a list of directories (non-empty strings)";
  std::vector<const toml::node*> items;
  if (const auto* list = node.as_array()) {
    for (const toml::node& item : *list) items.push_back(&item);
  } else {
    items.push_back(&node);
  }
  for (const toml::node* item : items) {
    const auto* text = item->as_string();
    if (text == nullptr || text->get().empty()) {
      reader.type_error(*item, "plugin_path", kExpected);
      continue;
    }
    suite.plugin_path.push_back({text->get(), reader.pos(*item)});
  }
}

// The last line of the text, column 1: where a missing table would go. 1:1 when empty.
SourcePos end_of_text(const Reader& reader, std::string_view text) {
  std::size_t lines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
  if (!text.empty() && text.back() != '\n') ++lines;
  return SourcePos{reader.origin(), static_cast<std::uint32_t>(std::max<std::size_t>(lines, 1)), 1};
}

void read_top_level(Reader& reader, const toml::table& root, std::string_view toml_text,
                    Suite& suite) {
  bool has_engines = false;
  for (const auto& [key, node] : reader.known_entries(root, kTopKeys, "")) {
    const std::string name(key->str());
    if (name == "name") {
      if (auto text = read_string(reader, *node, name)) suite.name = std::move(*text);
    } else if (name == "datasets") {
      read_datasets(reader, *node, suite);
    } else if (name == "repeat") {
      if (auto count = read_count(reader, *node, name, 1)) suite.repeat = *count;
    } else if (name == "warmup") {
      if (auto count = read_count(reader, *node, name, 0)) suite.warmup = *count;
    } else if (name == "memory_limit") {
      read_memory_limit(reader, *node, suite);
    } else if (name == "timeout") {
      read_timeout(reader, *node, suite);
    } else if (name == "min_time") {
      read_min_time(reader, *node, suite);
    } else if (name == "output") {
      if (auto text = read_string(reader, *node, name)) suite.output = std::move(*text);
    } else if (name == "plugin_path") {
      read_plugin_path(reader, *node, suite);
    } else if (name == "order") {
      const auto* text = node->as_string();
      if (text != nullptr && text->get() == "sequential") {
        suite.order = RunOrder::sequential;
      } else if (text != nullptr && text->get() == "interleave") {
        suite.order = RunOrder::interleave;
      } else {
        reader.type_error(*node, name, "\"sequential\" or \"interleave\"");
      }
    } else if (name == "work_dir") {
      if (auto text = read_string(reader, *node, name)) suite.work_dir = std::move(*text);
    } else if (name == "range_output") {
      if (auto text = read_string(reader, *node, name)) suite.range_output = std::move(*text);
    } else if (name == "counters") {
      detail::read_counters(reader, *node, suite.counters);
    } else if (name == "engines") {
      has_engines = true;
      detail::read_engines(reader, *node, suite);
    } else if (name == "gate") {
      detail::read_gate(reader, *node, suite);
    } else if (name == "load") {
      if (root.contains("ycsb")) {
        reader.error(*node,
                     "a suite has [load] or [ycsb], not both: [ycsb] runs YCSB's "
                     "workloads on key-value stores, [load] the engines' transactions");
        continue;
      }
      detail::read_load(reader, *node, suite);
    } else if (name == "ycsb") {
      detail::read_ycsb(reader, *node, suite);
    }
  }
  if (!has_engines) reader.error(end_of_text(reader, toml_text), std::string(detail::kNoEngines));
}

}  // namespace

std::string SourcePos::str() const {
  if (line == 0) return origin;
  if (column == 0) return fmt::format("{}:{}", origin, line);
  return fmt::format("{}:{}:{}", origin, line, column);
}

std::string SuiteError::str() const {
  const std::string where = pos.str();
  return where.empty() ? message : fmt::format("{}: {}", where, message);
}

std::optional<Suite> parse_suite(std::string_view toml_text, const std::string& origin,
                                 std::vector<SuiteError>& errors, std::optional<Suite>* partial) {
  const std::size_t first_error = errors.size();
  Reader reader(origin, errors);
  toml::table root;
  try {
    root = toml::parse(toml_text, std::string_view(origin));
  } catch (const toml::parse_error& e) {
    reader.error(reader.pos(e.source()), std::string(e.description()));
    return std::nullopt;
  }

  Suite suite;
  suite.file = origin;
  read_top_level(reader, root, toml_text, suite);
  if (errors.size() != first_error) {
    // Unknown keys are found before the values are read; report in file order.
    std::stable_sort(errors.begin() + static_cast<std::ptrdiff_t>(first_error), errors.end(),
                     [](const SuiteError& a, const SuiteError& b) {
                       return std::pair(a.pos.line, a.pos.column) <
                              std::pair(b.pos.line, b.pos.column);
                     });
    if (partial != nullptr) *partial = std::move(suite);
    return std::nullopt;
  }

  if (suite.name.empty()) suite.name = std::filesystem::path(origin).stem().string();
  if (suite.name.empty()) suite.name = "suite";
  if (suite.output.empty()) suite.output = fmt::format("build/bench-{}.json", suite.name);
  if (suite.datasets.empty()) suite.datasets.push_back({1000, SourcePos{origin}});
  return suite;
}

std::optional<Suite> parse_suite_file(const std::filesystem::path& file,
                                      std::vector<SuiteError>& errors,
                                      std::optional<Suite>* partial) {
  const std::string origin = file.string();
  Expected<std::string> text = read_input_file(file);
  if (!text) {
    // read_file's message starts with the path, which the position already shows.
    std::string_view message = text.error();
    if (message.starts_with(origin + ": ")) message.remove_prefix(origin.size() + 2);
    errors.push_back(SuiteError{SourcePos{origin}, std::string(message)});
    return std::nullopt;
  }
  std::optional<Suite> suite = parse_suite(*text, origin, errors, partial);
  if (suite) resolve_paths(*suite, file.parent_path());
  if (!suite && partial != nullptr && *partial) resolve_paths(**partial, file.parent_path());
  return suite;
}

void resolve_paths(Suite& suite, const std::filesystem::path& base) {
  const auto resolve = [&](std::filesystem::path& path) {
    if (path.is_relative()) path = (base / path).lexically_normal();
  };
  resolve(suite.output);
  for (Located<std::filesystem::path>& dir : suite.plugin_path) resolve(dir.value);
  if (suite.work_dir) resolve(*suite.work_dir);
  if (suite.range_output) resolve(*suite.range_output);
  if (suite.gate.baseline) {
    std::filesystem::path baseline = suite.gate.baseline->value;
    resolve(baseline);
    suite.gate.baseline->value = baseline.string();
  }
  if (suite.gate.ab.calibration) {
    std::filesystem::path calibration = suite.gate.ab.calibration->value;
    resolve(calibration);
    suite.gate.ab.calibration->value = calibration.string();
  }
}

}  // namespace storh::suite
