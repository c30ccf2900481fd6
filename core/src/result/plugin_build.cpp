#include "result/plugin_build.h"

#include <fmt/format.h>

namespace storh::result {

std::string optimization_text(const PluginBuild& build) {
  if (!build.optimized) return "optimization unknown";
  return *build.optimized ? "optimized" : "NOT optimized";
}

std::string build_text(const PluginBuild& build) {
  return fmt::format("{}, {}, {}, flags \"{}\", file hash {}", build.type, optimization_text(build),
                     build.compiler, build.flags,
                     build.file_hash.empty() ? "unknown" : build.file_hash);
}

std::optional<std::string> plugin_build_warning(const std::string& engine, const std::string& file,
                                                const PluginBuild& build) {
  std::vector<std::string> reasons;
  if (build.optimized.has_value() && !*build.optimized) reasons.emplace_back("not optimized");
  // A Debug build type keeps assertions even when someone added an -O flag.
  if (build.type == "Debug") reasons.emplace_back("build type \"Debug\"");
  if (reasons.empty()) return std::nullopt;
  return fmt::format(
      "plugin \"{}\" is a debug build: its timings are not representative ({}; file {}); "
      "rebuild it with -DCMAKE_BUILD_TYPE=Release",
      engine, fmt::join(reasons, ", "), file);
}

std::vector<std::string> plugin_build_warnings(const std::vector<EngineRecord>& engines) {
  std::vector<std::string> warnings;
  for (const EngineRecord& engine : engines) {
    if (!engine.build) continue;
    if (auto warning = plugin_build_warning(engine.name, engine.plugin, *engine.build)) {
      warnings.push_back(std::move(*warning));
    }
  }
  return warnings;
}

}  // namespace storh::result
