#include "doc/index_bucket_cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "common/durable_io.h"
#include "common/store_error.h"
#include "doc/index_files.h"

namespace storh::engines::doc {

BucketCache::Entry* BucketCache::current(const std::string& path, bool& exists,
                                         const IndexWatchTicks& watch) {
  const auto found = entries_.find(path);
  if (found != entries_.end() && watch.vouches(found->second.seen)) {
    exists = found->second.exists;
    return exists ? &found->second : nullptr;
  }
  struct stat info {};
  exists = ::stat(path.c_str(), &info) == 0;
  if (!exists && errno != ENOENT && errno != ENOTDIR) throw_errno("stat", path);
  if (found != entries_.end()) {
    if (exists && found->second.exists && found->second.stamp == stamp_of(info)) {
      found->second.seen = watch.now;
      return &found->second;
    }
    drop(found);
  }
  if (!exists) keep_missing(path, watch);
  return nullptr;
}

void BucketCache::drop(Entries::iterator it) {
  if (!it->second.exists) --missing_;
  entries_.erase(it);
}

void BucketCache::forget(const std::string& path) {
  if (const auto found = entries_.find(path); found != entries_.end()) drop(found);
}

void BucketCache::keep_missing(const std::string& path, const IndexWatchTicks& watch) {
  if (watch.since == 0) return;
  if (missing_ >= kMaxMissing) {
    std::erase_if(entries_, [](const auto& entry) { return !entry.second.exists; });
    missing_ = 0;
  }
  forget(path);
  Entry entry;
  entry.exists = false;
  entry.seen = watch.now;
  entries_[path] = std::move(entry);
  ++missing_;
}

void BucketCache::remember_written(const std::string& path, std::shared_ptr<const std::string> text,
                                   std::int64_t count) {
  forget(path);
  const IndexWatchTicks watch = ticks();
  if (watch.since == 0 || !text || text->size() > kMaxCachedBytes) return;
  Entry entry;
  entry.count = count;
  entry.text = std::move(text);
  entry.seen = watch.now;
  entries_[path] = std::move(entry);
}

void BucketCache::remember_missing(const std::string& path) {
  keep_missing(path, ticks());
}

void BucketCache::revalidate() {
  const IndexWatchTicks watch = ticks();
  if (watch.since == 0) return;
  for (auto it = entries_.begin(); it != entries_.end();) {
    Entry& entry = it->second;
    struct stat info {};
    if (!watch.vouches(entry.seen)) {
      const bool exists = ::stat(it->first.c_str(), &info) == 0;
      if (exists != entry.exists || (exists && stamp_of(info) != entry.stamp)) {
        const auto stale = it++;
        drop(stale);
        continue;
      }
      entry.seen = watch.now;
    }
    ++it;
  }
}

std::optional<std::int64_t> BucketCache::count(const std::string& path) {
  const IndexWatchTicks watch = ticks();
  bool exists = false;
  if (const Entry* entry = current(path, exists, watch)) return entry->count;
  if (!exists) return std::nullopt;
  const int fd = open_for_reading_at(AT_FDCWD, path.c_str());
  if (fd < 0) {
    if (errno == ENOENT || errno == ENOTDIR) return std::nullopt;
    throw_errno("open", path);
  }
  UniqueFd owned(fd);
  struct stat info {};
  if (::fstat(fd, &info) != 0) throw_errno("fstat", path);
  const std::int64_t counted = read_bucket_count(fd, path);
  if (static_cast<std::size_t>(info.st_size) <= kMaxCachedBytes) {
    entries_[path] = Entry{stamp_of(info), counted, nullptr, true, watch.now};
  }
  return counted;
}

void BucketCache::remember_count(const std::string& path, const FileStamp& stamp,
                                 std::int64_t count) {
  if (stamp.size < 0 || static_cast<std::size_t>(stamp.size) > kMaxCachedBytes) return;
  forget(path);
  entries_[path] = Entry{stamp, count, nullptr, true, 0};  // NOTIFY: stat-checked once
}

std::optional<std::vector<std::string>> BucketCache::head_ids(const std::string& path,
                                                              std::size_t limit) {
  // A bucket head: {"field":...,"key":...,"value":...,"count":N,"ids":[ then 39 bytes
  // per id ("<36>",). The margin covers the header and a long value.
  constexpr std::size_t kHeader = 1024;
  constexpr std::size_t kPerId = 40;
  if (limit == 0 || limit > (kMaxCachedBytes - kHeader) / kPerId) return std::nullopt;
  const auto found = entries_.find(path);
  if (found != entries_.end() && (found->second.text || !found->second.exists)) {
    return std::nullopt;  // text() answers from the cache (or stat-checks the entry)
  }
  const int fd = open_for_reading_at(AT_FDCWD, path.c_str());
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
  const IndexWatchTicks watch = ticks();
  bool exists = false;
  if (const Entry* entry = current(path, exists, watch); entry != nullptr && entry->text) {
    return entry->text;
  }
  if (!exists) return nullptr;
  auto bytes = std::make_shared<std::string>();
  struct stat info {};
  if (!read_file_at(AT_FDCWD, path, *bytes, info, path)) {
    forget(path);
    return nullptr;
  }
  if (bytes->size() <= kMaxCachedBytes) {
    std::int64_t count = 0;
    if (!parse_bucket_count(*bytes, count)) throw StoreError("Malformed index file " + path);
    forget(path);
    entries_[path] = Entry{stamp_of(info), count, bytes, true, watch.now};
  }
  return bytes;
}

}  // namespace storh::engines::doc
