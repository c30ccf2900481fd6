// index_manager.h: the secondary indexes of a DocStore (engine-spec.md section 4.7,
// storh's DocStoreIndexManager): definitions and manifest, rebuild, incremental
// maintenance, the unique constraint, verification, and the lookups the query planner
// uses.
//
//   auto& indexes = index_manager(store);
//   indexes.field("kind").field("bucket").field("publishedAt").range().sync();
//
// Files under <collection>/.storh/indexes/ (section 4.1):
//   manifest.jsonc                             pretty {"fields":[{field,unique,range},...]}
//   entries/eq/<hex(field)>/<value_key>.jsonc  equality buckets (index_files.h)
//   entries/compound/<hex(L)>-<hex(R)>/<c-key>.jsonc  pairs of plain equality fields
//   entries/range/<hex(field)>.jsonl / .delta.jsonl / .idx.jsonc / .chunks/
// Every file is replaced atomically (temp + fsync + rename + directory fsync) or appended
// with fsync (delta), following the store's Sync; a crash leaves each file old or new,
// and queries re-check every candidate record, so a stale index never returns a record
// that does not match (counts are trusted, as in storh: verify() reports drift and
// reindex()/repair() fixes it). Lookups keep parsed bucket files in memory, revalidated
// by one stat per lookup (index_bucket_cache.h), so another process's index writes are
// seen by the next query. NOTIFY: definitions() and active(), which every query calls
// first, drain the store's watch; the lookups after them trust what the watch vouches for
// (index_hooks.h) and stat nothing else, and this instance's own index writes stay cached.
//
// Ownership: made by make_index_hooks() for its DocStore, which it references and which
// outlives it. Thread safety: none (one thread per DocStore). Mutating methods take the
// store's write lock. Failures throw StoreError.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "doc/index_bucket_cache.h"
#include "doc/index_hooks.h"
#include "doc/index_range.h"

namespace storh::engines::doc {

class IndexManager final : public IndexHooks {
 public:
  explicit IndexManager(DocStore& store);
  ~IndexManager() override;

  // ---- Builder (4.7.1) -----------------------------------------------------------
  // Adds `name` as a plain equality index if it is new (starting from the stored
  // definitions). Throws StoreError on a blank name.
  IndexManager& field(std::string name);
  // OR a flag into the field named last (flags are never removed).
  IndexManager& unique();
  IndexManager& range();
  // Under the write lock: sorts the definitions by field, rewrites the manifest, and
  // rebuilds every index from the store's scan (fast path allowed) when the set
  // differs from the stored one and `rebuild` is true. Returns whether it rebuilt.
  bool sync(bool rebuild = true);

  // The stored definitions, sorted by field (the manifest is re-read when it changed).
  const std::vector<IndexDefinition>& definitions();
  // The definition of `field` among those definitions() loaded last (no new stat:
  // a query calls definitions() or active() once, then find() per condition).
  const IndexDefinition* find(std::string_view field);

  // ---- Lookups for the planner (ids ascending, counts trusted) -----------------------
  // Ids whose `field` is strictly `value` (equality file, or the range file for a range
  // field); at most `limit` (0 = all) from an equality file.
  std::vector<std::string> eq_ids(const IndexDefinition& def, const Json& value,
                                  std::size_t limit = 0);
  std::size_t eq_count(const IndexDefinition& def, const Json& value);
  // Whether two distinct fields form a compound pair (both plain equality indexes).
  bool is_compound_pair(std::string_view a, std::string_view b);
  std::optional<std::vector<std::string>> compound_ids(std::string_view field_a, const Json& a,
                                                       std::string_view field_b, const Json& b,
                                                       std::size_t limit = 0);
  std::size_t compound_count(std::string_view field_a, const Json& a, std::string_view field_b,
                             const Json& b);
  // The range reader of a range field (cached metadata).
  RangeIndex& range_index(const std::string& field);

  // Rebuilds from the store's scan (from_disk: straight from the files).
  ReindexResult rebuild(bool from_disk);

