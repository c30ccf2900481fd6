#include "log/segment_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/store_error.h"

namespace storh::engines::log {

ScanResult scan_segment(const std::filesystem::path& file, bool cut, Sync sync, std::string& buffer,
                        const LineFn& fn) {
  ScanResult result;
  const int raw = ::open(file.c_str(), (cut ? O_RDWR : O_RDONLY) | O_CLOEXEC);
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
  std::uint64_t read_total = 0;
  while (read_total < size) {
    const ssize_t got = ::pread(fd.get(), buffer.data() + read_total, size - read_total,
                                static_cast<off_t>(read_total));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) throw_errno("read", file);
    if (got == 0) break;
    read_total += static_cast<std::uint64_t>(got);
  }
  buffer.resize(read_total);
  result.file_bytes = read_total;

  const char* data = buffer.data();
  std::uint64_t pos = 0;
  while (pos < read_total) {
    const void* lf = std::memchr(data + pos, '\n', read_total - pos);
    if (lf == nullptr) {
      result.clean = false;
      result.bad_status = LineStatus::malformed;
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
  if (sync_ == Sync::durable) {
    for (auto& [fd, path] : files_) {
      // Only a hint that starts writeback early; fdatasync below is the promise.
      (void)::sync_file_range(fd.get(), 0, 0, SYNC_FILE_RANGE_WRITE);
    }
    if (also_fd >= 0) (void)::sync_file_range(also_fd, 0, 0, SYNC_FILE_RANGE_WRITE);
    for (auto& [fd, path] : files_) sync_data(fd.get(), path, sync_);
    if (also_fd >= 0) sync_data(also_fd, also_path, sync_);
  }
  for (auto& [fd, path] : files_) fd.close_or_throw(path);
  files_.clear();
  if (created && sync_ == Sync::durable && !sync_directory(dir, sync_)) {
    throw StoreError("fsync " + dir.string() + ": could not sync the segments directory");
  }
}

}  // namespace storh::engines::log
