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
#include "count/interposer.h"

using namespace storh_count_detail;

namespace storh_count_detail {

std::atomic<uint64_t> g_counts[kFieldCount];
__attribute__((tls_model("initial-exec"))) thread_local bool t_resolving = false;

}  // namespace storh_count_detail

STORH_SLOT(fsync);
STORH_SLOT(fdatasync);
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
STORH_SLOT(mmap);
STORH_SLOT(mmap64);
STORH_SLOT(munmap);
STORH_SLOT(syncfs);

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
