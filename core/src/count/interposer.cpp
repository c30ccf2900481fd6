// count/interposer.cpp: libstorh_count.so, preloaded (LD_PRELOAD) into a worker of the
// counting pass. Every wrapper counts its call with a relaxed atomic and forwards to
// the next definition (libc's) found with dlsym(RTLD_NEXT).
//
// Contracts:
//   - only libc and libdl: no libstdc++ (the target links as C, without exceptions or
//     RTTI), so it can be preloaded into any program;
//   - resolution is lazy, on a wrapper's first call, and reentrancy-safe: a wrapper
//     called by dlsym itself while it resolves (glibc does not, today) fails with
//     ENOSYS instead of recursing;
//   - counts are calls, failed calls included; byte counts are what the calls
//     returned. What this cannot see is in docs/counters.md.
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

namespace {

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

std::atomic<uint64_t> g_counts[kFieldCount];

void add(Field field, uint64_t amount = 1) {
  g_counts[field].fetch_add(amount, std::memory_order_relaxed);
}

void add_bytes(Field field, ssize_t result) {
  if (result > 0) add(field, static_cast<uint64_t>(result));
}

// Initial-exec TLS: a preloaded library has static TLS, and touching it never
// allocates (a dynamic TLS access could call malloc inside a wrapper).
__attribute__((tls_model("initial-exec"))) thread_local bool t_resolving = false;

void* resolve(std::atomic<void*>& slot, const char* name) {
  void* function = slot.load(std::memory_order_acquire);
  if (function != nullptr || t_resolving) return function;
  t_resolving = true;
  function = ::dlsym(RTLD_NEXT, name);
  t_resolving = false;
  slot.store(function, std::memory_order_release);
  return function;
}

template <typename Function>
Function real(std::atomic<void*>& slot, const char* name) {
  return reinterpret_cast<Function>(resolve(slot, name));
}

int missing() {
  errno = ENOSYS;
  return -1;
}

bool takes_mode(int flags) {
  return (flags & O_CREAT) != 0 || (flags & O_TMPFILE) == O_TMPFILE;
}

void count_open(int flags) {
  add(kOpens);
  if ((flags & O_CREAT) != 0) add(kCreates);
}

}  // namespace

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

STORH_SLOT(fsync);
STORH_SLOT(fdatasync);
STORH_SLOT(open);
STORH_SLOT(open64);
STORH_SLOT(openat);
STORH_SLOT(openat64);
STORH_SLOT(creat);
STORH_SLOT(creat64);
STORH_SLOT(rename);
STORH_SLOT(renameat);
STORH_SLOT(renameat2);
STORH_SLOT(unlink);
STORH_SLOT(unlinkat);
STORH_SLOT(stat);
STORH_SLOT(lstat);
STORH_SLOT(fstat);
STORH_SLOT(fstatat);
STORH_SLOT(stat64);
STORH_SLOT(lstat64);
STORH_SLOT(fstat64);
STORH_SLOT(fstatat64);
STORH_SLOT(statx);
STORH_SLOT(__xstat);
STORH_SLOT(__lxstat);
STORH_SLOT(__fxstat);
STORH_SLOT(__fxstatat);
STORH_SLOT(__xstat64);
STORH_SLOT(__lxstat64);
STORH_SLOT(__fxstat64);
STORH_SLOT(__fxstatat64);
STORH_SLOT(read);
STORH_SLOT(pread);
STORH_SLOT(pread64);
STORH_SLOT(readv);
STORH_SLOT(preadv);
STORH_SLOT(preadv64);
STORH_SLOT(write);
STORH_SLOT(pwrite);
STORH_SLOT(pwrite64);
STORH_SLOT(writev);
STORH_SLOT(pwritev);
STORH_SLOT(pwritev64);
STORH_SLOT(close);
STORH_SLOT(opendir);
STORH_SLOT(closedir);
STORH_SLOT(getdents64);
STORH_SLOT(readdir);
STORH_SLOT(readdir64);
STORH_SLOT(readdir_r);
STORH_SLOT(readdir64_r);
STORH_SLOT(mkdir);
STORH_SLOT(mkdirat);
STORH_SLOT(mmap);
STORH_SLOT(mmap64);
STORH_SLOT(munmap);
STORH_SLOT(syncfs);
STORH_SLOT(remove);

