#include "common/durable_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <mutex>
#include <span>
#include <system_error>

#include <fmt/format.h>

#include "common/csprng.h"
#include "common/store_error.h"

namespace storh::engines {
namespace fs = std::filesystem;

Sync parse_sync(std::string_view durability) {
  if (durability == "durable") return Sync::durable;
  if (durability == "none") return Sync::none;
  throw StoreError(
      fmt::format("durability must be \"durable\" or \"none\", not \"{}\"", durability));
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

void write_all(int fd, std::string_view bytes, const fs::path& path) {
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
  if (::fsync(fd) != 0) throw_errno("fsync", path);
}

void sync_data(int fd, const fs::path& path, Sync sync) {
  if (sync == Sync::none) return;
  if (::fdatasync(fd) != 0) throw_errno("fdatasync", path);
}

bool sync_directory(const fs::path& dir, Sync sync) noexcept {
  if (sync == Sync::none) return true;
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = ::fsync(fd) == 0;
  ::close(fd);
  return ok;
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
    if (::rename(temp.c_str(), path.c_str()) != 0) throw_errno("rename", temp);
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
  int fd = -1;
  do {
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  } while (fd < 0 && errno == EINTR);
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

std::string read_file_bytes(const fs::path& path) {
  std::string out;
  if (!read_file_if_exists(path, out)) throw_errno("read", path, ENOENT);
  return out;
}

std::string random_hex(std::size_t count) {
  static constexpr char kHexDigits[] = "0123456789abcdef";
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
      out[done++] = kHexDigits[bytes[i] >> 4];
      if (done < count) out[done++] = kHexDigits[bytes[i] & 0xf];
    }
  }
  return out;
}

}  // namespace storh::engines
