// result/json.h: the result file on disk (docs/results.md is its reference).
//
// Writing is deterministic: the same ResultFile gives the same bytes (fixed key
// order, numbers in the shortest form that reads back to the same double).
#pragma once

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "result/result.h"
#include "util/expected.h"
#include "util/json_node.h"

namespace storh::result {

nlohmann::ordered_json to_json(const ResultFile& result);

// The readers below throw BadJsonValue naming the JSON path of a bad value
// (util/json_node.h), for a reader that walks a whole document with JsonNode.

// A load repeat's interval series, as the result file and a worker's load outcome hold
// it: one array per column (docs/results.md). The skipped and late columns are written
// only when some value is not 0; read back, missing ones are zeros. Every column has as
// many values as "transactions".
nlohmann::ordered_json load_intervals_json(const LoadIntervals& intervals);
LoadIntervals read_load_intervals(const JsonNode& node);
// The optional "lag", "late" and "skipped" keys of a load cell or repeat object, and
// with `intervals` its "intervals"; absent keys leave the values as they are.
void read_load_extras(const JsonNode& node, std::optional<LoadLag>& lag, std::uint64_t& late,
                      std::uint64_t& skipped, std::optional<LoadIntervals>* intervals);

// A load cell's or outcome's "statements" array (pgbench -r, docs/results.md): per
// command {"script", "line", "command", "count", "seconds", "mean", "failures",
// "retries"}; "mean" (seconds) is written for readers and not read back.
nlohmann::ordered_json statements_json(const std::vector<StatementLatency>& statements);
std::vector<StatementLatency> read_statements(const JsonNode& node);
// Adds `more` (another repeat's rows) to `sum`, row by row when both list the same
// commands, else appending the rows `sum` lacks.
void merge_statements(std::vector<StatementLatency>& sum,
                      const std::vector<StatementLatency>& more);

// Masks every password in the strings and object keys of `value` (util/secrets.h).
// to_json applies it, so no file written from a result carries one; other writers of
// documents that embed results apply it too.
void mask_json_secrets(nlohmann::ordered_json& value);
std::string to_json_text(const ResultFile& result);

// Reads a result file written by this host (schema_version 1). Errors name the file
// and the JSON path of the bad value: `a.json: /metrics/3/samples: expected an array`.
Expected<ResultFile> from_json(const nlohmann::json& json, const std::string& origin);
Expected<ResultFile> read_result_file(const std::filesystem::path& file);

// The `environment` object alone, as a result file holds it; other files that record
// where they were measured (calibrations) embed the same object. Errors name `path`
// and the bad value's place under it.
nlohmann::ordered_json environment_json(const Environment& environment);
Expected<Environment> environment_from_json(const nlohmann::json& json, const std::string& path);

// Writes atomically (temporary file, fsync, rename, directory fsync). Empty on success.
std::string write_result_file(const std::filesystem::path& file, const ResultFile& result);

}  // namespace storh::result
