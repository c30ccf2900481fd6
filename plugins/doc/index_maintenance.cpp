// IndexManager's incremental maintenance (engine-spec.md 4.7.6): the unique check
// before a write, and the index entries a put, replace or remove adds and drops.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "common/durable_io.h"
#include "common/jsonc.h"
#include "common/query/json_values.h"
#include "common/store_error.h"
#include "doc/doc_store.h"
#include "doc/index_files.h"
#include "doc/index_keys.h"
#include "doc/index_manager.h"

namespace storh::engines::doc {

void IndexManager::check_unique(std::string_view id, const Json& data) {
  for (const IndexDefinition& def : definitions()) {
    if (!def.unique) continue;
    const Json* value = indexed_value(&data, def.field);
    if (value == nullptr) continue;
    for (const std::string& other : eq_ids(def, *value)) {
      if (other != id) throw StoreError("Unique index violation on field: " + def.field);
    }
  }
}

void IndexManager::on_put(std::string_view id, const Json* old_data, const Json& new_data) {
  apply_change(id, old_data, &new_data);
}

void IndexManager::on_delete(std::string_view id, const Json& old_data) {
  apply_change(id, &old_data, nullptr);
}

void IndexManager::apply_change(std::string_view id, const Json* old_data, const Json* new_data) {
  FileLock::Guard guard(store_.write_lock());
  const std::vector<IndexDefinition> defs = definitions();
  for (const IndexDefinition& def : defs) {
    const Json* before = indexed_value(old_data, def.field);
    const Json* after = indexed_value(new_data, def.field);
    if (before != nullptr && after != nullptr && strict_equal(*before, *after) &&
        value_key(*before) == value_key(*after)) {
      continue;
    }
    if (def.range) {
      std::string lines;
      const std::vector<std::string> one{std::string(id)};
      if (before != nullptr) lines += encode_range_line(range_key(*before), *before, {}, one);
      if (after != nullptr) lines += encode_range_line(range_key(*after), *after, one, {});
      if (!lines.empty()) {
        const RangePaths paths = RangePaths::in(entries_dir() / "range", def.field);
        make_directories(paths.delta.parent_path());
        durable_append(paths.delta, lines, store_.sync());
        if (const auto range = ranges_.find(def.field); range != ranges_.end()) {
          range->second->own_delta_append();
        }
      }
      continue;
    }
    if (before != nullptr) bucket_remove(eq_path(def.field, *before), id);
    if (after != nullptr) bucket_add(eq_path(def.field, *after), def.field, *after, id);
  }
  for (const auto& [left, right] : compound_pairs()) {
    const Json* lb = indexed_value(old_data, left);
    const Json* rb = indexed_value(old_data, right);
    const Json* la = indexed_value(new_data, left);
    const Json* ra = indexed_value(new_data, right);
    const bool had = lb != nullptr && rb != nullptr;
    const bool has = la != nullptr && ra != nullptr;
    std::filesystem::path old_path, new_path;
    if (had) old_path = compound_path(left, *lb, right, *rb);
    if (has) new_path = compound_path(left, *la, right, *ra);
    if (had && has && old_path == new_path) continue;
    if (had) bucket_remove(old_path, id);
    if (has) {
      std::string pair_name = left;
      pair_name += '\t';
      pair_name += right;
      bucket_add(new_path, pair_name, nullptr, id);
    }
  }
}

void IndexManager::bucket_remove(const std::filesystem::path& path, std::string_view id) {
  std::string text;
  if (!read_file_if_exists(path, text)) return;
  std::optional<Bucket> bucket = parse_bucket(text);
  if (!bucket) throw StoreError("Malformed index file " + path.string());
  const auto it = std::find(bucket->ids.begin(), bucket->ids.end(), id);
  if (it == bucket->ids.end()) return;
  bucket->ids.erase(it);
  if (bucket->ids.empty()) {
    buckets_.forget(path.string());
    if (::unlink(path.c_str()) != 0) {
      if (errno != ENOENT) throw_errno("unlink", path);
    } else {
      store_.own_index_change(path.string(), true);
      buckets_.remember_missing(path.string());
    }
    sync_directory(path.parent_path(), store_.sync());
    return;
  }
  write_bucket(path, encode_bucket(bucket->field, bucket->key, bucket->value, bucket->ids),
               bucket->ids.size());
}

void IndexManager::write_bucket(const std::filesystem::path& path, std::string bytes,
                                std::size_t ids) {
  const std::string name = path.string();
  buckets_.forget(name);
  auto text = std::make_shared<const std::string>(std::move(bytes));
  write_atomic(path, *text, store_.sync());
  store_.own_index_change(name, false);
  buckets_.remember_written(name, std::move(text), static_cast<std::int64_t>(ids));
}

void IndexManager::bucket_add(const std::filesystem::path& path, std::string_view field,
                              const Json& value, std::string_view id) {
  std::vector<std::string> ids;
  std::string text;
  if (read_file_if_exists(path, text)) {
    std::optional<Bucket> bucket = parse_bucket(text);
    if (!bucket) throw StoreError("Malformed index file " + path.string());
    ids = std::move(bucket->ids);
  }
  const auto at = std::lower_bound(ids.begin(), ids.end(), id);
  if (at != ids.end() && *at == id) return;
  ids.insert(at, std::string(id));
  const std::string key = path.stem().string();
  write_bucket(path, encode_bucket(field, key, value, ids), ids.size());
}

IndexHooks::ReindexResult IndexManager::reindex_from_disk() {
  return rebuild(true);
}

IndexManager& index_manager(DocStore& store) {
  auto* manager = dynamic_cast<IndexManager*>(&store.indexes());
  if (manager == nullptr) throw StoreError("DocStore has no IndexManager");
  return *manager;
}

std::unique_ptr<IndexHooks> make_index_hooks(DocStore& store) {
  return std::make_unique<IndexManager>(store);
}

}  // namespace storh::engines::doc
