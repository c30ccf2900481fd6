// compare/comparable.h: any result file in one form that compare and gate work on.
//
// Four kinds of file are read:
//   - storh-host result files, schema_version 1 (docs/results.md): every metric with
//     all its samples, unit, direction, plus the experiment and environment;
//   - storh PHP `bench.php` files: `results: {engine: {metric: seconds}}`, one run, so
//     each metric is one sample;
//   - storh PHP `repeat.php` files: `results` holds medians and `summary:
//     {engine: {metric: {median, min, max, mean, runs}}}` the spread; the samples
//     themselves are not in the file, so no significance test is possible;
//   - Google Benchmark JSON files (`context` and `benchmarks`), read as a storh-host
//     result by foreign/google_benchmark.h: a metric per benchmark for its real time
//     and one for its CPU time, the repetitions as samples.
// Anything else is refused with a message naming the file and what is wrong.
//
// Metric keys are `engine.operation[qualifiers]` as in storh-host files. PHP metric
// names are mapped to where storh-host reports the same measurement (see
// kStorhPhpRenames in storh_php.cpp): `recovery.recover` becomes `log.recover`.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "result/result.h"
#include "storh/engine.h"
#include "util/expected.h"

namespace storh::compare {

enum class FileKind { storh_host_v1, storh_php_bench, storh_php_repeat, google_benchmark };

// "storh-host schema 1", "storh PHP bench.php", "storh PHP repeat.php", "Google Benchmark".
std::string_view file_kind_name(FileKind kind);

struct ComparableMetric {
  std::string key;   // "doc.put", "cache.cold[validation=hash]"
  std::string unit;  // plural item noun; empty when the file does not say (PHP)
  // lower_is_better: the value is a time (seconds for the whole step).
  // higher_is_better: the value is a score; smaller means slower.
  result::MetricDirection direction = result::MetricDirection::lower_is_better;
  // Every repeat's value, in repeat order; empty when the file holds only a summary
  // (PHP repeat.php). Significance tests need these.
  std::vector<double> samples;
  double median = 0;  // of the samples, or as the file states it
  double min = 0;
  double max = 0;
  std::size_t runs = 0;  // how many values the median is of; 0 when unknown
  // Deterministic counters per item (docs/counters.md), sorted by name; empty when
  // the file has none (PHP files never do).
  std::vector<std::pair<std::string, double>> counters;
  // Why the metric has no counters although its file was counted (result::Metric's
  // not_counted); empty otherwise.
  std::string not_counted;
  // The engine's own counters (result::Metric's engine_counters), also in `counters`
  // by name and value; kept whole here for their units (compare/explain.h).
  std::vector<result::EngineCounterValue> engine_counters;
};

// A fact about how a file was produced, compared between files to warn when they
// measured different things: {"experiment fingerprint", "0123456789abcdef"}. Only
// facts the file actually records are present.
using Fact = std::pair<std::string, std::string>;

struct ComparableFile {
  std::string name;  // as given by the user; used in every message and table
  FileKind kind = FileKind::storh_host_v1;
  std::vector<ComparableMetric> metrics;  // in file order, keys unique
  std::vector<Fact> facts;                // in a fixed order per kind
  // Things a reader should know before trusting the numbers: an interrupted run,
  // failed worker runs, environment warnings recorded in the file (debug build...).
  std::vector<std::string> notes;

  // The metric with this key, or nullptr.
  const ComparableMetric* find(std::string_view key) const;
};

// Reads any supported result file (compare/read_results.cpp). Errors name the file: unreadable
// ("x.json: No such file or directory"), not JSON ("x.json: not valid JSON: ..."),
// an unsupported schema_version, a bad value (with its JSON path), or not a result
// file at all ("x.json: not a result file: no schema_version and no results map ...").
Expected<ComparableFile> read_comparable(const std::filesystem::path& file);

// The same from parsed JSON; `name` is used in messages and as ComparableFile::name.
// ordered_json keeps a PHP file's engine and metric order, which compare shows.
Expected<ComparableFile> comparable_from_json(const nlohmann::ordered_json& json,
                                              const std::string& name);

// A storh-host result already in memory (as the runner or `ci` holds it).
ComparableFile comparable_from_result(const result::ResultFile& result, const std::string& name);

// A storh PHP file (bench.php or repeat.php), detected by the presence of `summary`.
// Precondition: json is an object without schema_version. Non-numeric metric values
// are ignored, as the PHP gate ignores them; `results: []` is an empty result.
Expected<ComparableFile> comparable_from_storh_php(const nlohmann::ordered_json& json,
                                                   const std::string& name);

// The storh-host key for a storh PHP metric key: "recovery.recover" -> "log.recover";
// any other key is returned unchanged. Also applied to metric names users give
// (gate --metric, per-metric thresholds), so storh-era command lines keep working.
std::string map_storh_php_key(std::string_view key);

}  // namespace storh::compare
