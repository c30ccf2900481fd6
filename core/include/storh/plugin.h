// storh/plugin.h: the one header a plugin's adapter file includes.
//
// A plugin is a shared library with exactly two exported symbols:
//
//   storh_plugin_manifest  extern "C" function returning a constant StorhManifest.
//                          The host reads it before touching any C++ symbol and
//                          refuses the plugin on an ABI or toolchain mismatch.
//   storh_create_engine    Boost.DLL alias of a factory returning
//                          std::unique_ptr<storh::Engine>.
//
// Write both with one line in the adapter file:
//
//   STORH_PLUGIN(my_engine, "1.2.0", storh_example::MyEngine)
//
// and build it with storh_add_plugin(my_engine SOURCES my_plugin.cpp) from CMake.
// The file name of the module is storh_<name>.so; the host finds an engine by it.
#pragma once

#include <cstdint>
#include <memory>

#include <boost/dll/alias.hpp>

#include "storh/engine.h"
#include "storh/version.h"

extern "C" {

// Append-only: new fields go at the end and bump kAbiMinor. The host reads at most
// struct_size bytes.
struct StorhManifest {
  std::uint32_t struct_size;
  std::uint32_t abi_major;
  std::uint32_t abi_minor;
  const char* toolchain;  // STORH_TOOLCHAIN_FINGERPRINT of the plugin's build
  const char* name;       // the engine name, [a-z0-9_]+
  const char* version;    // the plugin's own version, free-form
};

using StorhManifestFunction = const StorhManifest*();

}  // extern "C"

namespace storh {

// The factory signature behind storh_create_engine. It must not throw: return
// nullptr on failure.
using EngineFactory = std::unique_ptr<Engine>();

inline constexpr const char* kManifestSymbol = "storh_plugin_manifest";
inline constexpr const char* kFactorySymbol = "storh_create_engine";

}  // namespace storh

// Defines the manifest and the factory for engine class `engine_class` (default
// constructible). `name` is a bare identifier, the engine's name.
#define STORH_PLUGIN(name, version_string, engine_class)                        \
  extern "C" BOOST_SYMBOL_EXPORT const StorhManifest* storh_plugin_manifest() { \
    static constexpr StorhManifest manifest{sizeof(StorhManifest),              \
                                            ::storh::kAbiMajor,                 \
                                            ::storh::kAbiMinor,                 \
                                            STORH_TOOLCHAIN_FINGERPRINT,        \
                                            #name,                              \
                                            version_string};                    \
    return &manifest;                                                           \
  }                                                                             \
  namespace {                                                                   \
  std::unique_ptr<::storh::Engine> storh_detail_create_engine() noexcept {      \
    try {                                                                       \
      return std::make_unique<engine_class>();                                  \
    } catch (...) {                                                             \
      return nullptr;                                                           \
    }                                                                           \
  }                                                                             \
  }                                                                             \
  BOOST_DLL_ALIAS(storh_detail_create_engine, storh_create_engine)
