#include "plugin/loader.h"

#include <dlfcn.h>

#include <cstddef>
#include <cstring>
#include <string_view>

#include <fmt/format.h>

#include "storh/plugin.h"

namespace storh::plugin {
namespace {

// The size of the first manifest layout (ABI 1.0); older layouts do not exist.
constexpr std::size_t kMinimumManifestSize = offsetof(StorhManifest, version) + sizeof(char*);
// The size up to the build provenance of ABI 1.2: a shorter manifest has none.
constexpr std::size_t kBuildManifestSize =
    offsetof(StorhManifest, optimization) + sizeof(std::uint32_t);

// Trimmed, or "unknown" when null or blank (a multi-config build's flags may start
// with a space).
std::string known_or_unknown(const char* text) {
  std::string_view view = text != nullptr ? text : "";
  const std::size_t first = view.find_first_not_of(" \t");
  if (first == std::string_view::npos) return "unknown";
  view = view.substr(first, view.find_last_not_of(" \t") - first + 1);
  return std::string(view);
}

// Only reads fields inside struct_size: an older plugin's manifest object ends earlier.
void read_build(const StorhManifest& raw, ManifestInfo& info) {
  if (raw.struct_size < kBuildManifestSize) return;
  info.build_type = known_or_unknown(raw.build_type);
  info.build_flags = known_or_unknown(raw.build_flags);
  info.compiler = known_or_unknown(raw.compiler);
  if (raw.optimization == 1) info.optimized = false;
  if (raw.optimization == 2) info.optimized = true;
}

// dlopen ourselves first: its error text names the missing symbol or library, which
// Boost 1.74 replaces with "Bad file descriptor". RTLD_NODELETE keeps the plugin and its
// libraries mapped once loaded: a process that loads one uses it until it ends, so
// unmapping them just before (libpq brings some thirty, half a run's munmap calls) is
// work for nothing. Its static destructors then run at exit, if the process exits.
std::string try_dlopen(const std::filesystem::path& file, void** handle) {
  ::dlerror();
  *handle = ::dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (*handle != nullptr) return {};
  const char* reason = ::dlerror();
  return reason != nullptr ? reason : "unknown dlopen error";
}

Expected<ManifestInfo> read_manifest(const boost::dll::shared_library& library,
                                     const std::string& where) {
  if (!library.has(kManifestSymbol)) {
    return Error{fmt::format("{}: not a storh plugin: check \"manifest\" failed: no {} symbol",
                             where, kManifestSymbol)};
  }
  const StorhManifest* raw = library.get<StorhManifestFunction>(kManifestSymbol)();
  if (raw == nullptr) {
    return Error{
        fmt::format("{}: check \"manifest\" failed: {} returned null", where, kManifestSymbol)};
  }
  if (raw->struct_size < kMinimumManifestSize) {
    return Error{
        fmt::format("{}: check \"manifest size\" failed: plugin {} bytes, host needs >= {}", where,
                    raw->struct_size, kMinimumManifestSize)};
  }
  ManifestInfo info;
  info.struct_size = raw->struct_size;
  info.abi_major = raw->abi_major;
  info.abi_minor = raw->abi_minor;
  info.toolchain = raw->toolchain != nullptr ? raw->toolchain : "";
  info.name = raw->name != nullptr ? raw->name : "";
  info.version = raw->version != nullptr ? raw->version : "";
  read_build(*raw, info);
  return info;
}

std::string check_manifest(const ManifestInfo& info, const std::string& where,
                           const std::string& expected_name) {
  if (info.abi_major != kAbiMajor) {
    return fmt::format("{}: refused: check \"ABI major\" failed: plugin has {}, host has {}", where,
                       info.abi_major, kAbiMajor);
  }
  if (info.abi_minor > kAbiMinor) {
    return fmt::format(
        "{}: refused: check \"ABI minor\" failed: plugin has {}.{}, host has {}.{} (plugin is "
        "newer)",
        where, info.abi_major, info.abi_minor, kAbiMajor, kAbiMinor);
  }
  if (info.toolchain != host_toolchain()) {
    return fmt::format(
        "{}: refused: check \"toolchain\" failed: plugin built with \"{}\", host with \"{}\"",
        where, info.toolchain, host_toolchain());
  }
  if (!expected_name.empty() && info.name != expected_name) {
    return fmt::format(
        "{}: refused: check \"name\" failed: manifest says \"{}\", file name says \"{}\"", where,
        info.name, expected_name);
  }
  return {};
}

}  // namespace

EngineInfo LoadedPlugin::describe() const {
  EngineInfo info = engine_->describe();
  if (info.name.empty()) info.name = manifest_.name;
  if (info.version.empty()) info.version = manifest_.version;
  return info;
}

const char* host_toolchain() {
  return STORH_TOOLCHAIN_FINGERPRINT;
}

Expected<std::unique_ptr<LoadedPlugin>> load_plugin(const std::filesystem::path& file,
                                                    const std::string& expected_name) {
  const std::string where = file.string();
  std::error_code exists_error;
  if (!std::filesystem::is_regular_file(file, exists_error)) {
    return Error{fmt::format("{}: plugin file not found", where)};
  }
  void* handle = nullptr;
  if (std::string reason = try_dlopen(file, &handle); !reason.empty()) {
    return Error{fmt::format("{}: cannot load plugin: {}", where, reason)};
  }

  boost::dll::shared_library library;
  boost::dll::fs::error_code load_error;
  library.load(file, boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local,
               load_error);
  ::dlclose(handle);  // the Boost handle holds its own reference
  if (load_error) {
    return Error{fmt::format("{}: cannot load plugin: {}", where, load_error.message())};
  }

  Expected<ManifestInfo> manifest = read_manifest(library, where);
  if (!manifest) return Error{manifest.error()};
  if (std::string refusal = check_manifest(*manifest, where, expected_name); !refusal.empty()) {
    return Error{refusal};
  }
  if (!library.has(kFactorySymbol)) {
    return Error{fmt::format("{}: check \"factory\" failed: no {} symbol", where, kFactorySymbol)};
  }
  std::unique_ptr<Engine> engine = library.get_alias<EngineFactory>(kFactorySymbol)();
  if (!engine) {
    return Error{fmt::format("{}: the engine factory returned no engine", where)};
  }
  // A 1.0 plugin cannot export the transactions factory; never look for it there.
  std::unique_ptr<Transactions> transactions;
  if (manifest->abi_minor >= kTransactionsAbiMinor && library.has(kTransactionsSymbol)) {
    transactions = library.get_alias<TransactionsFactory>(kTransactionsSymbol)();
    if (!transactions) {
      return Error{fmt::format("{}: the transactions factory returned nothing", where)};
    }
  }
  // Likewise the key-value factory before 1.6: an older plugin never exports it.
  std::unique_ptr<KeyValueStore> key_value;
  if (manifest->abi_minor >= kKeyValueAbiMinor && library.has(kKeyValueSymbol)) {
    key_value = library.get_alias<KeyValueFactory>(kKeyValueSymbol)();
    if (!key_value) {
      return Error{fmt::format("{}: the key-value factory returned nothing", where)};
    }
  }
  auto loaded = std::make_unique<LoadedPlugin>(std::move(library), std::move(*manifest),
                                               std::move(engine), file);
  loaded->set_transactions(std::move(transactions));
  loaded->set_key_value(std::move(key_value));
  return loaded;
}

}  // namespace storh::plugin
