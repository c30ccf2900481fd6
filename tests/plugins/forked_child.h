// forked_child.h: runs code in a forked child and brings back the bytes it made, for
// tests of what a child process draws. Catch2 does not run in the child: it reports
// through a pipe and leaves with _exit.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace storh::test {

inline bool write_all(int fd, const void* data, std::size_t size) {
  const auto* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t done = ::write(fd, p, size);
    if (done <= 0) return false;
    p += done;
    size -= static_cast<std::size_t>(done);
  }
  return true;
}

inline bool read_all(int fd, void* data, std::size_t size) {
  auto* p = static_cast<char*>(data);
  while (size > 0) {
    const ssize_t done = ::read(fd, p, size);
    if (done <= 0) return false;
    p += done;
    size -= static_cast<std::size_t>(done);
  }
  return true;
}

// Forks; the child returns make() (a std::vector<std::uint8_t> of `size` bytes) through
// a pipe. nullopt when the pipe or fork failed, make() threw, the child sent fewer
// bytes or did not exit with 0.
template <class Make>
std::optional<std::vector<std::uint8_t>> bytes_from_forked_child(std::size_t size, Make make) {
  int fds[2];
  if (::pipe(fds) != 0) return std::nullopt;
  const pid_t child = ::fork();
  if (child < 0) return std::nullopt;
  if (child == 0) {
    try {
      const std::vector<std::uint8_t> bytes = make();
      ::_exit(bytes.size() == size && write_all(fds[1], bytes.data(), bytes.size()) ? 0 : 1);
    } catch (...) {
      ::_exit(2);
    }
  }
  ::close(fds[1]);
  std::vector<std::uint8_t> bytes(size);
  const bool received = read_all(fds[0], bytes.data(), bytes.size());
  ::close(fds[0]);
  int status = 0;
  const bool exited =
      ::waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  if (!received || !exited) return std::nullopt;
  return bytes;
}

}  // namespace storh::test
