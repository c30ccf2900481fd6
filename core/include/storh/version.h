// storh/version.h: the plugin ABI version and the toolchain fingerprint.
//
// The host refuses a plugin whose ABI major differs from its own, whose ABI minor is
// newer than its own, or whose toolchain fingerprint differs: C++ types (std::string,
// std::vector, vtables) cross the boundary, so both sides must agree on the standard
// library, its ABI flags, debug mode and sanitizers. Everything here is a compile-time
// constant so the manifest is constant-initialised and can be read before any
// constructor of the plugin runs.
#pragma once

#include <cstdint>

// Pulls in the standard library's version macros without declaring anything heavy.
#include <version>

namespace storh {

// Bump the major on any incompatible change to Engine, RunContext or the manifest.
// Bump the minor when a virtual function is appended to RunContext (the host's
// class: old plugins never call it). A function appended to Engine may only be
// called on plugins whose manifest abi_minor says they have it.
// What each minor added, and how older plugins are treated: docs/plugin-guide.md,
// "SDK versions".
inline constexpr std::uint32_t kAbiMajor = 1;
inline constexpr std::uint32_t kAbiMinor = 7;
// The first ABI minor whose Engine has param_ranges().
inline constexpr std::uint32_t kParamRangesAbiMinor = 3;
// The first ABI minor whose Engine has preflight().
inline constexpr std::uint32_t kPreflightAbiMinor = 4;
// The first ABI minor whose Transactions has phase_counters_begin and _end.
inline constexpr std::uint32_t kEngineCountersAbiMinor = 7;

#define STORH_DETAIL_STR2(x) #x
#define STORH_DETAIL_STR(x) STORH_DETAIL_STR2(x)

#if defined(__GLIBCXX__)
#define STORH_DETAIL_STDLIB "libstdc++-" STORH_DETAIL_STR(_GLIBCXX_RELEASE)
#elif defined(_LIBCPP_VERSION)
#define STORH_DETAIL_STDLIB "libc++-" STORH_DETAIL_STR(_LIBCPP_VERSION)
#else
#define STORH_DETAIL_STDLIB "unknown-stdlib"
#endif

#if defined(_GLIBCXX_USE_CXX11_ABI)
#define STORH_DETAIL_CXX11_ABI " cxx11abi=" STORH_DETAIL_STR(_GLIBCXX_USE_CXX11_ABI)
#else
#define STORH_DETAIL_CXX11_ABI " cxx11abi=none"
#endif

#if defined(_GLIBCXX_DEBUG) || defined(_GLIBCXX_ASSERTIONS)
#define STORH_DETAIL_DEBUG_MODE " debug=1"
#else
#define STORH_DETAIL_DEBUG_MODE " debug=0"
#endif

#if defined(__SANITIZE_ADDRESS__)
#define STORH_DETAIL_ASAN " asan=1"
#else
#define STORH_DETAIL_ASAN " asan=0"
#endif

#if defined(__SANITIZE_THREAD__)
#define STORH_DETAIL_TSAN " tsan=1"
#else
#define STORH_DETAIL_TSAN " tsan=0"
#endif

// UBSan has no predefined macro; the build defines STORH_UBSAN=1 on host and plugins.
#if defined(STORH_UBSAN) && STORH_UBSAN
#define STORH_DETAIL_UBSAN " ubsan=1"
#else
#define STORH_DETAIL_UBSAN " ubsan=0"
#endif

// For example "libstdc++-12 cxx11abi=1 debug=0 asan=0 tsan=0 ubsan=0".
#define STORH_TOOLCHAIN_FINGERPRINT                                                    \
  STORH_DETAIL_STDLIB STORH_DETAIL_CXX11_ABI STORH_DETAIL_DEBUG_MODE STORH_DETAIL_ASAN \
      STORH_DETAIL_TSAN STORH_DETAIL_UBSAN

}  // namespace storh
