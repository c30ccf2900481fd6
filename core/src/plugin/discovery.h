// plugin/discovery.h: where plugins are looked for, and which engines exist.
//
// An engine named <name> is the module file storh_<name>.so in the first directory
// of the search path that has one. The search path is, in order: the directories
// given with --plugin-path, the suite's plugin_path, $STORH_PLUGIN_PATH (colon
// separated), then the host's own plugins: for an installed host
// (<prefix>/bin/storh-host beside <prefix>/<libdir>/storh/plugins) that directory
// only; for a host in its build tree the build's plugin directory, then the
// configured install prefix's.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace storh::plugin {

// The directories $STORH_PLUGIN_PATH names (':'-separated, empty entries skipped), in
// order; none when it is unset.
std::vector<std::filesystem::path> env_plugin_path();

// `first` (flags, then suite entries, already in that order) followed by the
// environment and the built-in directories. Duplicates are dropped.
std::vector<std::filesystem::path> search_path(const std::vector<std::filesystem::path>& first);

// The same for a host running as `executable` (search_path(first) passes
// /proc/self/exe).
std::vector<std::filesystem::path> search_path(const std::vector<std::filesystem::path>& first,
                                               const std::filesystem::path& executable);

// A plugin file hidden by one of the same engine name earlier on the search path.
struct ShadowedPlugin {
  std::string name;
  std::filesystem::path used;      // first on the path: this one is loaded
  std::filesystem::path shadowed;  // later on the path: ignored
};

// Engine name -> module file, first directory wins. Directories that do not exist
// are skipped. When `shadowed` is not null, each file that lost to an earlier one of
// the same name (and is not the same file) is appended to it.
std::map<std::string, std::filesystem::path> find_engines(
    const std::vector<std::filesystem::path>& dirs,
    std::vector<ShadowedPlugin>* shadowed = nullptr);

// `two plugins named "kv": using A (first on the plugin path), ignoring B`.
std::string shadowed_message(const ShadowedPlugin& shadowed);

// "storh_doc.so" -> "doc"; nullopt for other names.
std::optional<std::string> engine_name_of(const std::filesystem::path& file);

}  // namespace storh::plugin
