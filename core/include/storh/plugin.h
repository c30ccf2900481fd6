// storh/plugin.h: the one header a plugin's adapter file includes.
//
// A plugin is a shared library that exports only storh_* symbols (storh_add_plugin links
// it with cmake/storh_plugin.map): these two always,
//
//   storh_plugin_manifest      extern "C" function returning a constant StorhManifest.
//                              The host reads it before touching any C++ symbol and
//                              refuses the plugin on an ABI or toolchain mismatch.
//   storh_create_engine        Boost.DLL alias of a factory returning
//                              std::unique_ptr<storh::Engine>.
//
// and a third when the engine offers load-mode transactions (storh/transactions.h):
//
//   storh_create_transactions  Boost.DLL alias of a factory returning
//                              std::unique_ptr<storh::Transactions>.
//
// Write the first two with one line in the adapter file:
//
//   STORH_PLUGIN(my_engine, "1.2.0", storh_example::MyEngine)
//
// and build it with storh_add_plugin(my_engine SOURCES my_plugin.cpp) from CMake.
// The file name of the module is storh_<name>.so; the host finds an engine by it.
// This is the one place the name and version are stated: describe() leaves
// EngineInfo's name and version empty and the host fills them in from here. (A plugin
// that still sets them, as SDK 1.4 and older required, must set these values: the
// host refuses a description that disagrees with its manifest, naming both values.)
//
// Time each operation once per run (ctx.measure, measure_each or measure_repeated of
// RunContext). A second measurement of the same operation in one run is not
// refused: it records one more sample, which the host treats like a sample of another
// repeat. The metric's statistics and the gate then run over both, so that run weighs
// twice; the rate uses the `items` of the operation's first sample; latency histograms
// merge; a counting run (docs/counters.md) sums the counters and items of both. For
// more samples, let the host repeat the run (the suite's `repeats`).
#pragma once

#include <cstdint>
#include <memory>

#include <boost/dll/alias.hpp>

#include "storh/engine.h"
#include "storh/version.h"

extern "C" {

// Append-only: new fields go at the end and bump kAbiMinor. The host reads at most
// struct_size bytes, so a field a plugin's manifest is too short for reads as unknown.
// Fields after `version` have defaults so a hand-written manifest may stop there.
struct StorhManifest {
  std::uint32_t struct_size;
  std::uint32_t abi_major;
  std::uint32_t abi_minor;
  const char* toolchain;  // STORH_TOOLCHAIN_FINGERPRINT of the plugin's build
  const char* name;       // the engine name, [a-z0-9_]+
  const char* version;    // the plugin's own version, free-form
  // ABI 1.2: how the plugin was built, recorded in every result (docs/results.md).
  // Null or "" means unknown.
  const char* build_type = nullptr;   // STORH_PLUGIN_BUILD_TYPE
  const char* build_flags = nullptr;  // STORH_PLUGIN_BUILD_FLAGS
  const char* compiler = nullptr;     // STORH_PLUGIN_COMPILER, "g++ 12.2.0"
  // Whether the adapter file was compiled with optimisation, as the compiler itself
  // says (__OPTIMIZE__), so it is right even for a plugin built by hand:
  // 0 unknown, 1 not optimised, 2 optimised.
  std::uint32_t optimization = 0;
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

// Build provenance for the manifest. storh_add_plugin defines STORH_PLUGIN_BUILD_TYPE
// (CMAKE_BUILD_TYPE, the configuration, "default-optimized" or "none") and
// STORH_PLUGIN_BUILD_FLAGS (CMAKE_CXX_FLAGS and the build type's flags) for its
// targets; a plugin built another way records them as unknown.
#ifndef STORH_PLUGIN_BUILD_TYPE
#define STORH_PLUGIN_BUILD_TYPE ""
#endif
#ifndef STORH_PLUGIN_BUILD_FLAGS
#define STORH_PLUGIN_BUILD_FLAGS ""
#endif

// The same spelling as the host's environment.compiler, so the two compare equal.
#define STORH_DETAIL_VERSION3(major, minor, patch) \
  STORH_DETAIL_STR(major) "." STORH_DETAIL_STR(minor) "." STORH_DETAIL_STR(patch)
#if defined(__clang__)
#define STORH_PLUGIN_COMPILER \
  "clang++ " STORH_DETAIL_VERSION3(__clang_major__, __clang_minor__, __clang_patchlevel__)
#elif defined(__GNUC__)
#define STORH_PLUGIN_COMPILER \
  "g++ " STORH_DETAIL_VERSION3(__GNUC__, __GNUC_MINOR__, __GNUC_PATCHLEVEL__)
#elif defined(__VERSION__)
#define STORH_PLUGIN_COMPILER __VERSION__
#else
#define STORH_PLUGIN_COMPILER ""
#endif

// StorhManifest::optimization of the file that expands STORH_PLUGIN.
#if defined(__OPTIMIZE__)
#define STORH_PLUGIN_OPTIMIZATION 2u
#else
#define STORH_PLUGIN_OPTIMIZATION 1u
#endif

// Defines the manifest and the factory for engine class `engine_class` (default
// constructible). `name` is a bare identifier, the engine's name.
#define STORH_PLUGIN(name, version_string, engine_class)                        \
  extern "C" BOOST_SYMBOL_EXPORT const StorhManifest* storh_plugin_manifest() { \
    static constexpr StorhManifest manifest{sizeof(StorhManifest),              \
                                            ::storh::kAbiMajor,                 \
                                            ::storh::kAbiMinor,                 \
                                            STORH_TOOLCHAIN_FINGERPRINT,        \
                                            #name,                              \
                                            version_string,                     \
                                            STORH_PLUGIN_BUILD_TYPE,            \
                                            STORH_PLUGIN_BUILD_FLAGS,           \
                                            STORH_PLUGIN_COMPILER,              \
                                            STORH_PLUGIN_OPTIMIZATION};         \
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
