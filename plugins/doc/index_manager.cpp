// IndexManager: definitions, manifest and lookups (engine-spec.md 4.7.1, 4.7.3,
// 4.7.5). Incremental maintenance: index_maintenance.cpp; rebuild: index_build.cpp;
// verify: index_verify.cpp.
#include "doc/index_manager.h"

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

namespace storh::engines::doc {
namespace {

std::vector<IndexDefinition> normalised(std::vector<IndexDefinition> definitions) {
  std::sort(definitions.begin(), definitions.end(),
            [](const IndexDefinition& a, const IndexDefinition& b) { return a.field < b.field; });
  std::vector<IndexDefinition> out;
  for (IndexDefinition& def : definitions) {
    if (!out.empty() && out.back().field == def.field) {
      out.back().unique = out.back().unique || def.unique;
      out.back().range = out.back().range || def.range;
    } else {
      out.push_back(std::move(def));
    }
  }
  return out;
}

}  // namespace

IndexManager::IndexManager(DocStore& store)
    : store_(store),
      indexes_dir_(store.collection_path() / ".storh" / "indexes"),
      manifest_path_(indexes_dir_ / "manifest.jsonc"),
      watch_([&store] { return store.index_watch(); }),
      buckets_(watch_, indexes_dir_.string().size()) {}

IndexManager::~IndexManager() = default;

std::filesystem::path IndexManager::entries_dir() const {
  return indexes_dir_ / "entries";
}

std::filesystem::path IndexManager::eq_path(std::string_view field, const Json& value) const {
  return lookup_path("eq/", field, {}, value_key(value));
}

std::filesystem::path IndexManager::compound_dir(std::string_view left,
                                                 std::string_view right) const {
  return entries_dir() / "compound" / (hex_bytes(left) + "-" + hex_bytes(right));
}

std::filesystem::path IndexManager::compound_path(std::string_view left, const Json& left_value,
                                                  std::string_view right,
                                                  const Json& right_value) const {
  return lookup_path("compound/", left, right, compound_key(left_value, right_value));
}

// ---- Definitions -------------------------------------------------------------------

void IndexManager::load_definitions() {
  store_.drain_changes();
  const IndexWatchTicks watch = store_.index_watch();
  if (stamp_ && !manifest_changed_ && watch.vouches(manifest_seen_)) return;
  const std::filesystem::path& path = manifest_path_;
  ManifestStamp stamp;
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    stamp.exists = true;
    stamp.ino = st.st_ino;
    stamp.size = static_cast<std::uint64_t>(st.st_size);
    stamp.mtime_ns = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  }
  manifest_seen_ = watch.now;
  if (stamp_ && *stamp_ == stamp && !manifest_changed_) return;
  manifest_changed_ = false;
  std::vector<IndexDefinition> definitions;
  std::string text;
  if (stamp.exists && read_file_if_exists(path, text)) {
    Json doc;
    try {
      doc = decode_object(text);
    } catch (const std::exception& e) {
      throw StoreError("Malformed index manifest " + path.string() + ": " + e.what());
    }
    const auto fields = doc.find("fields");
    if (fields != doc.end() && fields->is_array()) {
      for (const Json& entry : *fields) {
        if (!entry.is_object()) continue;
        const auto field = entry.find("field");
        if (field == entry.end() || !field->is_string() ||
            is_blank_field(field->get_ref<const std::string&>())) {
          continue;
        }
        const auto flag = [&](const char* name) {
          const auto it = entry.find(name);
          return it != entry.end() && it->is_boolean() && it->get<bool>();
        };
        definitions.push_back({field->get<std::string>(), flag("unique"), flag("range")});
      }
    }
  }
  definitions_ = normalised(std::move(definitions));
  stamp_ = stamp;
}

const std::vector<IndexDefinition>& IndexManager::definitions() {
  load_definitions();
  return definitions_;
}

