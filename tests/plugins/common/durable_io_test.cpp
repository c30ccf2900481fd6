// Durable I/O primitives and the re-entrant, cross-process file lock.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>

#include "common/durable_io.h"
#include "common/file_lock.h"
#include "common/store_error.h"
#include "scratch_dir.h"

namespace engines = storh::engines;
namespace fs = std::filesystem;
using storh::test::read_text;
using storh::test::ScratchDir;

TEST_CASE("write_atomic: creates the parent, replaces the content, leaves no temp file",
          "[common]") {
  ScratchDir dir;
  const fs::path target = dir / "a/b/manifest.jsonc";
  engines::write_atomic(target, "one\n");
  engines::write_atomic(target, "two\n");
  CHECK(read_text(target) == "two\n");
  std::size_t files = 0;
  for (const auto& entry : fs::directory_iterator(target.parent_path())) {
    (void)entry;
    ++files;
  }
  CHECK(files == 1);
}

TEST_CASE("write_atomic: a failure names the path and keeps the old content", "[common]") {
  ScratchDir dir;
  const fs::path target = dir / "file";
  engines::write_atomic(target, "old");
  fs::create_directory(dir / "blocker");
  // Renaming a file over a directory fails after the temp file was written.
  REQUIRE_THROWS_WITH(engines::write_atomic(dir / "blocker", "new"),
                      Catch::Contains("rename") && Catch::Contains("blocker"));
  CHECK(read_text(target) == "old");
  std::size_t entries = 0;
  for (const auto& entry : fs::directory_iterator(dir.path())) {
    (void)entry;
    ++entries;
  }
  CHECK(entries == 2);  // file and blocker: the temp file was unlinked
}

TEST_CASE("durable_append and read_file_bytes", "[common]") {
  ScratchDir dir;
  engines::durable_append(dir / "log", "a\n");
  engines::durable_append(dir / "log", "b\n", engines::Sync::none);
  CHECK(engines::read_file_bytes(dir / "log") == "a\nb\n");
  std::string out = "junk";
  CHECK_FALSE(engines::read_file_if_exists(dir / "missing", out));
  CHECK(out.empty());
  CHECK_THROWS_AS(engines::read_file_bytes(dir / "missing"), engines::StoreError);
}

TEST_CASE("random_hex: the requested number of lower-case hex characters", "[common]") {
  for (std::size_t n : {0, 1, 8, 12, 200}) {
    const std::string hex = engines::random_hex(n);
    CHECK(hex.size() == n);
    CHECK(hex.find_first_not_of("0123456789abcdef") == std::string::npos);
  }
  CHECK(engines::random_hex(16) != engines::random_hex(16));
}

TEST_CASE("file lock: re-entrant in one instance, exclusive across processes", "[common]") {
  ScratchDir dir;
  engines::FileLock lock(dir / "write.lock", O_RDWR);
  lock.lock();
  lock.lock();
  lock.unlock();
  CHECK(lock.held());

  // A child process must block until the parent releases: it records when it got in.
  int ready[2];
  REQUIRE(::pipe(ready) == 0);
  const pid_t child = ::fork();
  if (child == 0) {
    engines::FileLock other(dir / "write.lock", O_RDWR);
    other.lock();
    const char got = 'x';
    (void)::write(ready[1], &got, 1);
    _exit(0);
  }
  // While the parent holds the lock the child cannot have written anything.
  ::usleep(100 * 1000);
  ::close(ready[1]);
  int flags = ::fcntl(ready[0], F_GETFL);
  ::fcntl(ready[0], F_SETFL, flags | O_NONBLOCK);
  char got = 0;
  CHECK(::read(ready[0], &got, 1) < 0);
  lock.unlock();
  CHECK_FALSE(lock.held());
  ::fcntl(ready[0], F_SETFL, flags);
  CHECK(::read(ready[0], &got, 1) == 1);
  int status = 0;
  ::waitpid(child, &status, 0);
  CHECK(WIFEXITED(status));
  ::close(ready[0]);
}

TEST_CASE("parse_sync: the durability parameter's two values, and a clear error", "[common]") {
  CHECK(engines::parse_sync("durable") == engines::Sync::durable);
  CHECK(engines::parse_sync("none") == engines::Sync::none);
  CHECK_THROWS_WITH(engines::parse_sync("fsync"),
                    "durability must be \"durable\" or \"none\", not \"fsync\"");
}

TEST_CASE("pread_some and pread_full: short at the end of the file, errors name the path",
          "[common]") {
  using storh::engines::pread_full;
  using storh::engines::pread_some;
  ScratchDir dir;
  const auto path = dir.path() / "bytes";
  storh::engines::write_atomic(path, "0123456789");
  const storh::engines::UniqueFd fd = storh::engines::open_or_throw(path, O_RDONLY);
  char buffer[16] = {};
  CHECK(pread_full(fd.get(), buffer, 4, 3, path) == 4);
  CHECK(std::string(buffer, 4) == "3456");
  CHECK(pread_full(fd.get(), buffer, sizeof buffer, 6, path) == 4);  // the file ends
  CHECK(std::string(buffer, 4) == "6789");
  CHECK(pread_some(fd.get(), buffer, 8, 10, path) == 0);
  CHECK(pread_full(fd.get(), buffer, 0, 0, path) == 0);
  try {
    pread_some(-1, buffer, 1, 0, path);
    FAIL("a read from a closed descriptor must throw");
  } catch (const storh::engines::StoreError& error) {
    CHECK_THAT(error.what(), Catch::Contains("read") && Catch::Contains(path.string()));
  }
  CHECK_THROWS_AS(pread_full(-1, buffer, 1, 0, path), storh::engines::StoreError);
}

TEST_CASE("open_for_reading_at: a read leaves the access time alone, a missing file says ENOENT",
          "[common]") {
  ScratchDir dir;
  const fs::path file = dir / "record.json";
  engines::durable_append(file, "{}\n", engines::Sync::none);
  // An access time older than the modification: a relatime mount updates it on the next
  // plain read, a strictatime mount on every read.
  const struct timespec times[2] = {{1, 0}, {0, UTIME_OMIT}};
  REQUIRE(::utimensat(AT_FDCWD, file.c_str(), times, 0) == 0);

  const engines::UniqueFd dir_fd = engines::open_or_throw(dir.path(), O_RDONLY | O_DIRECTORY);
  for (int read = 0; read < 2; ++read) {
    engines::UniqueFd fd(engines::open_for_reading_at(dir_fd.get(), "record.json"));
    REQUIRE(fd.valid());
    char buffer[8];
    CHECK(::read(fd.get(), buffer, sizeof buffer) == 3);
  }
  std::string bytes;
  CHECK(engines::read_file_if_exists(file, bytes));
  CHECK(bytes == "{}\n");
  struct ::stat info {};
  REQUIRE(::stat(file.c_str(), &info) == 0);
  CHECK(info.st_atim.tv_sec == 1);

  errno = 0;
  CHECK(engines::open_for_reading_at(dir_fd.get(), "missing.json") == -1);
  CHECK(errno == ENOENT);
}
