// sql_mirror.h: storh's SqlMirror (engine-spec.md section 8) over SQLite: pushes document
// collections (doc::DocStore) into one table each and restores them from it.
//
//   mirror::Database db(dir / "mirror.db");
//   mirror::SqlMirror sql(db, "bench_");
//   sql.collection(store, "docs", schema);     // table bench_docs
//   sql.install();
//   auto pushed = sql.push("docs");             // {inserted, updated, deleted, unchanged}
//
// Table layout and row values: table_layout.h. Change detection is hash-only: a push
// streams the whole store, hashes each record's canonical JSON (xxh128) and compares it
// with the row's hash column; nothing else (no mtimes, no change log) is consulted.
//
// TRANSACTIONS AND FAILURE. push and flush run in one explicit transaction (BEGIN
// IMMEDIATE) per collection: on any error (a unique violation, a store read error, an
// SQLite error) they roll back and rethrow, so a failed call leaves the table exactly as
// it was. rebuild deletes every row in its own autocommit statement, then pushes (a
// failed push after it leaves the table empty, as in storh). pull is not transactional
// on the store side: records restored before an error stay restored. Errors are
// StoreError; SQLite's reasons arrive as "SQL mirror statement failed: <reason> (<sql>)".
//
// DURABILITY. SQLite commits with the connection's settings (the defaults: rollback
// journal, synchronous FULL, so a committed push is durable). pull writes through the
// store's bulk path (DocStore::put_stream): every restored record is durable (per the
// store's Sync) before pull returns.
//
// LIFETIME AND THREADS. The mirror keeps references to the Database and to every
// registered DocStore; they must outlive it. Not thread-safe (neither are they).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/schema.h"
#include "mirror/sqlite.h"
#include "mirror/table_layout.h"

namespace storh::engines::doc {
class DocStore;
}

namespace storh::engines::mirror {

struct PushResult {
  std::size_t inserted = 0;
  std::size_t updated = 0;
  std::size_t deleted = 0;
  std::size_t unchanged = 0;
  PushResult& operator+=(const PushResult& other);
  bool operator==(const PushResult&) const = default;
};

struct FlushResult {
  std::size_t upserted = 0;
  std::size_t deleted = 0;
  bool operator==(const FlushResult&) const = default;
};

struct PullResult {
  std::size_t written = 0;
  std::size_t unchanged = 0;
  PullResult& operator+=(const PullResult& other);
  bool operator==(const PullResult&) const = default;
};

// verify(): one entry per collection.
struct CollectionCheck {
  std::string collection;
  std::size_t records = 0;   // records in the store
  std::size_t rows = 0;      // rows in the table
  std::size_t missing = 0;   // records without a row
  std::size_t stale = 0;     // rows whose hash differs from the record's
  std::size_t orphaned = 0;  // rows without a record
};

struct MirrorVerifyResult {
  bool ok = true;
  std::vector<std::string> errors;  // one per non-zero category, naming collection and table
  std::vector<CollectionCheck> stats;
};

class SqlMirror {
 public:
  // Rows per durable store batch in pull (each batch is one DocStore::put_stream call).
  static constexpr std::size_t kDefaultPullBatch = 4096;
  // Leftover rows deleted per DELETE ... IN (...) statement in push.
  static constexpr std::size_t kDeleteChunk = 500;

  // `prefix` must match [A-Za-z0-9_]* (StoreError otherwise).
  explicit SqlMirror(Database& db, std::string prefix = "storh_");

  // Registers `store` as collection `name` (table prefix + name, '-' -> '_'). Throws
  // StoreError on an invalid name or schema (table_layout.h), a duplicate name or a
  // table-name collision. No SQL runs until install/push/...
  SqlMirror& collection(doc::DocStore& store, std::string name,
                        const std::optional<Schema>& schema = std::nullopt);

  // CREATE TABLE / INDEX IF NOT EXISTS for every collection (one transaction).
  void install();
  // DROP TABLE IF EXISTS for every collection.
  void uninstall();

  // Section 8 push for one collection, or summed over all of them (each in its own
  // transaction, in registration order). Into an empty table (a first push, a rebuild)
  // the layout's secondary indexes are dropped and made again after the rows, inside
  // that transaction: SQLite builds them by sorting, and the schema afterwards is the
  // same (see DeferredIndexes in sql_mirror.cpp).
  PushResult push(std::string_view name);
  PushResult push();
  // For each distinct id in the given order: DELETE its row, then INSERT the record if
  // the store has it (upserted), else count it deleted. One transaction.
  FlushResult flush(std::string_view name, const std::vector<std::string>& ids);
  // DELETE FROM the table (autocommit), then push: every record counts as inserted.
  PushResult rebuild(std::string_view name);
  PushResult rebuild();
  // Restores records from the table (ORDER BY id): a row whose canonical data equals
  // the store's record is unchanged, any other is written (a normal put: schema and
  // unique checks apply). Never deletes records; ignores typed columns. A row with a
  // non-text or invalid UUIDv7 id, or data that is not a JSON object or array, stops
  // the pull with a StoreError naming the table and the id (after the rows before it
  // are written).
  PullResult pull(std::string_view name);
  PullResult pull();
  // Compares every store with its table (records, rows, missing, stale, orphaned).
  MirrorVerifyResult verify();

  // The table name of a registered collection (StoreError when unknown).
  const std::string& table(std::string_view name) const;
  const TableLayout& layout(std::string_view name) const;
  std::vector<std::string> collections() const;

  void set_pull_batch(std::size_t rows) { pull_batch_ = rows == 0 ? 1 : rows; }
  Database& database() noexcept { return db_; }

 private:
  struct Entry {
    doc::DocStore* store;
    TableLayout layout;
  };
  Entry& entry(std::string_view name);
  const Entry& entry(std::string_view name) const;
  PushResult push_entry(Entry& entry);
  PullResult pull_entry(Entry& entry);
  CollectionCheck verify_entry(Entry& entry);

  Database& db_;
  std::string prefix_;
  std::vector<Entry> entries_;
  std::size_t pull_batch_ = kDefaultPullBatch;
};

}  // namespace storh::engines::mirror
