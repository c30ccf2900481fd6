// DocStore: open and single-record operations. The instance's state and caches live
// in doc_store_state.cpp, scans in doc_store_scan.cpp, bulk writes in
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
