// index_hooks.h: the seam between the DocStore storage core and its secondary indexes
// (engine-spec.md section 4.7).
//
// CONTRACT WITH doc_store (stable; owned by the index side, changes are announced here):
//   * DocStore owns one IndexHooks, made by make_index_hooks(*this) in its constructor
//     (the hooks keep the reference; the store outlives them), and exposes it as
//     `IndexHooks& indexes()`.
//   * check_unique, on_put and on_delete are called by DocStore while it holds the
//     collection write lock, after (on_put/on_delete) the record file was renamed or
//     unlinked, and only when active() is true. check_unique runs before anything is
//     written. DocStore reads the old record (get(id)) only when active() and the id was
//     supplied by the caller, and passes nullptr otherwise.
//   * reindex_from_disk() is called by DocStore::reindex()/repair() under the write lock;
//     it reads the records from disk (bypassing caches) through DocStore; the store clears
//     its own caches afterwards.
//   * sync_schema() is called by the DocStore constructor when a schema declares indexed
//     fields (section 4.3 step 5): merge them into the stored definitions and sync().
//   * Everything the hooks write follows the store's durability (DocStore::sync()).
//   * NOTIFY: the store's drains report every foreign change of a file under
//     .storh/indexes/ through index_changed() (from inside any public call of the store);
//     DocStore::index_watch() says whether the watch vouches for what the hooks cached.
//
// Thread safety: like DocStore, one thread at a time per instance. Failures throw
// StoreError (unique violation: "Unique index violation on field: <f>").
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/record.h"

namespace storh::engines::doc {

class DocStore;

// One index definition (section 4.7.1). `unique` and `range` imply an indexed field.
struct IndexDefinition {
  std::string field;
  bool unique = false;
  bool range = false;

  friend bool operator==(const IndexDefinition&, const IndexDefinition&) = default;
};

// What an inotify event says happened to an index file: its bytes or attributes changed
// (written, touched), or its name appeared (created, renamed onto) or went (unlinked,
// renamed away).
enum class IndexChange { content, appeared, removed };

// NOTIFY's word on the index folder (DocStore::index_watch()). An index cache entry that
// was validated (read, stat-checked or written by this instance) at tick `seen` needs no
// stat while vouches(seen): the folder has been watched since before that moment, and a
// change since would have been reported through IndexHooks::index_changed, which drops
// the entry. `since` is 0 when nothing is watched (other modes, a fallback, no data/ yet):
// validate by stat as STAT does. `now` is the tick to record for an entry validated now.
struct IndexWatchTicks {
  std::uint32_t since = 0;
  std::uint32_t now = 0;
  bool vouches(std::uint32_t seen) const noexcept { return since != 0 && seen >= since; }
};
// Where an index cache reads the current ticks (they move with every drain).
using IndexWatchSource = std::function<IndexWatchTicks()>;

class IndexHooks {
 public:
  virtual ~IndexHooks() = default;

  // True when at least one definition exists. The first call (of any method) reads the
  // manifest once, lazily; reopen never pays for it.
  virtual bool active() = 0;
  // Throws StoreError("Unique index violation on field: <f>") when a unique field of
  // `data` already holds an id other than `id` (section 4.7.6).
  virtual void check_unique(std::string_view id, const Json& data) = 0;
  // The record `id` now holds `new_data`; `old_data` is its previous data or nullptr
  // (new record, or generated id). Removes the old entries and adds the new ones.
  virtual void on_put(std::string_view id, const Json* old_data, const Json& new_data) = 0;
  // The record `id`, which held `old_data`, was deleted.
  virtual void on_delete(std::string_view id, const Json& old_data) = 0;
  // Number of definitions (stats().indexes).
  virtual std::size_t definition_count() = 0;
  // Section 4.7.8: recomputes the index maps from a disk scan and compares them with the
  // files. Empty = consistent.
  virtual std::vector<std::string> verify() = 0;

  struct ReindexResult {
    std::size_t fields = 0;   // definitions rebuilt
    std::size_t entries = 0;  // records scanned
  };
  // Rebuilds every index from the record files on disk (section 4.7.5, reindex/repair).
  virtual ReindexResult reindex_from_disk() = 0;
  // Merges `definitions` (from a schema) into the stored ones and syncs (rebuilding when
  // the set changed).
  virtual void sync_schema(const std::vector<IndexDefinition>& definitions) = 0;
  // NOTIFY: another process changed the index file at `path` (absolute, as the hooks
  // spell their paths). Called from the store's drain, possibly in the middle of a query
  // (a record get drains too): drop what is cached for it, never what a caller holds.
  virtual void index_changed(std::string_view /*path*/, IndexChange /*change*/) {}
};

// The hooks for `store` (the full IndexManager; see index_manager.h).
std::unique_ptr<IndexHooks> make_index_hooks(DocStore& store);

}  // namespace storh::engines::doc
