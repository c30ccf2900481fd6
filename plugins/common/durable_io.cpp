#include "common/durable_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <mutex>
#include <span>
#include <system_error>

#include <fmt/format.h>

#include "common/csprng.h"
#include "common/fault_injection.h"
#include "common/hex.h"
#include "common/store_error.h"

namespace storh::engines {
namespace fs = std::filesystem;

Sync parse_sync(std::string_view durability) {
  if (durability == "durable") return Sync::durable;
  if (durability == "none") return Sync::none;
  throw StoreError(
      fmt::format("durability must be \"durable\" or \"none\", not \"{}\"", durability));
}

BulkSync parse_bulk_sync(std::string_view name) {
  if (name == "filesystem") return BulkSync::filesystem;
  if (name == "files") return BulkSync::files;
  throw StoreError(fmt::format("unknown bulk sync \"{}\" (valid: filesystem, files)", name));
}

bool syncs_filesystem(Sync sync, BulkSync bulk_sync, std::size_t files) noexcept {
  return sync == Sync::durable && bulk_sync == BulkSync::filesystem &&
         files >= kFilesystemSyncMinFiles;
}

UniqueFd::~UniqueFd() {
  if (fd_ >= 0) ::close(fd_);
}

UniqueFd& UniqueFd::operator=(UniqueFd&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.release();
  }
  return *this;
}

void UniqueFd::close_or_throw(const fs::path& path) {
  const int fd = release();
  // close(2) must not be retried on EINTR on Linux: the descriptor is gone either way.
  if (fd >= 0 && ::close(fd) != 0 && errno != EINTR) throw_errno("close", path);
}

UniqueFd open_or_throw(const fs::path& path, int flags, unsigned mode) {
  for (;;) {
    const int fd = ::open(path.c_str(), flags | O_CLOEXEC, static_cast<mode_t>(mode));
    if (fd >= 0) return UniqueFd(fd);
    if (errno != EINTR) throw_errno("open", path);
  }
}

namespace {
// Set once an O_NOATIME open was refused where a plain one succeeded: the files are
// someone else's, so asking again would cost a failed open per read. One flag per copy of
// this library (each plugin links its own).
std::atomic<bool> noatime_refused{false};
}  // namespace

int open_for_reading_at(int dir_fd, const char* name) noexcept {
  const auto open_with = [&](int extra) {
    for (;;) {
      const int fd = ::openat(dir_fd, name, O_RDONLY | O_CLOEXEC | extra);
      if (fd >= 0 || errno != EINTR) return fd;
    }
  };
  if (noatime_refused.load(std::memory_order_relaxed)) return open_with(0);
  const int fd = open_with(O_NOATIME);
  if (fd >= 0 || errno != EPERM) return fd;
  // Refused: someone else's file, or EPERM for another reason, which the plain open
  // reports again. Only a plain open that succeeds shows O_NOATIME was the reason.
  const int plain = open_with(0);
  if (plain >= 0) noatime_refused.store(true, std::memory_order_relaxed);
  return plain;
}

namespace {

// A write boundary: 0 to go on, else the errno to fail with, after writing the first half
// of `bytes` for ENOSPC (a disk that filled up mid-write; fault_injection.h).
int write_fault(int fd, std::string_view bytes, const std::uint64_t* offset) noexcept {
  const int error = fault::at_boundary(fault::Boundary::write);
  if (error == ENOSPC && bytes.size() > 1) {
    const std::size_t half = bytes.size() / 2;
    if (offset != nullptr) {
      (void)::pwrite(fd, bytes.data(), half, static_cast<off_t>(*offset));
    } else {
      (void)::write(fd, bytes.data(), half);
    }
  }
  return error;
}

}  // namespace

void write_all(int fd, std::string_view bytes, const fs::path& path) {
  if (const int error = write_fault(fd, bytes, nullptr)) throw_errno("write", path, error);
  while (!bytes.empty()) {
    const ssize_t written = ::write(fd, bytes.data(), bytes.size());
    if (written < 0) {
      if (errno == EINTR) continue;
      throw_errno("write", path);
    }
    if (written == 0) throw_errno("write", path, EIO);
    bytes.remove_prefix(static_cast<std::size_t>(written));
  }
}

void pwrite_all(int fd, std::string_view bytes, std::uint64_t offset, const fs::path& path) {
  if (const int error = write_fault(fd, bytes, &offset)) throw_errno("pwrite", path, error);
  while (!bytes.empty()) {
    const ssize_t written = ::pwrite(fd, bytes.data(), bytes.size(), static_cast<off_t>(offset));
    if (written < 0) {
      if (errno == EINTR) continue;
      throw_errno("pwrite", path);
    }
    if (written == 0) throw_errno("pwrite", path, EIO);
    bytes.remove_prefix(static_cast<std::size_t>(written));
    offset += static_cast<std::uint64_t>(written);
  }
}