const IndexDefinition* IndexManager::find(std::string_view field) {
  if (!stamp_) load_definitions();
  for (const IndexDefinition& def : definitions_) {
    if (def.field == field) return &def;
  }
  return nullptr;
}

bool IndexManager::active() {
  return !definitions().empty();
}

std::size_t IndexManager::definition_count() {
  return definitions().size();
}

void IndexManager::write_manifest(const std::vector<IndexDefinition>& definitions) {
  Json fields = Json::array();
  for (const IndexDefinition& def : definitions) {
    Json entry = Json::object();
    entry["field"] = def.field;
    entry["unique"] = def.unique;
    entry["range"] = def.range;
    fields.push_back(std::move(entry));
  }
  Json doc = Json::object();
  doc["fields"] = std::move(fields);
  write_atomic(manifest_path(), encode_object(doc), store_.sync());
  store_.own_index_change(manifest_path_.string(), false);
  stamp_.reset();
}

void IndexManager::index_changed(std::string_view path, IndexChange change) {
  if (path == manifest_path_.native()) {
    manifest_changed_ = true;
    return;
  }
  buckets_.forget(std::string(path));
  // Kept, not erased: a query may hold one (its changed() only drops cached metadata).
  for (const auto& [field, range] : ranges_) range->changed(path, change);
}

void IndexManager::revalidate_after_rebuild() {
  load_definitions();
  if (store_.index_watch().since == 0) return;
  buckets_.revalidate();
  for (const IndexDefinition& def : definitions_) {
    if (def.range) range_index(def.field).revalidate();
  }
}

IndexManager& IndexManager::field(std::string name) {
  if (is_blank_field(name)) throw StoreError("Index field must not be blank.");
  if (!pending_) pending_ = definitions();
  const bool known = std::any_of(pending_->begin(), pending_->end(),
                                 [&](const IndexDefinition& def) { return def.field == name; });
  if (!known) pending_->push_back({name, false, false});
  pending_last_ = std::move(name);
  return *this;
}

IndexManager& IndexManager::unique() {
  if (!pending_ || pending_last_.empty()) throw StoreError("unique() needs a field() first.");
  for (IndexDefinition& def : *pending_) {
    if (def.field == pending_last_) def.unique = true;
  }
  return *this;
}

IndexManager& IndexManager::range() {
  if (!pending_ || pending_last_.empty()) throw StoreError("range() needs a field() first.");
  for (IndexDefinition& def : *pending_) {
    if (def.field == pending_last_) def.range = true;
  }
  return *this;
}

bool IndexManager::sync(bool rebuild_indexes) {
  FileLock::Guard guard(store_.write_lock());
  std::vector<IndexDefinition> wanted = normalised(pending_ ? *pending_ : definitions());
  pending_.reset();
  pending_last_.clear();
  const bool changed = wanted != definitions();
  write_manifest(wanted);
  load_definitions();
  ranges_.clear();
  if (changed && rebuild_indexes) {
    rebuild(false);
    return true;
  }
  return false;
}

void IndexManager::sync_schema(const std::vector<IndexDefinition>& schema_definitions) {
  for (const IndexDefinition& def : schema_definitions) {
    field(def.field);
    if (def.unique) unique();
    if (def.range) range();
  }
  sync(true);
}

std::vector<std::pair<std::string, std::string>> IndexManager::compound_pairs() {
  std::vector<std::pair<std::string, std::string>> pairs;
  const auto& defs = definitions();  // sorted by field: left < right
  for (std::size_t i = 0; i < defs.size(); ++i) {
    if (defs[i].unique || defs[i].range) continue;
    for (std::size_t j = i + 1; j < defs.size(); ++j) {
      if (defs[j].unique || defs[j].range) continue;
      pairs.emplace_back(defs[i].field, defs[j].field);
    }
  }
  return pairs;
}

// ---- Lookups -----------------------------------------------------------------------

