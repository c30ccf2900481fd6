// Reading the storh PHP harness's result files (engine-spec.md 11.9 and 12.2), so a team
// moving from PHP to storh-host compares and gates both kinds directly.
#include <array>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "compare/comparable.h"

namespace storh::compare {
namespace {

// ordered: compare shows metrics in the file's order (engines, then scenario steps).
using json = nlohmann::ordered_json;

// PHP metric keys whose measurement storh-host reports under another key. The PHP
// harness ran recovery as its own pseudo-engine (`recovery.recover`: reopen a
// segmented log with a torn tail); storh-host's log engine reports the same step as
// `log.recover`. Add a row when an engine reports a PHP measurement elsewhere.
struct Rename {
  std::string_view storh_php;
  std::string_view storh_host;
};
constexpr std::array kStorhPhpRenames = {Rename{"recovery.recover", "log.recover"}};

// PHP writes an empty map as `[]` (json_encode of an empty array).
bool is_map(const json& value) {
  return value.is_object() || (value.is_array() && value.empty());
}

// summary.<engine>.<metric> = {median, min, max, mean, runs}; nullptr when absent or
// not of that shape (then the metric counts as one value of unknown spread).
const json* summary_of(const json& root, const std::string& engine, const std::string& metric) {
  const auto summary = root.find("summary");
  if (summary == root.end() || !summary->is_object()) return nullptr;
  const auto per_engine = summary->find(engine);
  if (per_engine == summary->end() || !per_engine->is_object()) return nullptr;
  const auto entry = per_engine->find(metric);
  if (entry == per_engine->end() || !entry->is_object()) return nullptr;
  for (const char* field : {"median", "min", "max", "runs"}) {
    const auto value = entry->find(field);
    if (value == entry->end() || !value->is_number()) return nullptr;
  }
  return &*entry;
}

}  // namespace

std::string map_storh_php_key(std::string_view key) {
  for (const Rename& rename : kStorhPhpRenames) {
    if (key == rename.storh_php) return std::string(rename.storh_host);
  }
  return std::string(key);
}

Expected<ComparableFile> comparable_from_storh_php(const json& root, const std::string& name) {
  const json& results = root.at("results");
  if (!is_map(results)) {
    return Error{
        fmt::format("{}: /results: expected an object of engines (or [] when empty), got {}", name,
                    results.type_name())};
  }
  ComparableFile file;
  file.name = name;
  const bool repeat = root.contains("summary") && is_map(root.at("summary"));
  file.kind = repeat ? FileKind::storh_php_repeat : FileKind::storh_php_bench;

  for (auto engine = results.begin(); results.is_object() && engine != results.end(); ++engine) {
    // As the PHP gate: values that are not numbers (and engines that are not maps)
    // are ignored, not errors.
    if (!engine.value().is_object()) continue;
    for (auto entry = engine.value().begin(); entry != engine.value().end(); ++entry) {
      if (!entry.value().is_number()) continue;
      ComparableMetric metric;
      metric.key = map_storh_php_key(engine.key() + "." + entry.key());
      if (file.find(metric.key) != nullptr) continue;  // a renamed key met its target
      metric.median = entry.value().get<double>();
      metric.min = metric.median;
      metric.max = metric.median;
      metric.runs = 1;
      if (!repeat) {
        metric.samples = {metric.median};  // bench.php: the value is the one sample
      } else if (const json* summary = summary_of(root, engine.key(), entry.key())) {
        // The median in `results` and in `summary` are the same number; the summary
        // adds the spread. The samples behind it are not in the file.
        metric.min = summary->at("min").get<double>();
        metric.max = summary->at("max").get<double>();
        const double runs = summary->at("runs").get<double>();
        metric.runs = runs >= 1 ? static_cast<std::size_t>(runs) : 0;
      } else {
        metric.runs = 0;  // a median of an unknown number of runs
      }
      file.metrics.push_back(std::move(metric));
    }
  }

  auto fact = [&](const char* label, const char* key) {
    const auto value = root.find(key);
    if (value == root.end()) return;
    if (value->is_string() && !value->get<std::string>().empty()) {
      file.facts.emplace_back(label, value->get<std::string>());
    } else if (value->is_number_integer()) {
      file.facts.emplace_back(label, fmt::format("{}", value->get<std::int64_t>()));
    }
  };
  file.facts.emplace_back("harness", "storh PHP");
  fact("datasets", "dataset");
  fact("cache validation", "cacheValidation");
  fact("PHP version", "php");
  return file;
}

}  // namespace storh::compare
