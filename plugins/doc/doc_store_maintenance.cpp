// DocStore maintenance: stats, verify, repair (quarantine), reindex, compact.
#include <fcntl.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "common/store_error.h"
#include "doc/doc_store_state.h"

namespace storh::engines::doc {
namespace fs = std::filesystem;
namespace {

// Reads and parses one record file: true when readable. `size` gets the file size.
bool readable(const fs::path& path, std::string_view id, std::string& bytes, std::uint64_t& size,
              bool& exists) {
  struct stat info {};
  exists = true;
  try {
    if (!read_file_at(AT_FDCWD, path.string(), bytes, info, path)) {
      exists = false;
      return false;
    }
    size = static_cast<std::uint64_t>(info.st_size);
    (void)parse_record(bytes, id, path.string());
    return true;
  } catch (const StoreError&) {
    return false;
  }
}

}  // namespace

DocStats DocStore::stats() {
  State& s = *state_;
  DocStats stats;
  std::string bytes;
  auto count_file = [&](const fs::path& path, std::string_view id) {
    std::uint64_t size = 0;
    bool exists = true;
    if (readable(path, id, bytes, size, exists)) {
      ++stats.records;
      stats.bytes += size;
    } else if (exists) {
      ++stats.corrupt;
      struct stat info {};
      if (::stat(path.c_str(), &info) == 0) stats.bytes += static_cast<std::uint64_t>(info.st_size);
    }
  };
  if (s.options.validation == Validation::trust && s.cache.complete()) {
    for (const RecordCache::Entry* entry : s.cache.ordered())
      count_file(record_path(entry->id()), entry->id());
  } else {
    const DiskListing listing = list_record_files(s.data_dir);
    for (const auto& file : listing.files) count_file(listing.path_of(file), file.id);
  }
  stats.indexes = s.hooks->definition_count();
  return stats;
}

VerifyResult DocStore::verify() {
  VerifyResult result;
  result.stats = stats();
  if (result.stats.corrupt > 0) {
    result.errors.push_back(fmt::format("Corrupt records: {}", result.stats.corrupt));
  } else {
    result.errors = state_->hooks->verify();
  }
  result.ok = result.errors.empty();
  return result;
}

RepairResult DocStore::repair() {
  State& s = *state_;
  FileLock::Guard guard(write_lock());
  RepairResult result;
  cleanup_temp_files(s.collection_path);
  const fs::path corrupt_dir = s.collection_path / ".storh" / "corrupt";
  const DiskListing listing = list_record_files(s.data_dir);
  std::string bytes;
  for (const auto& file : listing.files) {
    const fs::path path = listing.path_of(file);
    std::uint64_t size = 0;
    bool exists = true;
    if (readable(path, file.id, bytes, size, exists) || !exists) continue;
    create_directories(corrupt_dir);
    fs::path target = corrupt_dir / path.filename();
    struct stat info {};
    if (::lstat(target.c_str(), &info) == 0) {
      target = corrupt_dir / fmt::format("{}-{}{}", file.id, random_hex(8), kRecordExtension);
    }
    if (::rename(path.c_str(), target.c_str()) != 0) throw_errno("quarantine", path);
    sync_directory(path.parent_path(), s.options.sync);
    sync_directory(corrupt_dir, s.options.sync);
    s.cache.erase(file.id);
    ++result.quarantined;
  }
  result.reindexed = reindex();
  return result;
}

IndexHooks::ReindexResult DocStore::reindex() {
  State& s = *state_;
  FileLock::Guard guard(write_lock());
  const IndexHooks::ReindexResult result = s.hooks->reindex_from_disk();
  s.cache.discard();
  if (s.options.cache) s.options.cache->clear_prefix(s.shared_prefix);
  return result;
}

std::size_t DocStore::compact() {
  return stats().records;
}

}  // namespace storh::engines::doc