RangeIndex& IndexManager::range_index(const std::string& field) {
  auto& slot = ranges_[field];
  if (!slot) {
    slot = std::make_unique<RangeIndex>(RangePaths::in(entries_dir() / "range", field), watch_);
  }
  return *slot;
}

std::vector<std::string> IndexManager::eq_ids(const IndexDefinition& def, const Json& value,
                                              std::size_t limit) {
  if (def.range) {
    std::vector<std::string> ids =
        range_index(def.field).ids(QueryCondition(def.field, QueryOperator::eq, value));
    if (limit != 0 && ids.size() > limit) ids.resize(limit);
    return ids;
  }
  return bucket_ids(lookup_path("eq/", def.field, {}, value_key(value)), limit);
}

std::size_t IndexManager::eq_count(const IndexDefinition& def, const Json& value) {
  if (def.range) {
    return range_index(def.field).count(QueryCondition(def.field, QueryOperator::eq, value), 0);
  }
  return bucket_count(lookup_path("eq/", def.field, {}, value_key(value)));
}

bool IndexManager::is_compound_pair(std::string_view a, std::string_view b) {
  if (a == b) return false;
  const IndexDefinition* da = find(a);
  const IndexDefinition* db = find(b);
  return da != nullptr && db != nullptr && !da->unique && !da->range && !db->unique && !db->range;
}

std::optional<std::vector<std::string>> IndexManager::compound_ids(std::string_view field_a,
                                                                   const Json& a,
                                                                   std::string_view field_b,
                                                                   const Json& b,
                                                                   std::size_t limit) {
  const std::string& path = compound_lookup_path(field_a, a, field_b, b);
  const auto text = buckets_.text(path);
  if (!text) return std::nullopt;
  return bucket_ids_from_text(*text, limit, path);
}

std::size_t IndexManager::compound_count(std::string_view field_a, const Json& a,
                                         std::string_view field_b, const Json& b) {
  return bucket_count(compound_lookup_path(field_a, a, field_b, b));
}

const std::string& IndexManager::lookup_path(std::string_view kind, std::string_view left,
                                             std::string_view right, std::string_view key) const {
  // The map key spells the directory unambiguously: kind, left's length, left, right.
  lookup_buffer_.assign(kind);
  lookup_buffer_ += std::to_string(left.size());
  lookup_buffer_ += ':';
  lookup_buffer_ += left;
  lookup_buffer_ += right;
  auto it = lookup_prefixes_.find(lookup_buffer_);
  if (it == lookup_prefixes_.end()) {
    std::string prefix = entries_dir().string();
    prefix += '/';
    prefix += kind;
    prefix += hex_bytes(left);
    if (!right.empty()) {
      prefix += '-';
      prefix += hex_bytes(right);
    }
    prefix += '/';
    it = lookup_prefixes_.emplace(lookup_buffer_, std::move(prefix)).first;
  }
  lookup_buffer_.assign(it->second);
  lookup_buffer_ += key;
  lookup_buffer_ += ".jsonc";
  return lookup_buffer_;
}

const std::string& IndexManager::compound_lookup_path(std::string_view field_a, const Json& a,
                                                      std::string_view field_b, const Json& b) {
  if (field_b < field_a) return lookup_path("compound/", field_b, field_a, compound_key(b, a));
  return lookup_path("compound/", field_a, field_b, compound_key(a, b));
}

std::vector<std::string> IndexManager::bucket_ids(const std::string& path, std::size_t limit) {
  // A limited read of an uncached bucket takes only the file's head.
  if (auto ids = buckets_.head_ids(path, limit)) return std::move(*ids);
  const auto text = buckets_.text(path);
  return text ? bucket_ids_from_text(*text, limit, path) : std::vector<std::string>{};
}

std::size_t IndexManager::bucket_count(const std::string& path) {
  const std::optional<std::int64_t> count = buckets_.count(path);
  return count && *count > 0 ? static_cast<std::size_t>(*count) : 0;
}

}  // namespace storh::engines::doc
