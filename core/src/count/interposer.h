// count/interposer.h: what the two halves of libstorh_count.so share (interposer.cpp,
// interposer_files.cpp): the counters, the lazy resolution of libc's definitions and
// the forwarding macros. Private to the interposer; see interposer.cpp for its
// contracts (libc and libdl only, reentrancy-safe resolution, what a count means).
#pragma once

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#include <atomic>

#include "count/count_abi.h"

// glibc < 2.33 programs call these instead of stat/fstat/lstat/fstatat; newer headers
// no longer declare them. Their names are glibc's, reserved identifiers included.
// NOLINTBEGIN(bugprone-reserved-identifier,readability-identifier-naming)
extern "C" {
int __xstat(int version, const char* path, struct stat* buf);
int __lxstat(int version, const char* path, struct stat* buf);
int __fxstat(int version, int fd, struct stat* buf);
int __fxstatat(int version, int dirfd, const char* path, struct stat* buf, int flags);
int __xstat64(int version, const char* path, struct stat64* buf);
int __lxstat64(int version, const char* path, struct stat64* buf);
int __fxstat64(int version, int fd, struct stat64* buf);
int __fxstatat64(int version, int dirfd, const char* path, struct stat64* buf, int flags);
}
// NOLINTEND(bugprone-reserved-identifier,readability-identifier-naming)

namespace storh_count_detail {

enum Field {
  kFsync,
  kFdatasync,
  kOpens,
  kCreates,
  kRenames,
  kUnlinks,
  kStats,
  kReadCalls,
  kReadBytes,
  kWriteCalls,
  kWriteBytes,
  kClose,
  kGetdents,
  kMkdir,
  kMmap,
  kMunmap,
  kSyncfs,
  kFieldCount
};

// One set of counters for the whole library (interposer.cpp defines it).
__attribute__((visibility("hidden"))) extern std::atomic<uint64_t> g_counts[kFieldCount];

inline void add(Field field, uint64_t amount = 1) {
  g_counts[field].fetch_add(amount, std::memory_order_relaxed);
}

inline void add_bytes(Field field, ssize_t result) {
  if (result > 0) add(field, static_cast<uint64_t>(result));
}

// Initial-exec TLS: a preloaded library has static TLS, and touching it never
// allocates (a dynamic TLS access could call malloc inside a wrapper).
__attribute__((visibility("hidden"),
               tls_model("initial-exec"))) extern thread_local bool t_resolving;

inline void* resolve(std::atomic<void*>& slot, const char* name) {
  void* function = slot.load(std::memory_order_acquire);
  if (function != nullptr || t_resolving) return function;
  t_resolving = true;
  function = ::dlsym(RTLD_NEXT, name);
  t_resolving = false;
  slot.store(function, std::memory_order_release);
  return function;
}

template <typename Function>
inline Function real(std::atomic<void*>& slot, const char* name) {
  return reinterpret_cast<Function>(resolve(slot, name));
}

inline int missing() {
  errno = ENOSYS;
  return -1;
}

}  // namespace storh_count_detail

#define STORH_SLOT(name)                  \
  static std::atomic<void*> slot_##name { \
    nullptr                               \
  }
#define STORH_REAL(name) real<decltype(&::name)>(slot_##name, #name)

// Forwards a call whose result is an int or a byte count; ssize_t holds both.
#define STORH_FORWARD(name, ...)             \
  auto function = STORH_REAL(name);          \
  if (function == nullptr) return missing(); \
  return function(__VA_ARGS__)

// Forwards a call that reports failure with `failure` (a null or MAP_FAILED pointer).
#define STORH_FORWARD_OR(failure, name, ...) \
  auto function = STORH_REAL(name);          \
  if (function == nullptr) {                 \
    errno = ENOSYS;                          \
    return failure;                          \
  }                                          \
  return function(__VA_ARGS__)

#define STORH_FORWARD_BYTES(field, name, ...)   \
  auto function = STORH_REAL(name);             \
  if (function == nullptr) return missing();    \
  const ssize_t result = function(__VA_ARGS__); \
  add_bytes(field, result);                     \
  return result
