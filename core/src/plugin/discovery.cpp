#include "plugin/discovery.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <string_view>

#include <fmt/format.h>

namespace storh::plugin {
namespace {

constexpr std::string_view kPrefix = "storh_";
constexpr std::string_view kSuffix = ".so";

// <prefix>/<libdir>/storh/plugins when `executable` is <prefix>/bin/<name> and that
// directory exists: the layout `cmake --install` makes.
std::optional<std::filesystem::path> installed_plugin_dir(const std::filesystem::path& executable) {
  const std::filesystem::path bin = executable.parent_path();
  if (bin.filename() != "bin") return std::nullopt;
  std::filesystem::path dir = bin.parent_path() / STORH_INSTALL_LIBDIR / "storh" / "plugins";
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) return std::nullopt;
  return dir;
}

}  // namespace

std::vector<std::filesystem::path> env_plugin_path() {
  std::vector<std::filesystem::path> dirs;
  const char* env = std::getenv("STORH_PLUGIN_PATH");
  std::string_view rest = env != nullptr ? env : "";
  while (!rest.empty()) {
    const std::size_t colon = rest.find(':');
    const std::string_view entry = rest.substr(0, colon);
    if (!entry.empty()) dirs.emplace_back(entry);
    rest = colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 1);
  }
  return dirs;
}

std::vector<std::filesystem::path> search_path(const std::vector<std::filesystem::path>& first) {
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return search_path(first, ec ? std::filesystem::path() : exe);
}

std::vector<std::filesystem::path> search_path(const std::vector<std::filesystem::path>& first,
                                               const std::filesystem::path& executable) {
  std::vector<std::filesystem::path> dirs = first;
  for (std::filesystem::path& dir : env_plugin_path()) dirs.push_back(std::move(dir));
  // An installed host must not pick up plugins of the build tree it was built in:
  // they may be newer, older or half-built.
  if (std::optional<std::filesystem::path> installed = installed_plugin_dir(executable)) {
    dirs.push_back(*installed);
  } else {
    dirs.emplace_back(STORH_BUILTIN_PLUGIN_DIR);
    dirs.emplace_back(STORH_INSTALLED_PLUGIN_DIR);
  }
  std::vector<std::filesystem::path> unique;
  for (const std::filesystem::path& dir : dirs) {
    if (std::find(unique.begin(), unique.end(), dir) == unique.end()) unique.push_back(dir);
  }
  return unique;
}

std::optional<std::string> engine_name_of(const std::filesystem::path& file) {
  const std::string name = file.filename().string();
  if (name.size() <= kPrefix.size() + kSuffix.size() || !name.starts_with(kPrefix) ||
      !name.ends_with(kSuffix)) {
    return std::nullopt;
  }
  return name.substr(kPrefix.size(), name.size() - kPrefix.size() - kSuffix.size());
}

std::map<std::string, std::filesystem::path> find_engines(
    const std::vector<std::filesystem::path>& dirs, std::vector<ShadowedPlugin>* shadowed) {
  std::map<std::string, std::filesystem::path> engines;
  for (const std::filesystem::path& dir : dirs) {
    std::error_code ec;
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
      files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    for (const std::filesystem::path& file : files) {
      std::optional<std::string> name = engine_name_of(file);
      if (!name) continue;
      const auto [kept, added] = engines.emplace(*name, file);  // keeps the first directory's
      // One file reached twice (a symlinked directory) hides nothing.
      if (!added && shadowed != nullptr && !std::filesystem::equivalent(kept->second, file, ec)) {
        shadowed->push_back({*name, kept->second, file});
      }
    }
  }
  return engines;
}

std::string shadowed_message(const ShadowedPlugin& shadowed) {
  return fmt::format("two plugins named \"{}\": using {} (first on the plugin path), ignoring {}",
                     shadowed.name, shadowed.used.string(), shadowed.shadowed.string());
}

}  // namespace storh::plugin
