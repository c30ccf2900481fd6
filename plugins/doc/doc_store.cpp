// DocStore: open, single-record operations and scans. Bulk writes live in
// doc_store_bulk.cpp, maintenance in doc_store_maintenance.cpp.
#include "doc/doc_store.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include <fmt/format.h>

#include "common/canonical_json.h"
#include "common/fast_json.h"
#include "common/hashes.h"
#include "common/store_error.h"
#include "common/uuid_v7.h"
#include "doc/doc_store_state.h"

namespace storh::engines::doc {
namespace fs = std::filesystem;
namespace {

void require_collection_name(std::string_view name) {
  if (name.empty() || name == "." || name == ".." || name.find('/') != std::string_view::npos ||
      name.find('\0') != std::string_view::npos) {
    throw StoreError(fmt::format("Invalid collection name \"{}\"", name));
  }
}

}  // namespace

Validation parse_validation(std::string_view name) {
  if (name == "hash") return Validation::hash;
  if (name == "stat") return Validation::stat;
  if (name == "trust") return Validation::trust;
  if (name == "notify") return Validation::notify;
  throw StoreError(
      fmt::format("unknown cache validation \"{}\" (valid: hash, stat, trust, notify)", name));
}

std::string_view validation_name(Validation validation) noexcept {
  switch (validation) {
    case Validation::hash:
      return "hash";
    case Validation::stat:
      return "stat";
    case Validation::trust:
      return "trust";
    case Validation::notify:
      return "notify";
  }
  return "stat";
}

DocStore::State::State(fs::path root_dir, std::string name, DocStoreOptions opts,
                       std::string writer_prefix, bool data_missing)
    : root(std::move(root_dir)),
      collection(std::move(name)),
      collection_path(root / collection),
      data_dir(collection_path / "data"),
      options(std::move(opts)),
      scope(std::make_shared<const std::string>(xxh128_hex(collection_path.string()))),
      prefix(std::move(writer_prefix)),
      shared_prefix(fmt::format("doc:{}:", collection)),
      shared_key(shared_prefix),
      marker(collection_path, prefix),
      dirs(data_dir),
      writer(dirs, prefix, options.sync, options.bulk_sync),
      cache(data_missing) {}

std::string DocStore::State::new_id() {
  if (!options.id_generator) return uuid_v7::generate();
  std::string id = options.id_generator();
  require_valid_id(id);
  return id;
}

std::optional<Json> DocStore::State::read_from_disk(std::string_view id) {
  const std::string name = record_file_name(id);
  const fs::path path = dirs.shard_path(shard_of(id)) / name;
  std::string bytes;
  struct stat info {};
  if (!read_file_at(AT_FDCWD, path.string(), bytes, info, path)) return std::nullopt;
  return parse_record(bytes, id, path.string());
}

void DocStore::State::shared_set(std::string_view id, const std::shared_ptr<const Json>& data,
                                 const FileStamp& stamp, std::string_view bytes,
                                 const ReadFacts& read) {
  if (!options.cache) return;
  RecordTuple tuple;
  tuple.exists = true;
  tuple.scope = scope;
  tuple.mtime_ns = stamp.mtime_ns;
  tuple.size = stamp.size;
  if (options.validation == Validation::hash) tuple.hash = xxh128_hex(bytes);
  if (options.validation == Validation::trust) {
    tuple.payload = data;
  } else if (read.parsed_from_bytes) {
    // What another instance would decode from the file: shared, shown as text (RecordTuple).
    tuple.payload = data;
    tuple.payload_is_data = true;
  } else if (std::optional<std::string_view> text = framed_data_text(bytes, id)) {
    // A write: its file's data text (any JSON text of the data serves; the payload is
    // parsed, never compared as bytes).
    tuple.payload = std::make_shared<const Json>(std::string(*text));
  } else {
    tuple.payload = std::make_shared<const Json>(encode_compact(*data));
  }
  const std::string& key = key_for(id);
  options.cache->set_tuple(key, read.shared_hash_of(key), std::move(tuple));
}

void DocStore::State::remember(std::string_view id, std::shared_ptr<const Json> data,
                               const FileStamp& stamp, std::string_view bytes, bool canonical,
                               bool in_process, const ReadFacts& read) {
  shared_set(id, data, stamp, bytes, read);
  if (!in_process) {
    cache.erase(id);
    return;
  }
  CachedRecord record;
  record.data = std::move(data);
  record.stamp = stamp;
  record.seen = watch_tick();
  if (options.validation == Validation::hash) {
    record.hash = hash_bytes(bytes);
    record.has_hash = true;
  }
  if (canonical) record.bytes.assign(bytes);
  cache.upsert(id, read.record_hash_of(id), std::move(record));
}

void DocStore::State::remember_missing(std::string_view id) {
  cache.erase(id);
  if (!options.cache) return;
  RecordTuple tuple;
  tuple.scope = scope;
  options.cache->set_tuple(key_for(id), std::move(tuple));
}

std::optional<SharedJson> DocStore::State::from_shared_cache(std::string_view id,
                                                             std::string_view shard,
                                                             const std::string& name,
                                                             const ReadFacts& read) {
  const std::string& key = key_for(id);
  RecordTuple tuple;
  const TupleLookup lookup = options.cache->get_tuple(key, read.shared_hash, scope, tuple);
  if (lookup == TupleLookup::absent) return std::nullopt;
  if (lookup == TupleLookup::found) {
    const int dir = dirs.get(shard, false);
    struct stat info {};
    FileStamp now;
    if (dir >= 0 && ::fstatat(dir, name.c_str(), &info, 0) == 0) now = stamp_of(info);
    // The tuple keeps storh's (mtime, size); the inode is not part of it.
    const FileStamp cached{tuple.mtime_ns, tuple.size, now.inode};
    if (tuple.exists == (now.size >= 0) && now == cached) {
      if (!tuple.exists) return SharedJson();
      const bool hash_mode = options.validation == Validation::hash;
      std::string bytes;
      const bool same =
          !hash_mode || (read_file_at(dir, name, bytes, info, [&] { return fs::path(name); }) &&
                         stamp_of(info) == cached && xxh128_hex(bytes) == tuple.hash);
      if (same && tuple.payload && (tuple.payload_is_data || tuple.payload->is_string())) {
        // A tuple a store set holds the data; one set() as JSON by anyone holds its text.
        SharedJson shared = tuple.payload;
        if (!tuple.payload_is_data) {
          shared = std::make_shared<const Json>(
              parse_json(tuple.payload->get_ref<const std::string&>()));
        }
        if (shared->is_object() || shared->is_array()) {
          CachedRecord record;
          record.data = shared;
          record.stamp = cached;
          record.seen = watch_tick();
          if (hash_mode) {
            record.hash = hash_bytes(bytes);
            record.has_hash = true;
          }
          cache.upsert(id, read.record_hash_of(id), std::move(record));
          return shared;
        }
      }
    }
  }
  options.cache->remove(key);
  return std::nullopt;
}

DocStore::DocStore(fs::path root, std::string collection, DocStoreOptions options) {
  require_collection_name(collection);
  if (options.schema && options.schema->name() != collection) {
    throw StoreError(fmt::format("Schema collection \"{}\" does not match store collection \"{}\"",
                                 options.schema->name(), collection));
  }
  if (options.batch_size < 1) options.batch_size = 1;
  const fs::path collection_path = root / collection;
  cleanup_temp_files_on_open(collection_path);
  struct stat info {};
  const bool data_missing =
      ::stat((collection_path / "data").c_str(), &info) != 0 && errno == ENOENT;
  state_ = std::make_unique<State>(std::move(root), std::move(collection), std::move(options),
                                   make_writer_prefix(), data_missing);
  state_->hooks = make_index_hooks(*this);
  if (state_->options.validation == Validation::notify) {
    // Armed lazily (the first call, or the write that makes data/), so an open stays cheap.
    state_->watch.emplace(state_->data_dir, state_->prefix);
    state_->dirs.on_made(
        [state = state_.get()](std::string_view shard) { state->shard_made(shard); });
  }
  if (state_->options.schema) {
    std::vector<IndexDefinition> definitions;
    for (const SchemaField& field : state_->options.schema->indexed_fields()) {
      definitions.push_back({field.name, field.unique, field.range});
    }
    if (!definitions.empty()) state_->hooks->sync_schema(definitions);
  }
}

DocStore::~DocStore() = default;

FileLock& DocStore::write_lock() {
  State& s = *state_;
  if (!s.lock) s.lock.emplace(s.collection_path / ".storh" / "write.lock", O_RDWR);
  s.marker.register_once();
  return *s.lock;
}

IndexHooks& DocStore::indexes() {
  return *state_->hooks;
}

Record DocStore::put(Json data, std::optional<std::string> id) {
  State& s = *state_;
  require_record_data(data);
  FileLock::Guard guard(write_lock());
  s.sync_watch();
  const bool supplied = id.has_value();
  std::string record_id = supplied ? std::move(*id) : s.new_id();
  if (supplied) require_valid_id(record_id);
  if (s.options.schema) s.options.schema->validate(data);
  const bool active = s.hooks->active();
  SharedJson old;
  if (active && supplied) old = find(record_id);
  if (active) s.hooks->check_unique(record_id, data);
  const std::string bytes = encode_record(record_id, data);
  s.begin_own_write();
  const FileStamp stamp = s.writer.write(record_id, bytes);
  auto stored = std::make_shared<const Json>(std::move(data));
  s.remember(record_id, stored, stamp, bytes, true);
  s.end_own_write();
  if (active) s.hooks->on_put(record_id, old.get(), *stored);
  return Record{std::move(record_id), *stored};
}

std::optional<Record> DocStore::get(std::string_view id) {
  SharedJson data = find(id);
  if (!data) return std::nullopt;
  return Record{std::string(id), *data};
}

SharedJson DocStore::find(std::string_view id) {
  State& s = *state_;
  const Validation mode = s.options.validation;
  if (mode == Validation::notify) s.sync_watch();
  // A TRUST get is a shared-cache hit: its index bucket starts loading before the id is
  // validated, so that miss overlaps the check. Only for an id of the right length: an
  // invalid one of that length is hashed for nothing, a longer one never copied.
  const std::string* shared_key = nullptr;
  std::uint64_t key_hash = 0;
  if (mode == Validation::trust && s.options.cache && id.size() == uuid_v7::kTextSize) {
    shared_key = &s.key_for(id);
    key_hash = MemoryCache::key_hash(*shared_key);
    s.options.cache->prefetch(key_hash);
  }
  require_valid_id(id);
  const std::string_view shard = shard_of(id);

  if (mode == Validation::trust) {
    if (shared_key != nullptr) {  // a valid id is 36 characters: whenever there is a cache
      const std::string& key = *shared_key;
      RecordTuple tuple;
      const TupleLookup found = s.options.cache->get_tuple(key, key_hash, s.scope, tuple);
      if (found == TupleLookup::found) return tuple.exists ? std::move(tuple.payload) : nullptr;
      if (found == TupleLookup::other) s.options.cache->remove(key);
    }
    if (CachedRecord* record = s.cache.find(id); record != nullptr && record->data) {
      return record->data;
    }
  }
  // Declared past the TRUST hit, which returns before any file call: zeroing the struct
  // is a `rep stos` a TRUST get need not pay.
  struct stat info {};
  // A validated hit is one fstatat plus lookups whose lines the kernel's work of the
  // previous gets evicted from the CPU's caches. When the id is most likely cached (its
  // hash is in the record cache's index), the fstatat comes first, so the entry's lines
  // load during it instead of before it; the rare id whose 32-bit hash only collides, or
  // whose entry has no stamp, pays that fstatat for nothing and goes on as a miss.
  ReadFacts read{.shared_hash = key_hash};  // for the caches filled after a read
  if (mode != Validation::trust) {
    read.record_hash = RecordCache::hash(id);
    s.cache.prefetch_bucket(read.record_hash);  // loads while the file name is built
  }
  // A TRUST hit never needs the file name; everything below does.
  const std::string& name = s.file_name_for(id);
  if (mode != Validation::trust) {
    int dir = -1;
    bool stat_done = false;
    bool stated = false;
    const auto stat_file = [&] {
      stat_done = true;
      dir = s.dirs.get(shard, false);
      stated = dir >= 0 && ::fstatat(dir, name.c_str(), &info, 0) == 0;
    };
    // NOTIFY: 0 unless the shard is watched; then an entry checked since needs no stat.
    const std::uint32_t since = s.watch_since(shard);
    const bool likely_cached = s.cache.prefetch_entry(id, read.record_hash);
    if (likely_cached && since == 0) stat_file();
    if (CachedRecord* record = s.cache.find(id, read.record_hash);
        record != nullptr && record->stamp.size >= 0) {
      if (since != 0 && record->seen >= since) return record->data;
      if (!stat_done) stat_file();
      if (stated && stamp_of(info) == record->stamp) {
        if (mode != Validation::hash) {
          record->seen = s.watch_tick();  // the watch reports every change from now on
          return record->data;
        }
        std::string bytes;
        if (read_file_at(dir, name, bytes, info, [&] { return fs::path(name); }) &&
            stamp_of(info) == record->stamp && hash_bytes(bytes) == record->hash) {
          return record->data;
        }
      }
      s.cache.erase(id);  // stale: re-read below
    }
    if (s.options.cache) {
      read.shared_hash = MemoryCache::key_hash(s.key_for(id));
      if (std::optional<SharedJson> shared = s.from_shared_cache(id, shard, name, read)) {
        return *shared;
      }
    }
  }

  // The file itself.
  std::string& bytes = s.file_buffer();
  const auto where = [&] { return s.dirs.shard_path(shard) / name; };
  const bool found = s.dirs.at_name(shard, name, [&](int dir) {
    return read_file_at(dir, name, bytes, info, where) ? 0 : ENOENT;
  }) == 0;
  if (!found) {
    s.remember_missing(id);
    return nullptr;
  }
  auto data =
      std::make_shared<const Json>(parse_record(bytes, id, [&] { return where().string(); }));
  read.parsed_from_bytes = true;
  s.remember(id, data, stamp_of(info), bytes, false, true, read);
  s.trim_file_buffer();
  return data;
}

bool DocStore::remove(std::string_view id) {
  State& s = *state_;
  require_valid_id(id);
  FileLock::Guard guard(write_lock());
  const bool active = s.hooks->active();
  std::optional<Json> old;
  if (active) old = s.read_from_disk(id);
  // unlinkat in the shard directory the store keeps open (reopened when it was replaced
  // behind us, as find() does).
  const std::string name = record_file_name(id);
  const std::string_view shard = shard_of(id);
  s.sync_watch();
  s.begin_own_write();
  const int err = s.dirs.at_name(
      shard, name, [&](int dir) { return ::unlinkat(dir, name.c_str(), 0) == 0 ? 0 : errno; });
  const bool removed = err == 0;
  if (removed && s.watch) s.watch->expect_own_delete(shard, name);
  if (!removed && err != ENOENT) {
    throw StoreError(fmt::format("Could not delete storage record {}: {}",
                                 (s.dirs.shard_path(shard) / name).string(), std::strerror(err)));
  }
  s.remember_missing(id);
  s.end_own_write();
  if (active && old) s.hooks->on_delete(id, *old);
  return removed;
}

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

fs::path DocStore::record_path(std::string_view id) const {
  return state_->dirs.shard_path(shard_of(id)) / record_file_name(id);
}

fs::path DocStore::path_for_id(std::string_view id) {
  require_valid_id(id);
  drop_caches();
  return record_path(id);
}

void DocStore::drop_caches() {
  state_->cache.discard();
}

const fs::path& DocStore::root() const noexcept {
  return state_->root;
}
const std::string& DocStore::collection() const noexcept {
  return state_->collection;
}
const fs::path& DocStore::collection_path() const noexcept {
  return state_->collection_path;
}
Validation DocStore::validation() const noexcept {
  return state_->options.validation;
}
Sync DocStore::sync() const noexcept {
  return state_->options.sync;
}
const std::optional<Schema>& DocStore::schema() const noexcept {
  return state_->options.schema;
}
const std::string& DocStore::cache_scope() const noexcept {
  return *state_->scope;
}
const std::string& DocStore::writer_prefix() const noexcept {
  return state_->prefix;
}
const std::shared_ptr<MemoryCache>& DocStore::shared_cache() const noexcept {
  return state_->options.cache;
}
std::size_t DocStore::cached_records() const noexcept {
  return state_->cache.size();
}
const std::string& DocStore::notify_fallback_reason() const noexcept {
  return state_->notify_fallback;
}
bool DocStore::notify_quiet() const noexcept {
  return state_->watch && state_->watch->quiet();
}

}  // namespace storh::engines::doc
