#include "doc/index_bucket_cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "common/durable_io.h"
#include "common/store_error.h"
#include "doc/index_files.h"

namespace storh::engines::doc {

const BucketCache::Entry* BucketCache::current(const std::string& path, bool& exists) {
  struct stat info {};
  exists = ::stat(path.c_str(), &info) == 0;
  if (!exists && errno != ENOENT && errno != ENOTDIR) throw_errno("stat", path);
  const auto found = entries_.find(path);
  if (found == entries_.end()) return nullptr;
  if (exists && found->second.stamp == stamp_of(info)) return &found->second;
  entries_.erase(found);
  return nullptr;
}

std::optional<std::int64_t> BucketCache::count(const std::string& path) {
  bool exists = false;
  if (const Entry* entry = current(path, exists)) return entry->count;
  if (!exists) return std::nullopt;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT || errno == ENOTDIR) return std::nullopt;
    throw_errno("open", path);
  }
  UniqueFd owned(fd);
  struct stat info {};
  if (::fstat(fd, &info) != 0) throw_errno("fstat", path);
  const std::int64_t counted = read_bucket_count(fd, path);
  if (static_cast<std::size_t>(info.st_size) <= kMaxCachedBytes) {
    entries_[path] = Entry{stamp_of(info), counted, nullptr};
  }
  return counted;
}

void BucketCache::remember_count(const std::string& path, const FileStamp& stamp,
                                 std::int64_t count) {
  if (stamp.size < 0 || static_cast<std::size_t>(stamp.size) > kMaxCachedBytes) return;
  entries_[path] = Entry{stamp, count, nullptr};
}

std::optional<std::vector<std::string>> BucketCache::head_ids(const std::string& path,
                                                              std::size_t limit) {
  // A bucket head: {"field":...,"key":...,"value":...,"count":N,"ids":[ then 39 bytes
  // per id ("<36>",). The margin covers the header and a long value.
  constexpr std::size_t kHeader = 1024;
  constexpr std::size_t kPerId = 40;
  if (limit == 0 || limit > (kMaxCachedBytes - kHeader) / kPerId) return std::nullopt;
  const auto found = entries_.find(path);
  if (found != entries_.end() && found->second.text) return std::nullopt;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT || errno == ENOTDIR) return std::nullopt;
    throw_errno("open", path);
  }
  UniqueFd owned(fd);
  std::string head(kHeader + limit * kPerId, '\0');
  head.resize(pread_full(fd, head.data(), head.size(), 0, path));
  return bucket_ids_from_head(head, limit);
}

std::shared_ptr<const std::string> BucketCache::text(const std::string& path) {
  bool exists = false;
  if (const Entry* entry = current(path, exists); entry != nullptr && entry->text) {
    return entry->text;
  }
  if (!exists) return nullptr;
  auto bytes = std::make_shared<std::string>();
  struct stat info {};
  if (!read_file_at(AT_FDCWD, path, *bytes, info, path)) {
    entries_.erase(path);
    return nullptr;
  }
  if (bytes->size() <= kMaxCachedBytes) {
    std::int64_t count = 0;
    if (!parse_bucket_count(*bytes, count)) throw StoreError("Malformed index file " + path);
    entries_[path] = Entry{stamp_of(info), count, bytes};
  }
  return bytes;
}

}  // namespace storh::engines::doc
