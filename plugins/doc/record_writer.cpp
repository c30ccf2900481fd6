#include "doc/record_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "common/hex.h"
#include "common/store_error.h"
#include "doc/record_file.h"

namespace storh::engines::doc {
namespace fs = std::filesystem;
namespace {

WriteStepHook g_step_hook = nullptr;

void step(WriteStep at) {
  if (g_step_hook != nullptr) g_step_hook(at);
}

std::uint32_t shard_key(std::string_view shard) noexcept {
  std::uint32_t key = 0;
  for (char c : shard) key = (key << 8) | static_cast<unsigned char>(c);
  return key | (static_cast<std::uint32_t>(shard.size()) << 24);
}

[[noreturn]] void write_failed(const fs::path& path, int err) {
  throw StoreError(
      fmt::format("Could not write storage file {}: {}", path.string(), std::strerror(err)));
}

// One temp file in flight: unlinked on destruction unless committed.
struct TempFile {
  int dir_fd = -1;
  std::string name;
  UniqueFd fd;
  bool renamed = false;

  TempFile() = default;
  TempFile(TempFile&&) noexcept = default;
  TempFile& operator=(TempFile&&) noexcept = default;
  ~TempFile() {
    if (!renamed && dir_fd >= 0 && !name.empty()) {
      fd = UniqueFd();
      ::unlinkat(dir_fd, name.c_str(), 0);
    }
  }
};

void write_bytes(int fd, std::string_view bytes, const fs::path& where) {
  while (!bytes.empty()) {
    const ssize_t written = write_some(fd, bytes.data(), bytes.size());
    if (written < 0) {
      if (errno == EINTR) continue;
      write_failed(where, errno);
    }
    if (written == 0) write_failed(where, EIO);
    bytes.remove_prefix(static_cast<std::size_t>(written));
  }
}

}  // namespace

void set_write_step_hook(WriteStepHook hook) noexcept {
  g_step_hook = hook;
}

FileStamp stamp_of(const struct stat& info) noexcept {
  return FileStamp{
      static_cast<std::int64_t>(info.st_mtim.tv_sec) * 1'000'000'000 + info.st_mtim.tv_nsec,
      static_cast<std::int64_t>(info.st_size), static_cast<std::uint64_t>(info.st_ino)};
}

ShardDirs::ShardDirs(fs::path data_dir) : data_dir_(std::move(data_dir)) {}

fs::path ShardDirs::shard_path(std::string_view shard) const {
  return data_dir_ / shard;
}

std::optional<std::size_t> ShardDirs::hex_index(std::string_view shard) noexcept {
  if (shard.size() != 2) return std::nullopt;
  const unsigned high = lower_hex_digit(shard[0]);
  const unsigned low = lower_hex_digit(shard[1]);
  if (high == kNotHex || low == kNotHex) return std::nullopt;
  return std::size_t{high} * 16 + low;
}

int ShardDirs::get(std::string_view shard, bool create) {
  const std::optional<std::size_t> hex = hex_index(shard);
  if (hex && hex_fds_[*hex].valid()) return hex_fds_[*hex].get();
  if (!hex) {
    if (const auto found = other_fds_.find(shard_key(shard)); found != other_fds_.end()) {
      return found->second.get();
    }
  }
  const fs::path path = shard_path(shard);
  int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT && create) {
    create_directories(path);
    if (on_made_) on_made_(shard);
    fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  }
  if (fd < 0) {
    if (errno == ENOENT && !create) return -1;
    throw_errno("open directory", path);
  }
  if (hex) {
    hex_fds_[*hex] = UniqueFd(fd);
  } else {
    other_fds_.emplace(shard_key(shard), UniqueFd(fd));
  }
  return fd;
}

void ShardDirs::forget(std::string_view shard) {
  if (const std::optional<std::size_t> hex = hex_index(shard)) {
    hex_fds_[*hex] = UniqueFd();
  } else {
    other_fds_.erase(shard_key(shard));
  }
}

void ShardDirs::clear() {
  for (UniqueFd& fd : hex_fds_) fd = UniqueFd();
  other_fds_.clear();
}

int ShardDirs::at_name(std::string_view shard, const std::string& name, FunctionRef<int(int)> op) {
  int dir = get(shard, false);
  if (dir < 0) return ENOENT;
  const int err = op(dir);
  struct stat info {};
  if (err != ENOENT || ::stat((shard_path(shard) / name).c_str(), &info) != 0) return err;
  forget(shard);
  dir = get(shard, false);
  return dir >= 0 ? op(dir) : ENOENT;
}

bool read_file_at(int dir_fd, const std::string& name, std::string& bytes, struct stat& info,
                  const fs::path& where) {
  return read_file_at(dir_fd, name, bytes, info, [&] { return where; });
}