void sync_file(int fd, const fs::path& path, Sync sync) {
  if (sync == Sync::none) return;
  if (const int error = fault::at_boundary(fault::Boundary::sync))
    throw_errno("fsync", path, error);
  if (::fsync(fd) != 0) throw_errno("fsync", path);
}

void sync_data(int fd, const fs::path& path, Sync sync) {
  if (sync == Sync::none) return;
  if (const int error = fault::at_boundary(fault::Boundary::sync)) {
    throw_errno("fdatasync", path, error);
  }
  if (::fdatasync(fd) != 0) throw_errno("fdatasync", path);
}

bool sync_directory(const fs::path& dir, Sync sync) noexcept {
  if (sync == Sync::none) return true;
  if (fault::at_boundary(fault::Boundary::dir_sync) != 0) return false;
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = ::fsync(fd) == 0;
  ::close(fd);
  return ok;
}

bool sync_directory_fd(int dir_fd, Sync sync) noexcept {
  if (sync == Sync::none) return true;
  if (fault::at_boundary(fault::Boundary::dir_sync) != 0) return false;
  return ::fsync(dir_fd) == 0;
}

void rename_or_throw(const fs::path& from, const fs::path& to) {
  if (const int error = fault::at_boundary(fault::Boundary::rename)) {
    throw_errno("rename", from, error);
  }
  if (::rename(from.c_str(), to.c_str()) != 0) throw_errno("rename", from);
}

int rename_at(int dir_fd, const char* from, const char* to) noexcept {
  if (const int error = fault::at_boundary(fault::Boundary::rename)) {
    errno = error;
    return -1;
  }
  return ::renameat(dir_fd, from, dir_fd, to);
}

int write_some(int fd, const void* data, std::size_t size) noexcept {
  if (const int error =
          write_fault(fd, std::string_view(static_cast<const char*>(data), size), nullptr)) {
    errno = error;
    return -1;
  }
  return static_cast<int>(::write(fd, data, size));
}

int fsync_fd(int fd) noexcept {
  if (const int error = fault::at_boundary(fault::Boundary::sync)) {
    errno = error;
    return -1;
  }
  return ::fsync(fd);
}

namespace {

// syncfs(2) returns writeback errors since Linux 5.8, and the filesystem's own sync_fs
// errors (a failed journal commit) since 5.17.
bool kernel_syncfs_reports_errors() noexcept {
  static const bool reports = [] {
    utsname name{};
    if (::uname(&name) != 0) return false;
    int major = 0;
    int minor = 0;
    if (std::sscanf(name.release, "%d.%d", &major, &minor) != 2) return false;
    return major > 5 || (major == 5 && minor >= 17);
  }();
  return reports;
}

// Filesystems whose syncfs writes back and commits everything an fsync of each file
// would (magic numbers of linux/magic.h).
bool syncfs_is_durable_on(int fd) noexcept {
  struct statfs info {};
  if (::fstatfs(fd, &info) != 0) return false;
  switch (static_cast<unsigned long>(info.f_type)) {
    case 0xEF53UL:      // ext2/3/4
    case 0x58465342UL:  // xfs
    case 0x9123683EUL:  // btrfs
    case 0x01021994UL:  // tmpfs (nothing to make durable)
      return true;
    default:
      return false;
  }
}

}  // namespace

UniqueFd open_for_syncfs(const fs::path& dir, Sync sync, BulkSync bulk_sync) noexcept {
  if (sync != Sync::durable || bulk_sync != BulkSync::filesystem ||
      !kernel_syncfs_reports_errors()) {
    return UniqueFd();
  }
  UniqueFd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd.valid() && !syncfs_is_durable_on(fd.get())) return UniqueFd();
  return fd;
}

int syncfs_fd(int fd) noexcept {
  if (const int error = fault::at_boundary(fault::Boundary::sync)) {
    errno = error;
    return -1;
  }
  return ::syncfs(fd);
}

void make_directories(const fs::path& dir) {
  std::error_code error;
  fs::create_directories(dir, error);
  if (error) throw_errno("mkdir", dir, error.value());
}

void write_atomic(const fs::path& path, std::string_view bytes, Sync sync) {
  const fs::path dir = path.parent_path().empty() ? fs::path(".") : path.parent_path();
  make_directories(dir);
  const fs::path temp = dir / fmt::format(".{}.{}.tmp", path.filename().string(), random_hex(12));
  try {
    UniqueFd fd = open_or_throw(temp, O_WRONLY | O_CREAT | O_EXCL | O_TRUNC);
    write_all(fd.get(), bytes, temp);
    sync_file(fd.get(), temp, sync);
    fd.close_or_throw(temp);
    rename_or_throw(temp, path);
  } catch (...) {
    ::unlink(temp.c_str());
    throw;
  }
  sync_directory(dir, sync);
}

