// plugin/describe.h: engine descriptions as JSON, and describing a plugin safely.
//
// The host never loads a plugin into its own process: a plugin that crashes while
// loading must not take the run with it. `storh-host __describe FILE` loads it in a
// child process and prints describe_json(); describe_plugin() runs that child.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "plugin/loader.h"
#include "result/engine_values.h"
#include "result/result.h"
#include "storh/engine.h"
#include "storh/transactions.h"
#include "util/expected.h"

namespace storh::plugin {

struct Description {
  ManifestInfo manifest;
  EngineInfo info;
  std::filesystem::path file;
  // The plugin's transaction types for load runs; empty when it offers none.
  std::vector<TransactionSpec> transactions;
  // XXH3-64 of the module file (util/files.h), computed by the host in
  // describe_plugin; empty when not hashed.
  std::string file_hash{};
  // Engine::param_ranges() of an ABI >= 1.3 plugin; empty for older ones.
  std::vector<ParamRange> ranges{};
  // Whether the plugin offers the key-value capability (storh/key_value.h, ABI 1.6).
  bool key_value = false;
};

// A description writes parameter values as result files do.
using result::param_value_json;

nlohmann::ordered_json description_json(const Description& description);
Expected<Description> description_from_json(const nlohmann::json& json);

// Runs `host_executable __describe file` with a 30 s timeout, parses its output and
// refuses a description that check_description() finds unsound, naming the file, and
// hashes the file.
Expected<Description> describe_plugin(const std::filesystem::path& host_executable,
                                      const std::filesystem::path& file,
                                      const std::string& expected_name);

// What __preflight answers for one cell's parameters.
struct Preflight {
  std::string error;               // "" when the plugin accepts them
  std::vector<std::string> notes;  // what the user should know even so ("note: " lines)
  // ABI >= 1.7: transaction type -> its parts (Transactions::parts), types with parts only.
  std::map<std::string, std::vector<std::string>> parts;
  // ABI >= 1.7: the parameter that makes a load cell need a duration, and why
  // (Transactions::needs_duration); "" when none does.
  std::string duration_param;
  std::string duration_reason;
};

// Runs `host_executable __preflight file --name=NAME --params=JSON` (Engine::preflight
// of an ABI >= 1.4 plugin, storh/engine.h) with a 30 s timeout. `params_json` is the
// cell's chosen parameters as the worker takes them. `error` is "" when the plugin
// accepts them, else its message (or why the child failed), naming the file; `notes`
// are the lines the plugin wrote to stderr starting with "note: " (without it), when
// it accepted them; `parts` the transaction types' parts it printed on stdout.
Preflight preflight_plugin(const std::filesystem::path& host_executable,
                           const std::filesystem::path& file, const std::string& name,
                           const std::string& params_json);

// The build record of the result file (experiment.engines[].build).
result::PluginBuild plugin_build(const Description& description);

const char* param_type_name(ParamType type);

}  // namespace storh::plugin
