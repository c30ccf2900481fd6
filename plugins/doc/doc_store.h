// doc_store.h: storh's document store (engine-spec.md section 4): one durable file per
// record, data/<s>/<id>.jsonc under <root>/<collection>, byte-compatible with the PHP
// library's DocStore. docs/engines/doc.md tells the layout, the durability protocol,
// the caches and the NOTIFY bell in full; the contract is:
//
// Durability (Sync::durable, the default): a mutation returns only after its records
// are durable (temp file fsynced, renamed, directory fsynced; bulk writes batch the
// syncs, BulkSync). A crash leaves every record old or new, never torn; the next open
// sweeps a dead writer's temp files. remove() is not fsynced, as in storh. Sync::none
// skips every fsync (benchmarks only).
//
// Concurrency: writers of all processes are serialised by flock on .storh/write.lock
// (re-entrant per instance); reads never lock and never see a torn record. A DocStore
// is NOT thread-safe: one thread at a time per instance; several instances (threads or
// processes) may share a collection; after fork() a child opens its own instance.
// What a read checks against other writers' changes is the validation mode's (STAT,
// HASH, TRUST, NOTIFY): docs/engines/doc.md, "Caches and validation".
//
// Failure: every operation throws StoreError saying what and where (an invalid id:
// "Invalid UUIDv7 value."; a schema violation before anything is written; a unique
// violation from the index hooks). A failed write leaves no temp file behind.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/durable_io.h"
#include "common/file_lock.h"
#include "common/query/record_query.h"
#include "common/record.h"
#include "common/schema.h"
#include "doc/index_hooks.h"
#include "storh/function_ref.h"

namespace storh::engines {
class MemoryCache;
}

namespace storh::engines::doc {

// How cached reads are checked against the files (section 4.6). NOTIFY is STAT plus
// inotify: a cached entry whose shard directory has been watched since the entry was
// last checked, with no event for its name, is returned without a stat, and the fast
// path skips the revalidation walk while no event touched the file set. Where watches
// cannot be set it is STAT (notify_fallback_reason() says why). docs/engines/doc.md says
// which changes inotify does not see (use STAT there).
enum class Validation { hash, stat, trust, notify };
// "hash" | "stat" | "trust" | "notify"; throws StoreError naming the valid choices
// otherwise.
Validation parse_validation(std::string_view name);
std::string_view validation_name(Validation validation) noexcept;

struct DocStoreOptions {
  Validation validation = Validation::stat;
  Sync sync = Sync::durable;
  // How put_stream and import_jsonl make a batch durable (durable_io.h): one syncfs after
  // the batch's temp files are written and one after they are renamed, or storh's fsync
  // of each file and touched shard directory.
  BulkSync bulk_sync = BulkSync::filesystem;
  // When set: its name must equal the collection; put/import validate against it; its
  // indexed fields are merged into the index definitions at open (section 4.3 step 5).
  std::optional<Schema> schema;
  // The shared cache (section 4.6), or null for none. May be shared by several stores.
  std::shared_ptr<MemoryCache> cache;
  // A custom id generator; its ids are validated. Null: uuid_v7::generate().
  std::function<std::string()> id_generator;
  // Rows per durable batch in put_stream / import_jsonl (>= 1).
  std::size_t batch_size = 1024;
};

// Data as the caches hold it: immutable and shared, never null in a RecordView.
using SharedJson = std::shared_ptr<const Json>;

// One record during a scan. Valid only during the callback; copy what you keep (the
// SharedJson may be kept: it is immutable).
struct RecordView {
  std::string_view id;
  const SharedJson& data;

  Record to_record() const { return Record{std::string(id), *data}; }
};

// Return false to stop the scan.
using ScanCallback = FunctionRef<bool(const RecordView&)>;
// Called for an unreadable record during a scan when given; the record is skipped.
// Without one, the scan throws StoreError.
using ScanErrorHandler = std::function<void(std::string_view id, std::string_view message)>;
// A pull source for put_stream: the next row, or nullopt at the end.
using RowSource = FunctionRef<std::optional<Json>()>;

struct DocStats {
  std::size_t records = 0;  // readable record files
  std::uint64_t bytes = 0;  // sum of record file sizes
  std::size_t corrupt = 0;  // unreadable record files
  std::size_t indexes = 0;  // index definitions
};

struct VerifyResult {
  bool ok = true;
  std::vector<std::string> errors;  // "Corrupt records: N" or the index messages
  DocStats stats;
};

struct RepairResult {
  std::size_t quarantined = 0;
  IndexHooks::ReindexResult reindexed;
};

class BatchWriter;  // doc_store_bulk.cpp

class DocStore {
 public:
  // Opens (creating on first write) <root>/<collection> (section 4.3): validates the
  // options, runs the open-time temp sweep, creates the index hooks. Cheap: one listing
  // of .storh/writers and one stat of data/. Throws StoreError.
  DocStore(std::filesystem::path root, std::string collection, DocStoreOptions options = {});
  ~DocStore();
  DocStore(const DocStore&) = delete;
  DocStore& operator=(const DocStore&) = delete;

  // ---- Single-record operations -------------------------------------------------
  // Writes `data` under `id` (generated when absent; a supplied id must be a valid
  // UUIDv7). Durable before it returns. Returns the stored record.
  Record put(Json data, std::optional<std::string> id = std::nullopt);
  // The record, or nullopt when absent. Validates `id`.
  std::optional<Record> get(std::string_view id);
  // Same as get without copying the data: null when absent.
  SharedJson find(std::string_view id);
  // Deletes the record (not an error when absent); returns whether a file was removed.
  bool remove(std::string_view id);

