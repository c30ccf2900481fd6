// plugin/loader.h: loading one plugin module and checking it before use.
//
// Order of checks (each refusal names the file, the check and both values):
//   1. dlopen with RTLD_NOW | RTLD_LOCAL (an unresolved symbol fails here; the
//      message includes dlerror(), which Boost 1.74 alone does not show);
//   2. the storh_plugin_manifest symbol exists;
//   3. manifest struct size, ABI major (equal), ABI minor (not newer than the host),
//      toolchain fingerprint (equal), engine name (as the file name promises);
//   4. only then the C++ factory storh_create_engine is looked up and called;
//   5. for ABI minor >= 1, the optional storh_create_transactions (load runs);
//   6. for ABI minor >= 6, the optional storh_create_key_value (YCSB runs).
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include <boost/dll/shared_library.hpp>

#include "storh/engine.h"
#include "storh/key_value.h"
#include "storh/transactions.h"
#include "util/expected.h"

namespace storh::plugin {

// A copy of the manifest's strings: nothing here points into the module.
struct ManifestInfo {
  std::uint32_t struct_size = 0;
  std::uint32_t abi_major = 0;
  std::uint32_t abi_minor = 0;
  std::string toolchain;
  std::string name;
  std::string version;
  // Build provenance (ABI 1.2); "unknown" (nullopt) when the manifest is older, too
  // short for the field, or leaves it empty.
  std::string build_type = "unknown";
  std::string build_flags = "unknown";
  std::string compiler = "unknown";
  std::optional<bool> optimized;
};

// A loaded plugin and the engine it made. Members are destroyed in reverse order, so
// the engine (whose code lives in the module) goes before the library handle is closed.
// The module itself stays mapped until the process ends (RTLD_NODELETE, loader.cpp).
class LoadedPlugin {
 public:
  LoadedPlugin(boost::dll::shared_library library, ManifestInfo manifest,
               std::unique_ptr<Engine> engine, std::filesystem::path file)
      : library_(std::move(library)),
        manifest_(std::move(manifest)),
        file_(std::move(file)),
        engine_(std::move(engine)) {}
  LoadedPlugin(LoadedPlugin&&) noexcept = default;
  LoadedPlugin& operator=(LoadedPlugin&&) = delete;
  ~LoadedPlugin() {
    key_value_.reset();
    transactions_.reset();
    engine_.reset();
  }

  Engine& engine() { return *engine_; }
  // The engine's describe(), with the manifest's name and version where it leaves
  // them empty: storh/plugin.h states them once, in STORH_PLUGIN. A value it does
  // give is kept as it is, for check_description to compare.
  EngineInfo describe() const;
  // The plugin's transactions for load runs, or nullptr when it offers none.
  Transactions* transactions() { return transactions_.get(); }
  void set_transactions(std::unique_ptr<Transactions> transactions) {
    transactions_ = std::move(transactions);
  }
  // The plugin's key-value store for YCSB runs, or nullptr when it offers none.
  KeyValueStore* key_value() { return key_value_.get(); }
  void set_key_value(std::unique_ptr<KeyValueStore> store) { key_value_ = std::move(store); }
  const ManifestInfo& manifest() const { return manifest_; }
  const std::filesystem::path& file() const { return file_; }

 private:
  boost::dll::shared_library library_;
  ManifestInfo manifest_;
  std::filesystem::path file_;
  std::unique_ptr<Engine> engine_;
  std::unique_ptr<Transactions> transactions_;
  std::unique_ptr<KeyValueStore> key_value_;
};

// Loads `file`. When `expected_name` is not empty the manifest's name must equal it.
Expected<std::unique_ptr<LoadedPlugin>> load_plugin(const std::filesystem::path& file,
                                                    const std::string& expected_name = {});

// The host's own fingerprint, for messages and the result file.
const char* host_toolchain();

}  // namespace storh::plugin
