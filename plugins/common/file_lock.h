// file_lock.h: the advisory whole-file locks of engine-spec.md section 1.6.
//
// A FileLock keeps its lock file open for its lifetime and takes flock(LOCK_EX) around
// each operation. It is re-entrant within one instance through a depth counter (the
// DocStore needs that: put inside putStream), and NOT thread-safe: an engine instance
// is used by one thread at a time, and two threads need two instances (flock then
// serialises them like two processes, since each instance has its own open file
// description).
//
// After fork() a child must not use an instance inherited from its parent while the
// parent holds the lock (they share the open file description, so flock would not
// exclude them); open a new instance in the child.
#pragma once

#include <filesystem>

#include "common/durable_io.h"

namespace storh::engines {

class FileLock {
 public:
  // Opens (creating if missing, mode 0644) `path` with `open_flags` (O_RDWR or
  // O_WRONLY). The parent directory must exist. Throws StoreError on failure.
  FileLock(std::filesystem::path path, int open_flags);

  // Blocks until the lock is held (retrying on EINTR); nested calls only count depth.
  void lock();
  // Releases when the depth returns to zero.
  void unlock() noexcept;
  bool held() const noexcept { return depth_ > 0; }
  int fd() const noexcept { return fd_.get(); }
  const std::filesystem::path& path() const noexcept { return path_; }

  // RAII: lock in the constructor, unlock in the destructor.
  class Guard {
   public:
    explicit Guard(FileLock& lock) : lock_(lock) { lock_.lock(); }
    ~Guard() { lock_.unlock(); }
    Guard(const Guard&) = delete;
    Guard& operator=(const Guard&) = delete;

   private:
    FileLock& lock_;
  };

 private:
  std::filesystem::path path_;
  UniqueFd fd_;
  int depth_ = 0;
};

}  // namespace storh::engines
