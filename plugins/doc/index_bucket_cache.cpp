#include "doc/index_bucket_cache.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <cerrno>

#include "common/store_error.h"
#include "doc/index_files.h"

namespace storh::engines::doc {

std::shared_ptr<const BucketCache::Bucket> BucketCache::get(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    if (errno != ENOENT && errno != ENOTDIR) throw_errno("stat", path);
    entries_.erase(path);
    return nullptr;
  }
  const auto found = entries_.find(path);
  if (found != entries_.end() && found->second.stamp == stamp_of(info)) {
    return found->second.bucket;
  }
  std::string text;
  if (!read_file_at(AT_FDCWD, path, text, info, path)) {
    entries_.erase(path);
    return nullptr;
  }
  auto bucket = std::make_shared<Bucket>();
  if (!parse_bucket_ids(text, bucket->count, bucket->ids)) {
    throw StoreError("Malformed index file " + path);
  }
  if (text.size() > kMaxCachedBytes) {
    entries_.erase(path);
  } else {
    entries_[path] = Entry{stamp_of(info), bucket};
  }
  return bucket;
}

}  // namespace storh::engines::doc
