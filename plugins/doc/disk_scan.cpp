#include "doc/disk_scan.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include "common/durable_io.h"

namespace storh::engines::doc {
namespace fs = std::filesystem;
namespace {

// readdir over a descriptor; closes it.
class DirReader {
 public:
  explicit DirReader(int fd) : dir_(fd >= 0 ? ::fdopendir(fd) : nullptr) {
    if (dir_ == nullptr && fd >= 0) ::close(fd);
  }
  ~DirReader() {
    if (dir_ != nullptr) ::closedir(dir_);
  }
  DirReader(const DirReader&) = delete;
  DirReader& operator=(const DirReader&) = delete;
  bool ok() const noexcept { return dir_ != nullptr; }
  int fd() const noexcept { return ::dirfd(dir_); }
  const dirent* next() noexcept { return ::readdir(dir_); }

 private:
  DIR* dir_;
};

bool is_dot(std::string_view name) noexcept {
  return name == "." || name == "..";
}

bool is_directory(int parent_fd, const dirent* entry) noexcept {
  if (entry->d_type == DT_DIR) return true;
  if (entry->d_type != DT_UNKNOWN) return false;
  struct stat info {};
  return ::fstatat(parent_fd, entry->d_name, &info, AT_SYMLINK_NOFOLLOW) == 0 &&
         S_ISDIR(info.st_mode);
}

void walk(const fs::path& dir, DiskListing& listing) {
  DirReader reader(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!reader.ok()) return;
  const std::size_t dir_index = listing.dirs.size();
  listing.dirs.push_back(dir);
  std::vector<std::string> subdirs;
  while (const dirent* entry = reader.next()) {
    const std::string_view name = entry->d_name;
    if (is_dot(name)) continue;
    if (is_directory(reader.fd(), entry)) {
      subdirs.emplace_back(name);
    } else if (is_record_file_name(name)) {
      listing.files.push_back({std::string(id_of_file_name(name)), dir_index});
    }
  }
  for (const std::string& sub : subdirs) walk(dir / sub, listing);
}

// Compares one shard directory's files with the cache; counts the files seen.
bool shard_matches(int data_fd, std::string_view shard, RecordCache& cache, bool check_hash,
                   std::size_t& seen) {
  DirReader reader(
      ::openat(data_fd, std::string(shard).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!reader.ok()) return false;
  std::string bytes;
  while (const dirent* entry = reader.next()) {
    const std::string_view name = entry->d_name;
    if (is_dot(name)) continue;
    if (entry->d_type == DT_DIR) return false;  // nothing nests below a shard
    if (!is_record_file_name(name)) continue;
    const std::string_view id = id_of_file_name(name);
    if (id.size() < 26 || shard_of(id) != shard) return false;
    CachedRecord* record = cache.find(id);
    if (record == nullptr || record->stamp.size < 0) return false;
    struct stat info {};
    if (::fstatat(reader.fd(), entry->d_name, &info, 0) != 0) return false;
    if (!(stamp_of(info) == record->stamp)) return false;
    if (check_hash) {
      if (!record->has_hash) return false;
      try {
        if (!read_file_at(reader.fd(), entry->d_name, bytes, info, fs::path()) ||
            !(hash_bytes(bytes) == record->hash)) {
          return false;
        }
      } catch (const std::exception&) {
        return false;
      }
    }
    ++seen;
  }
  return true;
}

}  // namespace

fs::path DiskListing::path_of(const File& file) const {
  return dirs[file.dir] / (file.id + std::string(kRecordExtension));
}

DiskListing list_record_files(const fs::path& data_dir) {
  DiskListing listing;
  walk(data_dir, listing);
  std::stable_sort(
      listing.files.begin(), listing.files.end(),
      [](const DiskListing::File& a, const DiskListing::File& b) { return a.id < b.id; });
  // A basename seen twice (in two directories): keep the last one seen, as storh's
  // map keyed by basename does.
  auto last = std::unique(
      listing.files.rbegin(), listing.files.rend(),
      [](const DiskListing::File& a, const DiskListing::File& b) { return a.id == b.id; });
  listing.files.erase(listing.files.begin(), last.base());
  return listing;
}

bool cache_matches_disk(const fs::path& data_dir, RecordCache& cache, bool check_hash) {
  DirReader data(::open(data_dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!data.ok()) return cache.size() == 0;
  std::size_t seen = 0;
  std::vector<std::string> shards;
  while (const dirent* entry = data.next()) {
    const std::string_view name = entry->d_name;
    if (is_dot(name)) continue;
    if (is_directory(data.fd(), entry)) {
      shards.emplace_back(name);
    } else if (is_record_file_name(name)) {
      return false;  // a record outside its shard
    }
  }
  for (const std::string& shard : shards) {
    if (!shard_matches(data.fd(), shard, cache, check_hash, seen)) return false;
  }
  return seen == cache.size();
}

}  // namespace storh::engines::doc