void durable_append(const fs::path& path, std::string_view bytes, Sync sync) {
  UniqueFd fd = open_or_throw(path, O_WRONLY | O_APPEND | O_CREAT);
  write_all(fd.get(), bytes, path);
  sync_file(fd.get(), path, sync);
  fd.close_or_throw(path);
}

bool read_file_if_exists(const fs::path& path, std::string& out) {
  out.clear();
  const int fd = open_for_reading_at(AT_FDCWD, path.c_str());
  if (fd < 0) {
    if (errno == ENOENT) return false;
    throw_errno("read", path);
  }
  UniqueFd owned(fd);
  struct stat info {};
  if (::fstat(fd, &info) == 0 && info.st_size > 0) {
    out.reserve(static_cast<std::size_t>(info.st_size));
  }
  std::array<char, 65536> buffer{};
  for (;;) {
    const ssize_t got = ::read(fd, buffer.data(), buffer.size());
    if (got < 0) {
      if (errno == EINTR) continue;
      throw_errno("read", path);
    }
    if (got == 0) break;
    out.append(buffer.data(), static_cast<std::size_t>(got));
  }
  return true;
}

std::size_t pread_some(int fd, char* buffer, std::size_t size, std::uint64_t offset,
                       const fs::path& path) {
  for (;;) {
    const ssize_t got = ::pread(fd, buffer, size, static_cast<off_t>(offset));
    if (got >= 0) return static_cast<std::size_t>(got);
    if (errno != EINTR) throw_errno("read", path);
  }
}

std::size_t pread_full(int fd, char* buffer, std::size_t size, std::uint64_t offset,
                       const fs::path& path) {
  std::size_t filled = 0;
  while (filled < size) {
    const std::size_t got = pread_some(fd, buffer + filled, size - filled, offset + filled, path);
    if (got == 0) break;
    filled += got;
  }
  return filled;
}

std::string read_file_bytes(const fs::path& path) {
  std::string out;
  if (!read_file_if_exists(path, out)) throw_errno("read", path, ENOENT);
  return out;
}

std::string random_hex(std::size_t count) {
  static std::mutex lock;
  static Csprng random;  // NOLINT: process-wide generator, guarded by `lock`
  std::string out(count, '0');
  std::array<std::uint8_t, 64> bytes{};
  std::size_t done = 0;
  while (done < count) {
    const std::size_t chunk = std::min((count - done + 1) / 2, bytes.size());
    {
      std::lock_guard guard(lock);
      random.fill(std::span<std::uint8_t>(bytes.data(), chunk));
    }
    for (std::size_t i = 0; i < chunk && done < count; ++i) {
      out[done++] = kLowerHexDigits[bytes[i] >> 4];
      if (done < count) out[done++] = kLowerHexDigits[bytes[i] & 0xf];
    }
  }
  return out;
}

}  // namespace storh::engines

// --- fault_injection.h -----------------------------------------------------------

namespace storh::engines::fault {
namespace detail {

std::atomic<bool> g_armed{false};

namespace {

std::atomic<std::uint64_t> g_crossed{0};
std::atomic<std::uint64_t> g_target{0};  // 0: count only
std::atomic<int> g_error{0};
std::atomic<bool> g_exit{false};
std::atomic<bool> g_fired{false};

}  // namespace

int on_boundary(Boundary) noexcept {
  const std::uint64_t n = g_crossed.fetch_add(1, std::memory_order_acq_rel) + 1;
  if (n != g_target.load(std::memory_order_acquire)) return 0;
  if (g_exit.load(std::memory_order_acquire)) ::_exit(kExitCode);
  g_fired.store(true, std::memory_order_release);
  return g_error.load(std::memory_order_acquire);
}

}  // namespace detail

void count_only() noexcept {
  arm(0, Action::fail, 0);
}

void arm(std::uint64_t n, Action action, int error) noexcept {
  detail::g_armed.store(false, std::memory_order_release);
  detail::g_crossed.store(0, std::memory_order_release);
  detail::g_fired.store(false, std::memory_order_release);
  detail::g_exit.store(action == Action::exit, std::memory_order_release);
  detail::g_error.store(error, std::memory_order_release);
  detail::g_target.store(n, std::memory_order_release);
  detail::g_armed.store(true, std::memory_order_release);
}

void disarm() noexcept {
  detail::g_armed.store(false, std::memory_order_release);
  detail::g_target.store(0, std::memory_order_release);
}

std::uint64_t crossed() noexcept {
  return detail::g_crossed.load(std::memory_order_acquire);
}

bool fired() noexcept {
  return detail::g_fired.load(std::memory_order_acquire);
}

}  // namespace storh::engines::fault