bool read_file_at(int dir_fd, const std::string& name, std::string& bytes, struct stat& info,
                  FunctionRef<fs::path()> where) {
  const int raw = open_for_reading_at(dir_fd, name.c_str());
  if (raw < 0) {
    if (errno == ENOENT) return false;
    throw_errno("open", where());
  }
  UniqueFd fd(raw);
  if (::fstat(fd.get(), &info) != 0) throw_errno("fstat", where());
  bytes.resize(static_cast<std::size_t>(info.st_size));
  std::size_t have = 0;
  for (;;) {
    if (have == bytes.size()) bytes.resize(bytes.size() + 4096);  // grew since fstat
    const ssize_t got = ::read(fd.get(), bytes.data() + have, bytes.size() - have);
    if (got < 0) {
      if (errno == EINTR) continue;
      throw_errno("read", where());
    }
    if (got == 0) break;
    have += static_cast<std::size_t>(got);
    if (have == static_cast<std::size_t>(info.st_size)) {
      // The usual case: exactly the size fstat saw. One more read confirms EOF only if
      // the file grew, which a rename-only writer never does; skip it.
      break;
    }
  }
  bytes.resize(have);
  return true;
}

RecordWriter::RecordWriter(ShardDirs& dirs, std::string prefix, Sync sync, BulkSync bulk_sync)
    : dirs_(dirs), prefix_(std::move(prefix)), sync_(sync), bulk_sync_(bulk_sync) {}

std::string RecordWriter::temp_name() {
  return fmt::format(".{}.{}.tmp", prefix_, ++counter_);
}

FileStamp RecordWriter::write(std::string_view id, std::string_view bytes) {
  BatchItem item{id, bytes, {}};
  write_batch(std::span<BatchItem>(&item, 1));
  return item.stamp;
}

void RecordWriter::write_batch(std::span<BatchItem> items) {
  if (items.empty()) return;
  // Opened before the first temp file, so the syncfs calls through it report every
  // writeback error of the batch. data/ itself (it may be a link to another filesystem),
  // or the collection's directory before the first write has made data/.
  UniqueFd whole_filesystem;
  if (syncs_filesystem(sync_, bulk_sync_, items.size())) {
    whole_filesystem = open_for_syncfs(dirs_.data_dir(), sync_, bulk_sync_);
    if (!whole_filesystem.valid() && !fs::exists(dirs_.data_dir())) {
      whole_filesystem = open_for_syncfs(dirs_.data_dir().parent_path(), sync_, bulk_sync_);
    }
  }
  const bool each_file = sync_ == Sync::durable && !whole_filesystem.valid();
  std::vector<TempFile> temps(items.size());
  std::vector<int> touched;
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::string_view shard = shard_of(items[i].id);
    TempFile& temp = temps[i];
    temp.name = temp_name();
    temp.dir_fd = dirs_.get(shard, true);
    int raw =
        ::openat(temp.dir_fd, temp.name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (raw < 0 && errno == ENOENT) {
      // The cached directory was removed behind us: reopen (recreating) it once.
      temp.dir_fd = -1;
      dirs_.forget(shard);
      temp.dir_fd = dirs_.get(shard, true);
      raw = ::openat(temp.dir_fd, temp.name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    }
    if (raw < 0) write_failed(dirs_.shard_path(shard) / temp.name, errno);
    temp.fd = UniqueFd(raw);
    step(WriteStep::temp_created);
    write_bytes(raw, items[i].bytes, dirs_.shard_path(shard) / temp.name);
    step(WriteStep::temp_written);
    if (each_file && items.size() > 1) {
      ::sync_file_range(raw, 0, 0, SYNC_FILE_RANGE_WRITE);  // start writeback early
    }
    // Only the per-file path syncs directories; a syncfs covers them all.
    if (each_file && std::find(touched.begin(), touched.end(), temp.dir_fd) == touched.end()) {
      touched.push_back(temp.dir_fd);
    }
  }
  // One syncfs writes back every temp file of the batch and commits their inodes in one
  // journal transaction; it reports a writeback error of any file on the filesystem
  // since these were opened, so the batch fails then even when the error was not ours.
  if (whole_filesystem.valid() && syncfs_fd(whole_filesystem.get()) != 0) {
    write_failed(dirs_.data_dir(), errno);
  }
  for (std::size_t i = 0; i < items.size(); ++i) {
    TempFile& temp = temps[i];
    const int fd = temp.fd.get();
    if (each_file && fsync_fd(fd) != 0) {
      write_failed(dirs_.shard_path(shard_of(items[i].id)) / temp.name, errno);
    }
    struct stat info {};
    if (::fstat(fd, &info) != 0) {
      write_failed(dirs_.shard_path(shard_of(items[i].id)) / temp.name, errno);
    }
    items[i].stamp = stamp_of(info);
    if (::close(temp.fd.release()) != 0) {
      write_failed(dirs_.shard_path(shard_of(items[i].id)) / temp.name, errno);
    }
    step(WriteStep::temp_synced);
  }
  for (std::size_t i = 0; i < items.size(); ++i) {
    TempFile& temp = temps[i];
    const std::string target = record_file_name(items[i].id);
    if (rename_at(temp.dir_fd, temp.name.c_str(), target.c_str()) != 0) {
      write_failed(dirs_.shard_path(shard_of(items[i].id)) / target, errno);
    }
    temp.renamed = true;
    step(WriteStep::renamed);
  }
  // Errors of the directory fsync are ignored, as in storh (section 1.5); so are the
  // second syncfs's, which stands in for them (the records' bytes were durable before
  // their renames).
  if (whole_filesystem.valid()) {
    syncfs_fd(whole_filesystem.get());
  } else if (each_file) {
    for (int dir_fd : touched) sync_directory_fd(dir_fd, sync_);
  }
  step(WriteStep::directory_synced);
}

}  // namespace storh::engines::doc
