// disk_scan.h: walking data/ (engine-spec.md section 4.4 slow path, 4.5 fast-path
// revalidation). Internal to the DocStore.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "doc/record_cache.h"

namespace storh::engines::doc {

struct DiskListing {
  struct File {
    std::string id;       // the basename without .jsonc (not validated)
    std::size_t dir = 0;  // index into dirs
  };
  std::vector<std::filesystem::path> dirs;
  std::vector<File> files;  // sorted by id (byte order); a repeated basename: last seen wins

  std::filesystem::path path_of(const File& file) const;
};

// Every *.jsonc file (not starting with '.') under `data_dir`, recursively. A missing
// data_dir gives an empty listing.
DiskListing list_record_files(const std::filesystem::path& data_dir);

// The fast-path check of section 4.5 for STAT (check_hash = false) and HASH: the record
// files on disk must be exactly the cache's keys, each at data/<shard>/<id>.jsonc, each
// entry must have a stamp equal to the file's (and, with check_hash, a hash equal to the
// file's). Reads no file unless check_hash. Never throws for filesystem races: any
// failure means "not valid".
bool cache_matches_disk(const std::filesystem::path& data_dir, RecordCache& cache, bool check_hash);

}  // namespace storh::engines::doc
