#include "doc/doc_floors.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "common/bench/answers.h"
#include "common/bench/bench_row.h"
#include "common/canonical_json.h"
#include "common/store_error.h"
#include "common/uuid_v7.h"

namespace storh::engines::doc {
namespace {

// put_floor: the write protocol without an engine. `bytes` holds every record file
// back to back; record i is bytes[offsets[i], offsets[i + 1]) and its id is at offset 7.
void floor_writes(const std::filesystem::path& dir, const std::string& bytes,
                  const std::vector<std::size_t>& offsets, Sync sync) {
  for (std::size_t i = 0; i + 1 < offsets.size(); ++i) {
    const std::string_view body(bytes.data() + offsets[i], offsets[i + 1] - offsets[i]);
    const std::string_view id = body.substr(7, uuid_v7::kTextSize);
    const std::filesystem::path shard = dir / std::string(id.substr(24, 2));
    const std::filesystem::path temp = shard / (".floor." + std::to_string(i) + ".tmp");
    UniqueFd fd = open_or_throw(temp, O_WRONLY | O_CREAT | O_EXCL, 0644);
    write_all(fd.get(), body, temp);
    sync_file(fd.get(), temp, sync);
    fd.close_or_throw(temp);
    const std::filesystem::path target = shard / (std::string(id) + ".jsonc");
    if (::rename(temp.c_str(), target.c_str()) != 0) throw_errno("rename", temp);
    sync_directory(shard, sync);
  }
}

// scan_floor: readdir every shard directory under `dir` and fstatat each entry; returns
// the number of regular files seen.
std::size_t floor_scan(const std::filesystem::path& dir) {
  std::size_t files = 0;
  DIR* shards = ::opendir(dir.c_str());
  if (shards == nullptr) throw_errno("opendir", dir);
  while (const dirent* shard = ::readdir(shards)) {
    if (shard->d_name[0] == '.') continue;
    const int fd = ::openat(::dirfd(shards), shard->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR* entries = fd >= 0 ? ::fdopendir(fd) : nullptr;
    if (entries == nullptr) {
      ::closedir(shards);
      throw_errno("opendir", dir / shard->d_name);
    }
    struct stat info {};
    while (const dirent* entry = ::readdir(entries)) {
      if (entry->d_name[0] == '.') continue;
      if (::fstatat(::dirfd(entries), entry->d_name, &info, 0) == 0 && S_ISREG(info.st_mode)) {
        ++files;
      }
    }
    ::closedir(entries);
  }
  ::closedir(shards);
  return files;
}

}  // namespace

Status measure_floors(RunContext& ctx, const std::filesystem::path& dir, std::uint64_t n,
                      Sync sync) {
  std::string bytes;
  std::vector<std::size_t> offsets{0};
  for (std::uint64_t i = 0; i < n; ++i) {
    const std::string id = uuid_v7::generate(kBenchStartMs + static_cast<std::int64_t>(i));
    bytes += "{\"id\":\"" + id + "\",\"data\":";
    append_compact(bytes, bench_row(i));
    bytes += "}\n";
    offsets.push_back(bytes.size());
    make_directories(dir / id.substr(24, 2));
  }
  STORH_TRY(storh::measure(ctx, "put_floor", n, [&] { floor_writes(dir, bytes, offsets, sync); }));
  std::size_t files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    files += entry.is_regular_file() ? 1 : 0;
  }
  STORH_TRY(bench::expect_count("put_floor", files, offsets.size() - 1));
  return storh::measure(ctx, "scan_floor", n,
                        [&] { return bench::expect_count("scan_floor", floor_scan(dir), n); });
}

}  // namespace storh::engines::doc
