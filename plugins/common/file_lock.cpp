#include "common/file_lock.h"

#include <fcntl.h>
#include <sys/file.h>

#include <cerrno>
#include <utility>

#include "common/store_error.h"

namespace storh::engines {

FileLock::FileLock(std::filesystem::path path, int open_flags)
    : path_(std::move(path)), fd_(open_or_throw(path_, open_flags | O_CREAT)) {}

void FileLock::lock() {
  if (depth_ > 0) {
    ++depth_;
    return;
  }
  while (::flock(fd_.get(), LOCK_EX) != 0) {
    if (errno != EINTR) throw_errno("flock", path_);
  }
  depth_ = 1;
}

void FileLock::unlock() noexcept {
  if (depth_ == 0) return;
  if (--depth_ == 0) ::flock(fd_.get(), LOCK_UN);
}

}  // namespace storh::engines
