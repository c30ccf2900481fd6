#include "util/files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>

#include <fmt/format.h>
#include <xxhash.h>

#include "util/shorten.h"
#include "util/text.h"

namespace storh {
namespace {

std::string os_error(std::string_view what, const std::filesystem::path& path) {
  return fmt::format("{}: {}: {}", path.string(), what, std::strerror(errno));
}

// Calls `chunk(data, size)` for each piece of the file, read with read(2) into one
// buffer: no stream and no copy beyond what the caller keeps.
template <typename Chunk>
std::string read_chunks(const std::filesystem::path& path, Chunk&& chunk) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return os_error("cannot open", path);
  std::array<char, 65536> buffer;
  for (;;) {
    const ssize_t got = ::read(fd, buffer.data(), buffer.size());
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      std::string message = os_error("cannot read", path);
      ::close(fd);
      return message;
    }
    if (got == 0) break;
    chunk(buffer.data(), static_cast<std::size_t>(got));
  }
  ::close(fd);
  return {};
}

}  // namespace

bool write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t written = ::write(fd, data.data(), data.size());
    if (written < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data.remove_prefix(static_cast<std::size_t>(written));
  }
  return true;
}

Expected<std::string> read_file(const std::filesystem::path& path) {
  std::string content;
  std::error_code ec;
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (!ec) content.reserve(static_cast<std::size_t>(size));
  std::string error =
      read_chunks(path, [&](const char* data, std::size_t n) { content.append(data, n); });
  if (!error.empty()) return Error{std::move(error)};
  return content;
}

std::string read_trimmed(const std::filesystem::path& path) {
  Expected<std::string> text = read_file(path);
  return text ? std::string(trim(*text)) : std::string();
}

std::string_view file_type_name(unsigned mode) {
  switch (mode & S_IFMT) {
    case S_IFREG:
      return "a regular file";
    case S_IFDIR:
      return "a directory";
    case S_IFCHR:
      return "a character device";
    case S_IFBLK:
      return "a block device";
    case S_IFIFO:
      return "a FIFO";
    case S_IFSOCK:
      return "a socket";
    case S_IFLNK:
      return "a symbolic link";
    default:
      return "not a regular file";
  }
}

Expected<std::string> read_input_file(const std::filesystem::path& path, std::uintmax_t max_bytes) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer before we can refuse it.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return Error{os_error("cannot open", path)};
  struct FdCloser {
    int fd;
    ~FdCloser() { ::close(fd); }
  } closer{fd};
  struct stat info {};
  if (::fstat(fd, &info) != 0) return Error{os_error("cannot stat", path)};
  if (!S_ISREG(info.st_mode)) {
    return Error{fmt::format("{}: cannot read: {}, not a regular file", path.string(),
                             file_type_name(info.st_mode))};
  }
  const auto too_large = [&](std::uintmax_t size) {
    return Error{
        fmt::format("{}: cannot read: {} bytes is more than the {} MiB an input file "
                    "may have",
                    path.string(), size, max_bytes >> 20)};
  };
  if (static_cast<std::uintmax_t>(info.st_size) > max_bytes) {
    return too_large(static_cast<std::uintmax_t>(info.st_size));
  }
  std::string content;
  content.reserve(static_cast<std::size_t>(info.st_size));
  char buffer[1 << 16];
  for (;;) {
    const ssize_t got = ::read(fd, buffer, sizeof buffer);
    if (got < 0) {
      if (errno == EINTR) continue;
      return Error{os_error("cannot read", path)};
    }
    if (got == 0) break;
    content.append(buffer, static_cast<std::size_t>(got));
    // The file may grow while we read it: the limit holds for what we read, too.
    if (content.size() > max_bytes) return too_large(content.size());
  }
  return content;
}

namespace {

std::filesystem::path parent_of(const std::filesystem::path& file) {
  return file.has_parent_path() ? file.parent_path() : ".";
}

// Makes and removes a temporary entry in `dir` (a directory when `as_directory`):
// empty when that worked, else the error.
std::string probe_directory(const std::filesystem::path& dir, bool as_directory) {
  std::string name = (dir / ".storh-probe-XXXXXX").string();
  if (as_directory) {
    if (::mkdtemp(name.data()) == nullptr) return std::strerror(errno);
    ::rmdir(name.c_str());
    return {};
  }
  const int fd = ::mkstemp(name.data());
  if (fd < 0) return std::strerror(errno);
  ::close(fd);
  ::unlink(name.c_str());
  return {};
}

// Whether access(2) says exactly whether a file can be made in `dir`: on the local
// disk filesystems below it does, for root too (a read-only mount is EROFS, an
// immutable directory EPERM). Elsewhere (/proc and /sys, where it says yes to root;
// network and FUSE filesystems, which decide on their side) a real entry is made and
// removed instead. Skipping that entry matters on ext4 without a journal, where each
// new inode is searched for past the recently deleted ones: tenths of a millisecond of
// CPU a run on a machine that runs many.
bool access_is_exact(const std::filesystem::path& dir) {
  struct statfs info {};
  if (::statfs(dir.c_str(), &info) != 0) return false;
  switch (static_cast<unsigned long>(info.f_type)) {
    case 0xEF53UL:      // ext2, ext3, ext4
    case 0x58465342UL:  // xfs
    case 0x9123683EUL:  // btrfs
    case 0x01021994UL:  // tmpfs
    case 0xF2F52010UL:  // f2fs
    case 0x794C7630UL:  // overlayfs
      return true;
    default:
      return false;
  }
}

}  // namespace

