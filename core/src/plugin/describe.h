// plugin/describe.h: engine descriptions as JSON, and describing a plugin safely.
//
// The host never loads a plugin into its own process: a plugin that crashes while
// loading must not take the run with it. `storh-host __describe FILE` loads it in a
// child process and prints description_json(); plugin/session.h runs that child.
#pragma once

#include <filesystem>
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

// The build record of the result file (experiment.engines[].build).
result::PluginBuild plugin_build(const Description& description);

const char* param_type_name(ParamType type);

}  // namespace storh::plugin
