// ab/ab_result.h: a paired A/B run of two builds (or two parameter sets) of the same
// plugins, as the runner produces it and as the A/B result file stores it.
//
// An A/B file is a complete result file of the HEAD side (schema_version 1, so every
// reader that knows nothing of A/B reads it as head's result) with one more object,
// "ab", holding the base side's complete result, how each side was set up, and the
// pairing: for every metric, which base sample and which head sample ran as a pair
// (same cell, same pair index, back to back) and which of the two ran first.
// docs/compare-gate.md ("A/B mode") and docs/results.md describe the JSON.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "result/result.h"
#include "storh/engine.h"
#include "util/expected.h"

namespace storh::ab {

enum class Side { base, head };
const char* side_name(Side side);  // "base", "head"

// How the two sides alternate within the pairs of one cell.
enum class Order {
  abba,    // pair 0 base first, pair 1 head first, pair 2 base first, ...
  random,  // a seeded coin per (cell, pair) decides who goes first
};
const char* order_name(Order order);  // "abba", "random"

// One pair: the base and head samples of one metric that ran back to back.
struct Pair {
  std::uint32_t index = 0;  // pair number within the cell, 0-based
  double base = 0;          // seconds of the step (per call for min_time steps)
  double head = 0;
  Side first = Side::base;  // which side ran first
};

// The pairs of one metric; a pair exists only when both runs produced the sample.
struct PairedMetric {
  std::string key;  // as in the result file's metrics
  std::string unit;
  result::MetricDirection direction = result::MetricDirection::lower_is_better;
  std::vector<Pair> pairs;  // by index
};

// How one side was set up: where its plugins came from and what it overrode.
struct SideSetup {
  std::vector<std::string> plugin_path;  // searched first for this side's engines
  std::vector<std::string> sets;         // --base-set / --head-set, as given
};

struct AbResult {
  result::ResultFile head;  // the top level of the file
  result::ResultFile base;  // "ab"."base"
  SideSetup base_setup;
  SideSetup head_setup;
  Order order = Order::abba;
  std::uint64_t seed = 0;             // for Order::random
  std::uint32_t pairs = 0;            // pairs asked for per cell
  std::vector<PairedMetric> metrics;  // sorted by key
  // The confirmation set: a fresh set of pairs of the cells whose metrics regressed on
  // wall time alone in `metrics`, for those metrics only (sorted by key). Empty when no
  // confirmation ran; its worker runs and failures are in each side's runs and failures.
  std::vector<PairedMetric> confirmation;
};

// The paired metric named `key`, or nullptr.
const PairedMetric* find_paired(const AbResult& result, const std::string& key);
// The same in the confirmation set (nullptr when none ran or it lacks the metric).
const PairedMetric* find_confirmation(const AbResult& result, const std::string& key);

// The file's JSON: head's result with "ab" added. `alpha` sets the confidence of the
// intervals written beside the pairs (readers recompute them from the pairs).
nlohmann::ordered_json to_json(const AbResult& result, double alpha);
std::string write_ab_file(const std::filesystem::path& file, const AbResult& result, double alpha);

// Whether parsed JSON is an A/B file (a result file with an "ab" object).
bool is_ab_json(const nlohmann::json& json);

// Reads an A/B file; errors name the file and the JSON path of a bad value.
Expected<AbResult> ab_from_json(const nlohmann::json& json, const std::string& origin);
Expected<AbResult> read_ab_file(const std::filesystem::path& file);

}  // namespace storh::ab
