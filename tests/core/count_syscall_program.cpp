// Run under LD_PRELOAD=libstorh_count.so by count_test: makes a known set of calls in
// a scratch directory (argv[1]) and prints the interposer's differences as
// "name value" lines. Exit 2 when the interposer is not loaded.
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "count/count_abi.h"

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  const auto snapshot =
      reinterpret_cast<storh_count_snapshot_fn>(::dlsym(RTLD_DEFAULT, STORH_COUNT_SNAPSHOT_SYMBOL));
  if (snapshot == nullptr) return 2;
  const std::string a = std::string(argv[1]) + "/a";
  const std::string b = std::string(argv[1]) + "/b";
  const std::string c = std::string(argv[1]) + "/c";
  storh_count_snapshot_v1 before{};
  before.struct_size = sizeof before;
  snapshot(&before);

  const int fd = ::open(a.c_str(), O_RDWR | O_CREAT, 0644);  // open 1, create 1
  bool ok = fd >= 0 && ::write(fd, "hello", 5) == 5;         // write 1: 5 bytes
  ok = ok && ::pwrite(fd, "abc", 3, 5) == 3;                 // write 2: 3 bytes
  char de[] = "de", fg[] = "fg";
  const iovec out[] = {{de, 2}, {fg, 2}};
  ok = ok && ::writev(fd, out, 2) == 4;  // write 3: 4 bytes, file "hellodefg"
  ok = ok && ::fsync(fd) == 0 && ::fsync(fd) == 0 && ::fsync(fd) == 0;  // fsync 3
  ok = ok && ::fdatasync(fd) == 0;                                      // fdatasync 1
  ok = ok && ::syncfs(fd) == 0;                                         // syncfs 1
  char buffer[16];
  ok = ok && ::pread(fd, buffer, sizeof buffer, 0) == 9;  // read 1: 9 bytes
  ::lseek(fd, 0, SEEK_SET);
  const iovec in[] = {{buffer, 2}, {buffer + 2, 3}};
  ok = ok && ::readv(fd, in, 2) == 5;  // read 2: 5 bytes
  struct stat info;
  ok = ok && ::fstat(fd, &info) == 0 && ::stat(a.c_str(), &info) == 0 &&
       ::lstat(a.c_str(), &info) == 0 && ::fstatat(AT_FDCWD, a.c_str(), &info, 0) == 0;  // 4
  struct statx extended;
  ok = ok && ::statx(AT_FDCWD, a.c_str(), 0, STATX_SIZE, &extended) == 0;  // stat 5
  ::close(fd);                                                             // close 1
  const int other = ::openat(AT_FDCWD, a.c_str(), O_RDONLY);               // open 2
  ok = ok && other >= 0;
  ::close(other);                                // close 2
  const int created = ::creat(b.c_str(), 0644);  // open 3, create 2
  ok = ok && created >= 0;
  ::close(created);                                    // close 3
  ok = ok && ::rename(b.c_str(), c.c_str()) == 0;      // rename 1
  ok = ok && ::unlink(a.c_str()) == 0;                 // unlink 1
  ok = ok && ::unlinkat(AT_FDCWD, c.c_str(), 0) == 0;  // unlink 2

  const std::string d = std::string(argv[1]) + "/d";
  ok = ok && ::mkdir(d.c_str(), 0755) == 0;                       // mkdir 1
  ok = ok && ::mkdirat(AT_FDCWD, (d + "/e").c_str(), 0755) == 0;  // mkdir 2
  DIR* dir = ::opendir(d.c_str());                                // open 4
  ok = ok && dir != nullptr;
  int entries = 0;
  while (ok && ::readdir(dir) != nullptr) ++entries;  // getdents 4: ".", "..", "e", the end
  ok = ok && entries == 3 && ::closedir(dir) == 0;    // close 4
  // libstdc++'s directory_iterator: openat + fdopendir, readdir, closedir.
  int listed = 0;
  for (const auto& entry : std::filesystem::directory_iterator(d)) {  // open 5
    listed += entry.path().filename() == "e" ? 1 : 0;                 // getdents 8
  }                                                                   // close 5
  ok = ok && listed == 1;
  ok = ok && std::filesystem::remove(d + "/e");  // unlink 3: remove(3)
  void* page = ::mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ok = ok && page != MAP_FAILED && ::munmap(page, 4096) == 0;  // mmap 1, munmap 1

  storh_count_snapshot_v1 after{};
  after.struct_size = sizeof after;
  snapshot(&after);
  if (!ok) return 1;
  std::printf(
      "fsync %llu\nfdatasync %llu\nopens %llu\ncreates %llu\nrenames %llu\n"
      "unlinks %llu\nstats %llu\nread_calls %llu\nread_bytes %llu\n"
      "write_calls %llu\nwrite_bytes %llu\nclose %llu\ngetdents %llu\nmkdir %llu\n"
      "mmap %llu\nmunmap %llu\nsyncfs %llu\n",
      static_cast<unsigned long long>(after.fsync - before.fsync),
      static_cast<unsigned long long>(after.fdatasync - before.fdatasync),
      static_cast<unsigned long long>(after.opens - before.opens),
      static_cast<unsigned long long>(after.creates - before.creates),
      static_cast<unsigned long long>(after.renames - before.renames),
      static_cast<unsigned long long>(after.unlinks - before.unlinks),
      static_cast<unsigned long long>(after.stats - before.stats),
      static_cast<unsigned long long>(after.read_calls - before.read_calls),
      static_cast<unsigned long long>(after.read_bytes - before.read_bytes),
      static_cast<unsigned long long>(after.write_calls - before.write_calls),
      static_cast<unsigned long long>(after.write_bytes - before.write_bytes),
      static_cast<unsigned long long>(after.close - before.close),
      static_cast<unsigned long long>(after.getdents - before.getdents),
      static_cast<unsigned long long>(after.mkdir - before.mkdir),
      static_cast<unsigned long long>(after.mmap - before.mmap),
      static_cast<unsigned long long>(after.munmap - before.munmap),
      static_cast<unsigned long long>(after.syncfs - before.syncfs));
  return 0;
}