extern "C" {

uint32_t storh_count_snapshot(storh_count_snapshot_v1* out) {
  storh_count_snapshot_v1 now;
  memset(&now, 0, sizeof now);
  uint64_t* const fields[kFieldCount] = {
      &now.fsync,       &now.fdatasync, &now.opens,      &now.creates,    &now.renames,
      &now.unlinks,     &now.stats,     &now.read_calls, &now.read_bytes, &now.write_calls,
      &now.write_bytes, &now.close,     &now.getdents,   &now.mkdir,      &now.mmap,
      &now.munmap,      &now.syncfs};
  for (int field = 0; field < kFieldCount; ++field) {
    *fields[field] = g_counts[field].load(std::memory_order_relaxed);
  }
  now.struct_size = sizeof now;
  if (out != nullptr && out->struct_size >= 2 * sizeof(uint32_t)) {
    const uint32_t filled = out->struct_size < sizeof now ? out->struct_size : sizeof now;
    memcpy(out, &now, filled);
    out->struct_size = filled;
  }
  return sizeof now;
}

int fsync(int fd) {
  add(kFsync);
  STORH_FORWARD(fsync, fd);
}

int fdatasync(int fd) {
  add(kFdatasync);
  STORH_FORWARD(fdatasync, fd);
}

int syncfs(int fd) noexcept {
  add(kSyncfs);
  STORH_FORWARD(syncfs, fd);
}

// The mode argument is read only when the flags say it was passed, as libc does.
#define STORH_OPEN_MODE(last)                           \
  mode_t mode = 0;                                      \
  if (takes_mode(flags)) {                              \
    va_list arguments;                                  \
    va_start(arguments, last);                          \
    mode = static_cast<mode_t>(va_arg(arguments, int)); \
    va_end(arguments);                                  \
  }                                                     \
  count_open(flags)

int open(const char* path, int flags, ...) {
  STORH_OPEN_MODE(flags);
  STORH_FORWARD(open, path, flags, mode);
}

int open64(const char* path, int flags, ...) {
  STORH_OPEN_MODE(flags);
  STORH_FORWARD(open64, path, flags, mode);
}

int openat(int dirfd, const char* path, int flags, ...) {
  STORH_OPEN_MODE(flags);
  STORH_FORWARD(openat, dirfd, path, flags, mode);
}

int openat64(int dirfd, const char* path, int flags, ...) {
  STORH_OPEN_MODE(flags);
  STORH_FORWARD(openat64, dirfd, path, flags, mode);
}

int creat(const char* path, mode_t mode) {
  count_open(O_CREAT);
  STORH_FORWARD(creat, path, mode);
}

int creat64(const char* path, mode_t mode) {
  count_open(O_CREAT);
  STORH_FORWARD(creat64, path, mode);
}

int rename(const char* from, const char* to) noexcept {
  add(kRenames);
  STORH_FORWARD(rename, from, to);
}

int renameat(int from_dir, const char* from, int to_dir, const char* to) noexcept {
  add(kRenames);
  STORH_FORWARD(renameat, from_dir, from, to_dir, to);
}

int renameat2(int from_dir, const char* from, int to_dir, const char* to,
              unsigned int flags) noexcept {
  add(kRenames);
  STORH_FORWARD(renameat2, from_dir, from, to_dir, to, flags);
}

int unlink(const char* path) noexcept {
  add(kUnlinks);
  STORH_FORWARD(unlink, path);
}

int unlinkat(int dirfd, const char* path, int flags) noexcept {
  add(kUnlinks);
  STORH_FORWARD(unlinkat, dirfd, path, flags);
}

// remove(3) unlinks a file (or removes an empty directory) through libc's internal
// unlink, which no wrapper sees; std::filesystem::remove calls it.
int remove(const char* path) noexcept {
  add(kUnlinks);
  STORH_FORWARD(remove, path);
}

int close(int fd) {
  add(kClose);
  STORH_FORWARD(close, fd);
}

int mkdir(const char* path, mode_t mode) noexcept {
  add(kMkdir);
  STORH_FORWARD(mkdir, path, mode);
}

int mkdirat(int dirfd, const char* path, mode_t mode) noexcept {
  add(kMkdir);
  STORH_FORWARD(mkdirat, dirfd, path, mode);
}

// opendir and closedir open and close the directory through libc's internal calls,
// which no wrapper sees: they count as an open and a close here.
DIR* opendir(const char* path) {
  count_open(O_RDONLY);
  STORH_FORWARD_OR(nullptr, opendir, path);
}

int closedir(DIR* dir) {
  add(kClose);
  STORH_FORWARD(closedir, dir);
}

// readdir refills its buffer with libc's internal getdents64, which no wrapper sees,
// so each readdir call (an entry, or the end) is one directory read.
ssize_t getdents64(int fd, void* buf, size_t count) {
  add(kGetdents);
  STORH_FORWARD(getdents64, fd, buf, count);
}

dirent* readdir(DIR* dir) {
  add(kGetdents);
  STORH_FORWARD_OR(nullptr, readdir, dir);
}

dirent64* readdir64(DIR* dir) {
  add(kGetdents);
  STORH_FORWARD_OR(nullptr, readdir64, dir);
}

void* mmap(void* address, size_t length, int protection, int flags, int fd, off_t offset) noexcept {
  add(kMmap);
  STORH_FORWARD_OR(MAP_FAILED, mmap, address, length, protection, flags, fd, offset);
}

void* mmap64(void* address, size_t length, int protection, int flags, int fd,
             off64_t offset) noexcept {
  add(kMmap);
  STORH_FORWARD_OR(MAP_FAILED, mmap64, address, length, protection, flags, fd, offset);
}

int munmap(void* address, size_t length) noexcept {
  add(kMunmap);
  STORH_FORWARD(munmap, address, length);
}

int stat(const char* path, struct stat* buf) noexcept {
  add(kStats);
  STORH_FORWARD(stat, path, buf);
}

int lstat(const char* path, struct stat* buf) noexcept {
  add(kStats);
  STORH_FORWARD(lstat, path, buf);
}

int fstat(int fd, struct stat* buf) noexcept {
  add(kStats);
  STORH_FORWARD(fstat, fd, buf);
}

int fstatat(int dirfd, const char* path, struct stat* buf, int flags) noexcept {
  add(kStats);
  STORH_FORWARD(fstatat, dirfd, path, buf, flags);
}

int stat64(const char* path, struct stat64* buf) noexcept {
  add(kStats);
  STORH_FORWARD(stat64, path, buf);
}

int lstat64(const char* path, struct stat64* buf) noexcept {
  add(kStats);
  STORH_FORWARD(lstat64, path, buf);
}

int fstat64(int fd, struct stat64* buf) noexcept {
  add(kStats);
  STORH_FORWARD(fstat64, fd, buf);
}

int fstatat64(int dirfd, const char* path, struct stat64* buf, int flags) noexcept {
  add(kStats);
  STORH_FORWARD(fstatat64, dirfd, path, buf, flags);
}

int statx(int dirfd, const char* path, int flags, unsigned int mask, struct statx* buf) noexcept {
  add(kStats);
  STORH_FORWARD(statx, dirfd, path, flags, mask, buf);
}

int __xstat(int version, const char* path, struct stat* buf) {
  add(kStats);
  STORH_FORWARD(__xstat, version, path, buf);
}

int __lxstat(int version, const char* path, struct stat* buf) {
  add(kStats);
  STORH_FORWARD(__lxstat, version, path, buf);
}

int __fxstat(int version, int fd, struct stat* buf) {
  add(kStats);
  STORH_FORWARD(__fxstat, version, fd, buf);
}

int __fxstatat(int version, int dirfd, const char* path, struct stat* buf, int flags) {
  add(kStats);
  STORH_FORWARD(__fxstatat, version, dirfd, path, buf, flags);
}

int __xstat64(int version, const char* path, struct stat64* buf) {
  add(kStats);
  STORH_FORWARD(__xstat64, version, path, buf);
}

int __lxstat64(int version, const char* path, struct stat64* buf) {
  add(kStats);
  STORH_FORWARD(__lxstat64, version, path, buf);
}

int __fxstat64(int version, int fd, struct stat64* buf) {
  add(kStats);
  STORH_FORWARD(__fxstat64, version, fd, buf);
}

int __fxstatat64(int version, int dirfd, const char* path, struct stat64* buf, int flags) {
  add(kStats);
  STORH_FORWARD(__fxstatat64, version, dirfd, path, buf, flags);
}

ssize_t read(int fd, void* buf, size_t count) {
  add(kReadCalls);
  STORH_FORWARD_BYTES(kReadBytes, read, fd, buf, count);
}

ssize_t pread(int fd, void* buf, size_t count, off_t offset) {
  add(kReadCalls);
  STORH_FORWARD_BYTES(kReadBytes, pread, fd, buf, count, offset);
}

ssize_t pread64(int fd, void* buf, size_t count, off64_t offset) {
  add(kReadCalls);
  STORH_FORWARD_BYTES(kReadBytes, pread64, fd, buf, count, offset);
}

ssize_t readv(int fd, const struct iovec* iov, int count) {
  add(kReadCalls);
  STORH_FORWARD_BYTES(kReadBytes, readv, fd, iov, count);
}

ssize_t preadv(int fd, const struct iovec* iov, int count, off_t offset) {
  add(kReadCalls);
  STORH_FORWARD_BYTES(kReadBytes, preadv, fd, iov, count, offset);
}

ssize_t preadv64(int fd, const struct iovec* iov, int count, off64_t offset) {
  add(kReadCalls);
  STORH_FORWARD_BYTES(kReadBytes, preadv64, fd, iov, count, offset);
}

ssize_t write(int fd, const void* buf, size_t count) {
  add(kWriteCalls);
  STORH_FORWARD_BYTES(kWriteBytes, write, fd, buf, count);
}

ssize_t pwrite(int fd, const void* buf, size_t count, off_t offset) {
  add(kWriteCalls);
  STORH_FORWARD_BYTES(kWriteBytes, pwrite, fd, buf, count, offset);
}

ssize_t pwrite64(int fd, const void* buf, size_t count, off64_t offset) {
  add(kWriteCalls);
  STORH_FORWARD_BYTES(kWriteBytes, pwrite64, fd, buf, count, offset);
}

ssize_t writev(int fd, const struct iovec* iov, int count) {
  add(kWriteCalls);
  STORH_FORWARD_BYTES(kWriteBytes, writev, fd, iov, count);
}

ssize_t pwritev(int fd, const struct iovec* iov, int count, off_t offset) {
  add(kWriteCalls);
  STORH_FORWARD_BYTES(kWriteBytes, pwritev, fd, iov, count, offset);
}

ssize_t pwritev64(int fd, const struct iovec* iov, int count, off64_t offset) {
  add(kWriteCalls);
  STORH_FORWARD_BYTES(kWriteBytes, pwritev64, fd, iov, count, offset);
}

}  // extern "C"
