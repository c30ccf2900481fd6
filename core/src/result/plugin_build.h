// result/plugin_build.h: how a result shows and judges the build of the plugins it
// measured (experiment.engines[].build). The run, the report, list, compare and gate
// all say it in these words.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "result/result.h"

namespace storh::result {

// "optimized", "NOT optimized" or "optimization unknown".
std::string optimization_text(const PluginBuild& build);

// "Release, optimized, g++ 12.2.0, flags "-O3 -DNDEBUG", file hash 0123456789abcdef".
std::string build_text(const PluginBuild& build);

// The warning for a plugin whose timings say little about the engine: compiled
// without optimisation, or build type "Debug". None for an optimised or unknown
// build (a plugin older than ABI 1.2 is not accused). Names the engine and the file:
//   plugin "doc" is a debug build: its timings are not representative (not optimized,
//   build type "Debug"; file plugins/storh_doc.so); rebuild it with
//   -DCMAKE_BUILD_TYPE=Release
std::optional<std::string> plugin_build_warning(const std::string& engine, const std::string& file,
                                                const PluginBuild& build);

// plugin_build_warning of every engine with a build record, in engine order.
std::vector<std::string> plugin_build_warnings(const std::vector<EngineRecord>& engines);

}  // namespace storh::result
