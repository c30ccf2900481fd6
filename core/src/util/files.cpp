#include "util/files.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <xxhash.h>

namespace storh {
namespace {

std::string os_error(std::string_view what, const std::filesystem::path& path) {
  return fmt::format("{}: {}: {}", path.string(), what, std::strerror(errno));
}

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

}  // namespace

Expected<std::string> read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{os_error("cannot open", path)};
  std::ostringstream content;
  content << in.rdbuf();
  if (in.bad()) return Error{os_error("cannot read", path)};
  return content.str();
}

Expected<std::string> file_hash(const std::filesystem::path& path) {
  Expected<std::string> content = read_file(path);
  if (!content) return Error{content.error()};
  return fmt::format("{:016x}", XXH3_64bits(content->data(), content->size()));
}

std::string write_file_atomically(const std::filesystem::path& path, std::string_view content) {
  std::error_code ec;
  const std::filesystem::path dir = path.has_parent_path() ? path.parent_path() : ".";
  std::filesystem::create_directories(dir, ec);
  if (ec) return fmt::format("{}: cannot create directory: {}", dir.string(), ec.message());

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