  // ---- IndexHooks ----------------------------------------------------------------
  bool active() override;
  void check_unique(std::string_view id, const Json& data) override;
  void on_put(std::string_view id, const Json* old_data, const Json& new_data) override;
  void on_delete(std::string_view id, const Json& old_data) override;
  std::size_t definition_count() override;
  std::vector<std::string> verify() override;
  ReindexResult reindex_from_disk() override;
  void sync_schema(const std::vector<IndexDefinition>& definitions) override;
  void index_changed(std::string_view path, IndexChange change) override;

  // ---- Paths ---------------------------------------------------------------------
  const std::filesystem::path& manifest_path() const noexcept { return manifest_path_; }
  std::filesystem::path entries_dir() const;
  std::filesystem::path eq_path(std::string_view field, const Json& value) const;
  std::filesystem::path compound_dir(std::string_view left, std::string_view right) const;
  std::filesystem::path compound_path(std::string_view left, const Json& left_value,
                                      std::string_view right, const Json& right_value) const;

 private:
  struct ManifestStamp {
    std::uint64_t ino = 0, size = 0;
    std::int64_t mtime_ns = 0;
    bool exists = false;
    friend bool operator==(const ManifestStamp&, const ManifestStamp&) = default;
  };
  // Drains the store's watch (NOTIFY), then re-reads the manifest if it changed.
  void load_definitions();
  // NOTIFY, at the end of a rebuild: drains (re-arming the index side after the rebuild's
  // directory changes) and stat-checks what the rebuild cached, so queries need no stat.
  void revalidate_after_rebuild();
  void write_manifest(const std::vector<IndexDefinition>& definitions);
  void apply_change(std::string_view id, const Json* old_data, const Json* new_data);
  // The ids (at most `limit`, 0 = all) and the trusted count of a bucket file, through
  // the bucket cache; empty / 0 when the file does not exist.
  std::vector<std::string> bucket_ids(const std::string& path, std::size_t limit);
  std::size_t bucket_count(const std::string& path);
  // The bucket file layout (eq_path and compound_path are this as a path): a
  // per-directory prefix kept in lookup_prefixes_, so queries build no filesystem::path.
  // `kind` is "eq/" (right empty) or "compound/" (left < right). The result is valid
  // until the next call.
  const std::string& lookup_path(std::string_view kind, std::string_view left,
                                 std::string_view right, std::string_view key) const;
  const std::string& compound_lookup_path(std::string_view field_a, const Json& a,
                                          std::string_view field_b, const Json& b);
  void bucket_remove(const std::filesystem::path& path, std::string_view id);
  // write_atomic of a bucket holding `ids` ids, remembered as written (NOTIFY).
  void write_bucket(const std::filesystem::path& path, std::string bytes, std::size_t ids);
  void bucket_add(const std::filesystem::path& path, std::string_view field, const Json& value,
                  std::string_view id);
  std::vector<std::pair<std::string, std::string>> compound_pairs();

  DocStore& store_;
  std::filesystem::path indexes_dir_;
  // Built once: every query stats the manifest (to see other writers' definitions), and
  // composing the path took more instructions than the rest of an index count.
  std::filesystem::path manifest_path_;
  std::vector<IndexDefinition> definitions_;
  std::optional<ManifestStamp> stamp_;
  std::uint32_t manifest_seen_ = 0;  // NOTIFY: the tick stamp_ was last checked at
  bool manifest_changed_ = false;    // an event named the manifest: re-read it
  std::optional<std::vector<IndexDefinition>> pending_;
  std::string pending_last_;
  std::unordered_map<std::string, std::unique_ptr<RangeIndex>> ranges_;
  IndexWatchSource watch_;  // the store's index_watch()
  BucketCache buckets_;
  mutable std::unordered_map<std::string, std::string> lookup_prefixes_;
  mutable std::string lookup_buffer_;
};

// The IndexManager of `store` (its indexes() hooks).
IndexManager& index_manager(DocStore& store);

}  // namespace storh::engines::doc
