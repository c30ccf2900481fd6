// DocStore's scans: from memory on the fast path (after the validation mode's check),
// else from the files; counts, first, ids.
#include "doc/doc_store.h"

#include <fcntl.h>

#include "common/store_error.h"
#include "doc/doc_store_state.h"

namespace storh::engines::doc {
namespace fs = std::filesystem;

bool DocStore::fast_path_valid() {
  State& s = *state_;
  if (!s.cache.complete()) return false;
  const Validation mode = s.options.validation;
  if (mode == Validation::trust) return true;
  if (mode == Validation::notify) {
    s.sync_watch();
    if (s.fast_ok) return true;
  }
  const bool valid = cache_matches_disk(s.data_dir, s.cache, mode == Validation::hash);
  // Every change after this walk's start is queued for the next drain.
  if (valid && s.watch && s.watch->armed() && s.scanning == 0) s.fast_ok = true;
  return valid;
}

std::optional<std::size_t> DocStore::fast_count() {
  if (!fast_path_valid()) return std::nullopt;
  return state_->cache.size();
}

void DocStore::scan(const RecordQuery& query, ScanCallback callback,
                    const ScanErrorHandler& on_error) {
  State& s = *state_;
  if (!fast_path_valid()) {
    scan_files(query, callback, on_error);  // reads the files without touching the caches
    return;
  }
  std::int64_t left = query.limit_count().value_or(-1);
  if (left == 0) return;
  std::size_t start = 0;
  const auto& after = query.after_id();
  const auto& lower = query.lower_id();
  if (after && (!lower || *after >= *lower)) {
    start = s.cache.lower_bound(*after, true);
  } else if (lower) {
    start = s.cache.lower_bound(*lower, false);
  }
  const auto& order = s.cache.ordered();
  const auto& upper = query.upper_id();
  const bool filters_data = query.filters_data();
  // A find() from the callback must not drain: an erase would move `order` under us.
  ++s.scanning;
  struct Leave {
    int& depth;
    ~Leave() { --depth; }
  } leave{s.scanning};
  for (std::size_t i = start; i < order.size(); ++i) {
    const RecordCache::Entry& entry = *order[i];
    if (upper && entry.id() > *upper) break;
    if (filters_data && !query.matches_data(entry.id(), *entry.value.data)) continue;
    if (!callback(RecordView{entry.id(), entry.value.data})) return;
    if (left > 0 && --left == 0) return;
  }
}

void DocStore::scan_disk(ScanCallback callback, const ScanErrorHandler& on_error) {
  scan_files(RecordQuery::all(), callback, on_error);
}

void DocStore::scan_files(const RecordQuery& query, ScanCallback callback,
                          const ScanErrorHandler& on_error) {
  std::int64_t left = query.limit_count().value_or(-1);
  if (left == 0) return;
  const DiskListing listing = list_record_files(state_->data_dir);
  std::string bytes;
  for (const DiskListing::File& file : listing.files) {
    if (!query.matches_id(file.id)) continue;
    const fs::path path = listing.path_of(file);
    SharedJson data;
    try {
      struct stat info {};
      if (!read_file_at(AT_FDCWD, path.string(), bytes, info, path)) continue;
      data = std::make_shared<const Json>(parse_record(bytes, file.id, path.string()));
    } catch (const StoreError& error) {
      if (!on_error) throw;
      on_error(file.id, error.what());
      continue;
    }
    if (!query.matches_data(file.id, *data)) continue;
    if (!callback(RecordView{file.id, data})) return;
    if (left > 0 && --left == 0) return;
  }
}

std::vector<Record> DocStore::stream_all(const RecordQuery& query) {
  std::vector<Record> records;
  scan(query, [&](const RecordView& record) {
    records.push_back(record.to_record());
    return true;
  });
  return records;
}

std::vector<SharedRecord> DocStore::stream_shared(const RecordQuery& query) {
  std::vector<SharedRecord> records;
  scan(query, [&](const RecordView& record) {
    records.push_back(SharedRecord{std::string(record.id), record.data});
    return true;
  });
  return records;
}

std::optional<Record> DocStore::first(const RecordQuery& query) {
  std::optional<Record> found;
  scan(query, [&](const RecordView& record) {
    found = record.to_record();
    return false;
  });
  return found;
}

std::size_t DocStore::count(const RecordQuery& query) {
  std::size_t counted = 0;
  scan(query, [&](const RecordView&) {
    ++counted;
    return true;
  });
  return counted;
}

std::vector<std::string> DocStore::record_ids() {
  State& s = *state_;
  std::vector<std::string> ids;
  if (s.options.validation == Validation::trust && s.cache.complete()) {
    for (const RecordCache::Entry* entry : s.cache.ordered()) ids.emplace_back(entry->id());
    return ids;
  }
  const DiskListing listing = list_record_files(s.data_dir);
  ids.reserve(listing.files.size());
  for (const auto& file : listing.files) ids.push_back(file.id);
  return ids;
}

}  // namespace storh::engines::doc