std::string check_output_file(const std::filesystem::path& path) {
  const std::string& text = path.native();
  if (text.empty()) return "the output path is empty";
  // The path as messages show it: a NUL visible, a very long path shortened.
  std::string shown = text;
  for (std::size_t at = shown.find('\0'); at != std::string::npos; at = shown.find('\0', at)) {
    shown.replace(at, 1, "\\0");
  }
  shown = shorten(shown, 200);
  if (text.find('\0') != std::string::npos) {
    return fmt::format("{}: cannot write: the path contains a NUL byte", shown);
  }
  for (const std::filesystem::path& part : path) {
    if (part.native().size() > NAME_MAX) {
      return fmt::format(
          "{}: cannot write: the name \"{:.40}...\" is {} bytes long, more than "
          "the {} a file name may have",
          shown, part.string(), part.native().size(), NAME_MAX);
    }
  }
  struct stat info {};
  if (::stat(path.c_str(), &info) == 0) {
    if (!S_ISREG(info.st_mode)) {
      return fmt::format("{}: cannot write the result onto {}", shown,
                         file_type_name(info.st_mode));
    }
  } else if (errno != ENOENT) {
    return fmt::format("{}: cannot write: {}", shown, std::strerror(errno));
  }
  // The directory the temporary file and the rename need, or the nearest one that
  // exists when the rest is to be created.
  std::filesystem::path dir = parent_of(path);
  while (::stat(dir.c_str(), &info) != 0) {
    if (errno != ENOENT) return os_error("cannot write into", dir);
    if (!dir.has_parent_path() || dir.parent_path() == dir) {
      dir = ".";
      if (::stat(dir.c_str(), &info) != 0) return os_error("cannot write into", dir);
      break;
    }
    dir = dir.parent_path();
  }
  if (!S_ISDIR(info.st_mode)) {
    return fmt::format("{}: cannot write: {} is {}, not a directory", shown, dir.string(),
                       file_type_name(info.st_mode));
  }
  if (::access(dir.c_str(), W_OK | X_OK) != 0) {
    return fmt::format("{}: cannot write into {}: {}", shown, dir.string(), std::strerror(errno));
  }
  if (!access_is_exact(dir)) {
    if (std::string refused = probe_directory(dir, dir != parent_of(path)); !refused.empty()) {
      return fmt::format("{}: cannot write into {}: {}", shown, dir.string(), refused);
    }
  }
  return {};
}

std::filesystem::path directory_to_create(const std::filesystem::path& file) {
  std::filesystem::path missing;
  std::error_code ec;
  for (std::filesystem::path dir = file.parent_path(); !dir.empty() && dir != dir.parent_path();
       dir = dir.parent_path()) {
    if (std::filesystem::exists(dir, ec)) break;
    missing = dir;
  }
  return missing;
}

Expected<std::string> file_hash(const std::filesystem::path& path) {
  // Streamed: a plugin or executable is hashed on every run, and need not be held.
  const std::unique_ptr<XXH3_state_t, decltype(&XXH3_freeState)> state(XXH3_createState(),
                                                                       &XXH3_freeState);
  if (!state || XXH3_64bits_reset(state.get()) == XXH_ERROR) {
    return Error{fmt::format("{}: cannot hash: out of memory", path.string())};
  }
  std::string error = read_chunks(
      path, [&](const char* data, std::size_t n) { XXH3_64bits_update(state.get(), data, n); });
  if (!error.empty()) return Error{std::move(error)};
  return fmt::format("{:016x}", XXH3_64bits_digest(state.get()));
}

std::string write_file_atomically(const std::filesystem::path& path, std::string_view content) {
  std::error_code ec;
  const std::filesystem::path dir = path.has_parent_path() ? path.parent_path() : ".";
  std::filesystem::create_directories(dir, ec);
  if (ec) return fmt::format("{}: cannot create directory: {}", dir.string(), ec.message());

  // The rename would replace a device or FIFO with a regular file (as root, /dev/null).
  struct stat target {};
  if (::stat(path.c_str(), &target) == 0 && !S_ISREG(target.st_mode)) {
    return fmt::format("{}: cannot write onto {}", path.string(), file_type_name(target.st_mode));
  }
  const std::filesystem::path temp =
      dir / fmt::format(".{}.tmp-{}", path.filename().string(), ::getpid());
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return os_error("cannot create", temp);
  if (!write_all(fd, content) || ::fsync(fd) != 0) {
    std::string message = os_error("cannot write", temp);
    ::close(fd);
    ::unlink(temp.c_str());
    return message;
  }
  ::close(fd);
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    std::string message = os_error("cannot rename temporary file onto", path);
    ::unlink(temp.c_str());
    return message;
  }
  const int dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd >= 0) {
    ::fsync(dir_fd);
    ::close(dir_fd);
  }
  return {};
}

}  // namespace storh
