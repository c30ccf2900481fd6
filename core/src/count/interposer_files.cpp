// count/interposer_files.cpp: libstorh_count.so's wrappers of the file-system calls:
// opens and creates, renames, unlinks, stats, directory reads, mkdir and close
// (interposer.cpp has the library's contracts, its counters and the I/O wrappers).
#include "count/interposer.h"

using namespace storh_count_detail;

namespace {

bool takes_mode(int flags) {
  return (flags & O_CREAT) != 0 || (flags & O_TMPFILE) == O_TMPFILE;
}

void count_open(int flags) {
  add(kOpens);
  if ((flags & O_CREAT) != 0) add(kCreates);
}

}  // namespace

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
STORH_SLOT(close);
STORH_SLOT(opendir);
STORH_SLOT(closedir);
STORH_SLOT(getdents64);
STORH_SLOT(readdir);
STORH_SLOT(readdir64);
STORH_SLOT(mkdir);
STORH_SLOT(mkdirat);
STORH_SLOT(remove);

extern "C" {

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

}  // extern "C"
