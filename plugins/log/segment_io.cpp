#include "log/segment_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <exception>
#include <mutex>
#include <thread>

#include "common/durable_io.h"
#include "common/store_error.h"

namespace storh::engines::log {

ScanResult scan_segment(const std::filesystem::path& file, bool cut, Sync sync, std::string& buffer,
                        const LineFn& fn) {
  ScanResult result;
  const int raw =
      cut ? ::open(file.c_str(), O_RDWR | O_CLOEXEC) : open_for_reading_at(AT_FDCWD, file.c_str());
  if (raw < 0) {
    if (errno == ENOENT) {
      result.missing = true;
      return result;
    }
    throw_errno("open", file);
  }
  UniqueFd fd(raw);
  struct stat info {};
  if (::fstat(fd.get(), &info) != 0) throw_errno("fstat", file);
  const auto size = static_cast<std::uint64_t>(info.st_size);
  buffer.resize(size);
  const std::uint64_t read_total = pread_full(fd.get(), buffer.data(), size, 0, file);
  buffer.resize(read_total);
  result.file_bytes = read_total;

  const char* data = buffer.data();
  std::uint64_t pos = 0;
  while (pos < read_total) {
    const void* lf = std::memchr(data + pos, '\n', read_total - pos);
    if (lf == nullptr) {
      const LineView tail = decode_line(std::string_view(data + pos, read_total - pos));
      if (tail.status != LineStatus::ok) {
        result.clean = false;
        result.bad_status = tail.status;
        break;
      }
      fn(tail, pos, read_total - pos);
      result.open_tail = true;
      pos = read_total;
      break;
    }
    const auto end = static_cast<std::uint64_t>(static_cast<const char*>(lf) - data);
    const LineView view = decode_line(std::string_view(data + pos, end - pos));
    if (view.status != LineStatus::ok) {
      result.clean = false;
      result.bad_status = view.status;
      break;
    }
    fn(view, pos, end + 1 - pos);
    pos = end + 1;
  }
  result.good_bytes = pos;
  if (!result.clean && cut) {
    if (::ftruncate(fd.get(), static_cast<off_t>(pos)) != 0) throw_errno("ftruncate", file);
    sync_file(fd.get(), file, sync);
  }
  return result;
}

namespace {

// fdatasyncs of separate files overlap: the filesystem commits their metadata in
// shared journal transactions and the device sees several requests at once, so a
// compaction's hundreds of new files cost a fraction of syncing them one by one.
constexpr std::size_t kSyncThreads = 8;

}  // namespace

void sync_together(const std::vector<SyncTarget>& targets) {
  std::atomic<std::size_t> next{0};
  std::mutex mutex;
  std::exception_ptr failure;
  auto work = [&]() noexcept {
    for (std::size_t i = next++; i < targets.size(); i = next++) {
      try {
        const SyncTarget& target = targets[i];
        if (target.metadata) {
          sync_file(target.fd, *target.path, Sync::durable);
        } else {
          sync_data(target.fd, *target.path, Sync::durable);
        }
      } catch (...) {
        const std::lock_guard<std::mutex> lock(mutex);
        if (!failure) failure = std::current_exception();
      }
    }
  };
  std::vector<std::thread> helpers;
  const std::size_t wanted = std::min(kSyncThreads, targets.size()) - (targets.empty() ? 0 : 1);
  for (std::size_t i = 0; i < wanted; ++i) {
    try {
      helpers.emplace_back(work);
    } catch (...) {
      break;  // fewer helpers: this thread still syncs whatever is left
    }
  }
  work();
  for (std::thread& helper : helpers) helper.join();
  if (failure) std::rethrow_exception(failure);
}

void SyncBatch::write_file(const std::filesystem::path& path, std::string_view bytes) {
  UniqueFd fd = open_or_throw(path, O_WRONLY | O_CREAT | O_TRUNC);
  write_all(fd.get(), bytes, path);
  files_.emplace_back(std::move(fd), path);
}

void SyncBatch::add(UniqueFd fd, std::filesystem::path path) {
  files_.emplace_back(std::move(fd), std::move(path));
}

void SyncBatch::flush(const std::filesystem::path& dir, int also_fd,
                      const std::filesystem::path& also_path) {
  const bool created = !files_.empty();
  if (syncfs_dir_.valid() && files_.size() >= kFilesystemSyncMinFiles) {
    // Every file here and `also_fd` live in `dir`, on one filesystem: one writeback and
    // one journal commit make them all durable, their directory entries too.
    if (syncfs_fd(syncfs_dir_.get()) != 0) throw_errno("syncfs", dir);
  } else if (sync_ == Sync::durable) {
    std::vector<SyncTarget> targets;
    targets.reserve(files_.size() + 2);
    for (auto& [fd, path] : files_) targets.push_back({fd.get(), &path, false});
    if (also_fd >= 0) targets.push_back({also_fd, &also_path, false});
    // The files exist already, so their directory entries sync alongside their data.
    UniqueFd dir_fd;
    if (created) {
      dir_fd = open_or_throw(dir, O_RDONLY | O_DIRECTORY);
      targets.push_back({dir_fd.get(), &dir, true});
    }
    sync_together(targets);
  }
  for (auto& [fd, path] : files_) fd.close_or_throw(path);
  files_.clear();
}

}  // namespace storh::engines::log
