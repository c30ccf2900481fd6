// DocStore::State: what one open instance keeps, and its record and shared caches
// (docs/engines/doc.md, "Caches and validation").
#include "doc/doc_store.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <cerrno>

#include <fmt/format.h>

#include "common/canonical_json.h"
#include "common/fast_json.h"
#include "common/hashes.h"
#include "common/uuid_v7.h"
#include "doc/doc_store_state.h"

namespace storh::engines::doc {
namespace fs = std::filesystem;

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

}  // namespace storh::engines::doc
