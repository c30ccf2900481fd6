// suite/suite.h: a benchmark suite as read from TOML, with the source position of
// every value so later checks (against the plugins' descriptions) can say where.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "storh/engine.h"

namespace storh::suite {

// Where a value came from: "suites/x.toml:12:5". line/column are 1-based; 0 means
// unknown (a value from a command-line override has origin "--set" and no line).
struct SourcePos {
  std::string origin;  // file path as given, or "--dataset" etc. for overrides
  std::uint32_t line = 0;
  std::uint32_t column = 0;

  // "file:line:col" or just "origin" when line is 0.
  std::string str() const;
};

// A value with its position.
template <typename T>
struct Located {
  T value{};
  SourcePos pos;
};

// A parameter as written: one value, or a list (a matrix dimension). Values keep the
// TOML type they were written with; resolution checks them against ParamSpec.type
// (an integer is accepted where a number is declared).
struct ParamSetting {
  std::string name;
  SourcePos pos;                        // of the key
  std::vector<Located<ParamValue>> values;  // one entry unless a list was written
  bool is_list = false;
};

struct EngineSetting {
  std::string name;
  SourcePos pos;  // of the [engines.<name>] table header or key
  // Empty means every operation the engine declares.
  std::vector<Located<std::string>> operations;
  std::vector<ParamSetting> params;  // in file order
};

struct GateSetting {
  std::optional<Located<std::string>> baseline;  // path
  std::optional<Located<double>> threshold;      // percent, >= 0
  std::vector<Located<std::string>> metrics;     // "engine.operation"
};

struct Suite {
  std::filesystem::path file;  // as given on the command line
  std::string name;            // default: the file's stem
  std::vector<Located<std::uint64_t>> datasets;  // default {1000}; each >= 1
  std::uint32_t repeat = 1;    // >= 1; each repeat runs in a fresh worker process
  std::uint32_t warmup = 0;    // untimed runs per cell before the repeats
  std::optional<std::uint64_t> memory_limit_bytes;  // "512M"; none = unlimited
  std::optional<double> timeout_seconds;            // "10m"; none = unlimited
  std::filesystem::path output;                     // default build/bench-<name>.json
  std::vector<std::filesystem::path> plugin_path;   // relative paths are relative to the cwd
  std::optional<std::filesystem::path> work_dir;    // parent of the per-run work directories
  std::vector<EngineSetting> engines;               // in file order; at least one
  GateSetting gate;
};

}  // namespace storh::suite
