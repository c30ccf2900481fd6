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

// `first` (flags, then suite entries, already in that order) followed by the
// environment and the built-in directories. Duplicates are dropped.
std::vector<std::filesystem::path> search_path(const std::vector<std::filesystem::path>& first);

// The same for a host running as `executable` (search_path(first) passes
// /proc/self/exe).
std::vector<std::filesystem::path> search_path(const std::vector<std::filesystem::path>& first,
                                               const std::filesystem::path& executable);

// Engine name -> module file, first directory wins. Directories that do not exist
// are skipped.
std::map<std::string, std::filesystem::path> find_engines(
    const std::vector<std::filesystem::path>& dirs);

// "storh_doc.so" -> "doc"; nullopt for other names.
std::optional<std::string> engine_name_of(const std::filesystem::path& file);

}  // namespace storh::plugin
