// range/range.h: range output, the storh harness's `range` layout. A run over several
// datasets (and parameter matrices) is also written as one result file per slice,
// so storh-era tools that expect bench-<n>-<engine>.json files, and people, can look
// at one slice at a time. docs/results.md ("Range output") is the reference.
//
// Layout of the range directory:
//   bench-<n>-<engine>[-<value>...].json   one slice, itself a schema-v1 result file
//   index.json                             every slice file, with dataset, engine, params
//
// A slice is one (dataset, engine, combination of the engine's varying parameters).
// A parameter varies when it takes more than one value for that engine: in the
// experiment's `params`, or in the metrics, failures or runs themselves (so
// hand-made files slice the same way). The file name appends the varying values in
// parameter-name order, as suite::param_value_text writes them, joined by '-'; a
// character outside [A-Za-z0-9._+-] becomes '_', so a value never leaves the
// directory or hides a file.
//
// A slice file holds the slice's metrics, failures and runs. Metric keys lose the
// qualifiers the slice fixes (n=<size> and the varying parameters), so
// `cache.cold[n=1000,validation=hash]` is `cache.cold` in bench-1000-cache-hash.json
// and storh's compare and gate see the names they know. The environment and the
// interrupted flag are the combined file's. The experiment is the combined file's
// narrowed to the slice (datasets = [n], that engine's record, the slice's parameter
// values), so the storh top-level keys `dataset` and `engine` name the slice; the
// fingerprint stays the whole run's, naming the experiment the slice came from.
//
// Order, in the index and of the returned slices: datasets as the experiment lists
// them, engines as it lists them, then parameter values in the order the matrix ran
// them. What the experiment does not list follows: datasets by size, engines by
// name, parameter values in the order the file first mentions them.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "result/result.h"
#include "util/expected.h"

namespace storh::range {

inline constexpr std::string_view kIndexFileName = "index.json";

struct RangeSlice {
  std::string file;  // name inside the range directory: "bench-1000-cache-hash.json"
  std::uint64_t dataset = 0;
  std::string engine;
  std::vector<result::Param> params;  // the varying parameters' values, by name
  result::ResultFile result;          // what the file holds
};

// Splits a result into its slices; pure. Fails only when two slices would share a
// file name (values that differ only in characters the name replaces); the message
// names both slices.
Expected<std::vector<RangeSlice>> split_ranges(const result::ResultFile& result);

// "bench-1000-cache-hash.json" for (1000, "cache", {validation: "hash"}).
std::string range_file_name(std::uint64_t dataset, std::string_view engine,
                            const std::vector<result::Param>& params);

// The index: {schema_version, tool, layout: "range", suite, fingerprint, time,
// files: [{file, dataset, engine, params}]} with `files` in slice order.
nlohmann::ordered_json range_index_json(const result::ResultFile& result,
                                        const std::vector<RangeSlice>& slices);

// Writes every slice file into `dir` (created if needed), then index.json, each
// atomically, so an index always describes files that are complete. Files of an
// earlier run that this run does not produce are left alone; the index lists only
// this run's. Returns the index's path, or an error naming the file that failed.
Expected<std::filesystem::path> write_range_output(const std::filesystem::path& dir,
                                                   const result::ResultFile& result);

}  // namespace storh::range