  // ---- Bulk writes (one lock for the whole call) --------------------------------------
  // Rows follow the envelope rules of section 1.1. put_many syncs each record on its
  // own, like put; put_stream and import_jsonl use the bulk protocol above.
  std::vector<Record> put_many(std::vector<Json> rows);
  std::size_t put_stream(RowSource next_row);
  std::size_t put_stream(std::vector<Json> rows);
  // Section 4.4 importJsonl; discards the in-process caches. Returns the record count.
  std::size_t import_jsonl(const std::filesystem::path& path);
  // Section 4.4 exportJsonl (not atomic, not fsynced, as in storh). Returns the count.
  std::size_t export_jsonl(const std::filesystem::path& path);

  // ---- Scans (ascending id order) -------------------------------------------------
  // Every record matching `query` (after, time range, equality filters, limit), from
  // memory when the fast path is valid, else from disk. Never uses secondary indexes.
  void scan(const RecordQuery& query, ScanCallback callback, const ScanErrorHandler& on_error = {});
  // Same as scan; storh's name.
  void stream(const RecordQuery& query, ScanCallback callback,
              const ScanErrorHandler& on_error = {}) {
    scan(query, callback, on_error);
  }
  // Materialised scan.
  std::vector<Record> stream_all(const RecordQuery& query = RecordQuery::all());
  // The same records with their data shared, not copied.
  std::vector<SharedRecord> stream_shared(const RecordQuery& query = RecordQuery::all());
  // Every record file read from disk, bypassing and not touching the caches (reindex,
  // repair, verify). Ascending id order.
  void scan_disk(ScanCallback callback, const ScanErrorHandler& on_error = {});
  // The first record matching `query`, or nullopt (scan with an early stop).
  std::optional<Record> first(const RecordQuery& query = RecordQuery::all());
  // Whether the fast path may be used now (complete caches that pass revalidation).
  // Costs the revalidation (STAT: a directory walk and one stat per record).
  bool fast_path_valid();
  // The record count when the fast path is valid (revalidating once), else nullopt.
  std::optional<std::size_t> fast_count();
  // Number of records matching `query` (honouring its limit): fast path or disk.
  std::size_t count(const RecordQuery& query = RecordQuery::all());
  // Ids of every record file on disk, sorted (storh's record_paths()). TRUST returns
  // the cached list when the caches are complete.
  std::vector<std::string> record_ids();

  // ---- Maintenance ---------------------------------------------------------------
  DocStats stats();
  VerifyResult verify();
  // Under the lock: unconditional temp sweep, quarantine unreadable records into
  // .storh/corrupt/, reindex.
  RepairResult repair();
  // Rebuilds the indexes from disk, then clears the in-process caches and the
  // doc:<collection>: prefix of the shared cache.
  IndexHooks::ReindexResult reindex();
  // A no-op apart from the stats scan; returns stats().records.
  std::size_t compact();
  // The record path of `id`; drops every in-process cache (storh's pathForId).
  std::filesystem::path path_for_id(std::string_view id);
  // The record path of `id`, no side effects (`id` is not validated).
  std::filesystem::path record_path(std::string_view id) const;
  // Forgets every in-process cache (they become "unknown": slow path until reopen).
  void drop_caches();

  // ---- For the index side ----------------------------------------------------------
  // The collection write lock. Hold a FileLock::Guard on it around index maintenance
  // that must not interleave with writers; re-entrant within this instance. Taking it
  // registers this instance's writer marker.
  FileLock& write_lock();
  IndexHooks& indexes();
  // NOTIFY's watch of .storh/indexes/ (no-ops in other modes and after a fallback).
  // drain_changes() drains it, as every public call does first: foreign changes of index
  // files reach IndexHooks::index_changed. index_watch() says which cached index entries
  // it vouches for (index_hooks.h), without draining.
  void drain_changes();
  IndexWatchTicks index_watch() const noexcept;
  // This instance just renamed a file onto `path` (removed = false) or unlinked it (true)
  // under .storh/indexes/, and nothing drained since: the event that queued is its own,
  // so what it cached for `path` stays trusted.
  void own_index_change(const std::string& path, bool removed);

  // ---- Accessors ---------------------------------------------------------------
  const std::filesystem::path& root() const noexcept;
  const std::string& collection() const noexcept;
  // <root>/<collection>
  const std::filesystem::path& collection_path() const noexcept;
  Validation validation() const noexcept;
  Sync sync() const noexcept;
  const std::optional<Schema>& schema() const noexcept;
  // xxh128 of the collection path: the shared cache scope.
  const std::string& cache_scope() const noexcept;
  // "<pid>.<hex8>": this instance's temp prefix and marker name.
  const std::string& writer_prefix() const noexcept;
  const std::shared_ptr<MemoryCache>& shared_cache() const noexcept;
  // Entries in the in-process record cache (for memory reports and tests).
  std::size_t cached_records() const noexcept;
  // NOTIFY only: empty while the watches work (or are not set up yet); once they could not
  // be set, why ("inotify_add_watch <path>: <reason>"), and the store validates as STAT
  // from then on. Set once, never cleared.
  const std::string& notify_fallback_reason() const noexcept;
  // NOTIFY only: whether the next call skips its drain because the bell says nothing was
  // queued since a drain found the queue empty (change_bell.h; false where io_uring is
  // unavailable, and on a thread other than the one whose first call set the watches).
  bool notify_quiet() const noexcept;

 private:
  friend class BatchWriter;
  struct State;
  // The slow path of scan and all of scan_disk: list data/, then read and parse each file
  // that passes `query`'s id filter, in ascending id order, bypassing every cache.
  void scan_files(const RecordQuery& query, ScanCallback callback,
                  const ScanErrorHandler& on_error);
  std::unique_ptr<State> state_;
};

}  // namespace storh::engines::doc
