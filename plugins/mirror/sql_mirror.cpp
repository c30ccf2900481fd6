#include "mirror/sql_mirror.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <unordered_set>
#include <utility>

#include "common/canonical_json.h"
#include "common/fast_json.h"
#include "common/hashes.h"
#include "common/store_error.h"
#include "common/uuid_v7.h"
#include "doc/doc_store.h"

namespace storh::engines::mirror {
namespace {

// The (id, hash) pairs of a table sorted by id, in one arena (no allocation per row).
// Lookups from an ascending scan (the store's order) walk the entries once; any other
// order falls back to binary search.
class RowHashes {
 public:
  static constexpr std::size_t kNotFound = static_cast<std::size_t>(-1);

  RowHashes(Database& db, const TableLayout& layout) {
    Statement select = db.prepare(layout.select_hashes_sql(), false, "select_hashes");
    while (select.step()) {
      const std::string_view id = select.column_text(0);
      const std::string_view hash = select.column_text(1);
      entries_.push_back(Entry{arena_.size(), id.size(), hash.size()});
      arena_ += id;
      arena_ += hash;
    }
    auto less = [this](const Entry& a, const Entry& b) { return id_of(a) < id_of(b); };
    if (!std::is_sorted(entries_.begin(), entries_.end(), less)) {
      std::sort(entries_.begin(), entries_.end(), less);
    }
    seen_.assign(entries_.size(), false);
  }

  std::size_t size() const noexcept { return entries_.size(); }

  // The index of `id`, or kNotFound.
  std::size_t find(std::string_view id) {
    std::size_t pos;
    if (cursor_ > 0 && id_of(entries_[cursor_ - 1]) >= id) {
      pos = static_cast<std::size_t>(std::lower_bound(entries_.begin(), entries_.end(), id,
                                                      [this](const Entry& e, std::string_view key) {
                                                        return id_of(e) < key;
                                                      }) -
                                     entries_.begin());
    } else {
      while (cursor_ < entries_.size() && id_of(entries_[cursor_]) < id) ++cursor_;
      pos = cursor_;
    }
    return pos < entries_.size() && id_of(entries_[pos]) == id ? pos : kNotFound;
  }

  std::string_view hash(std::size_t index) const noexcept {
    const Entry& e = entries_[index];
    return std::string_view(arena_).substr(e.offset + e.id_size, e.hash_size);
  }
  std::string_view id(std::size_t index) const noexcept { return id_of(entries_[index]); }
  void mark_seen(std::size_t index) noexcept { seen_[index] = true; }
  bool seen(std::size_t index) const noexcept { return seen_[index]; }

 private:
  struct Entry {
    std::size_t offset;
    std::size_t id_size;
    std::size_t hash_size;
  };
  std::string_view id_of(const Entry& e) const noexcept {
    return std::string_view(arena_).substr(e.offset, e.id_size);
  }

  std::string arena_;
  std::vector<Entry> entries_;
  std::vector<bool> seen_;
  std::size_t cursor_ = 0;
};

// Canonical JSON and its xxh128, computed into reused buffers.
struct Encoded {
  std::string canonical;
  std::string hash;
  void encode(const Json& data) {
    canonical.clear();
    append_compact(canonical, data);
    hash = xxh128_hex(canonical);
  }
};

// `ids` are sorted (they come from RowHashes).
void delete_in_chunks(Database& db, const TableLayout& layout,
                      const std::vector<std::string_view>& ids) {
  std::optional<Statement> full;
  for (std::size_t start = 0; start < ids.size(); start += SqlMirror::kDeleteChunk) {
    const std::size_t count = std::min(SqlMirror::kDeleteChunk, ids.size() - start);
    Statement partial;
    Statement* stmt = nullptr;
    if (count == SqlMirror::kDeleteChunk) {
      if (!full) full = db.prepare(layout.delete_in_sql(count), true, "delete_in");
      stmt = &*full;
    } else {
      partial = db.prepare(layout.delete_in_sql(count), false, "delete_in");
      stmt = &partial;
    }
    for (std::size_t i = 0; i < count; ++i) {
      stmt->bind_text(static_cast<int>(i + 1), ids[start + i]);
    }
    stmt->run();
  }
}

// A push into an empty table (the first sync of a store, a rebuild) inserts its rows
// without the layout's secondary indexes and makes them afterwards, inside the push's
// transaction: SQLite then builds each index by sorting its keys once instead of
// inserting every row into every index. Only indexes exactly as install() makes them
// (name, table and the text SQLite keeps for them) are dropped and made again, so the
// schema afterwards is what it was; any other index stays and is kept row by row. A
// failure rolls the drops back with everything else.
class DeferredIndexes {
 public:
  DeferredIndexes(Database& db, const TableLayout& layout) : db_(db) {
    Statement stored = db.prepare(TableLayout::kStoredIndexSql);
    for (TableLayout::Index& index : layout.indexes()) {
      stored.bind_text(1, index.name);
      stored.bind_text(2, layout.table());
      const bool as_installed = stored.step() && stored.column_type(0) == SqlType::text &&
                                stored.column_text(0) == index.stored_sql;
      stored.reset();
      if (!as_installed) continue;
      db.exec(index.drop_sql);
      dropped_.push_back(std::move(index.create_sql));
    }
  }
  // Makes the dropped indexes again: a UNIQUE one fails here on a duplicate value, with
  // SQLite's "UNIQUE constraint failed: <table>.<column>", as the INSERT would have.
  void restore() {
    for (const std::string& sql : dropped_) db_.exec(sql);
    dropped_.clear();
  }

 private:
  Database& db_;
  std::vector<std::string> dropped_;
};

[[noreturn]] void corrupt_row(const TableLayout& layout, std::string_view id,
                              std::string_view problem) {
  std::string message("SQL mirror row ");
  message += id.empty() ? std::string_view("(no id)") : id;
  message += " in ";
  message += layout.table();
  message += ' ';
  message += problem;
  throw StoreError(message);
}

}  // namespace

PushResult& PushResult::operator+=(const PushResult& other) {
  inserted += other.inserted;
  updated += other.updated;
  deleted += other.deleted;
  unchanged += other.unchanged;
  return *this;
}

PullResult& PullResult::operator+=(const PullResult& other) {
  written += other.written;
  unchanged += other.unchanged;
  return *this;
}

SqlMirror::SqlMirror(Database& db, std::string prefix) : db_(db), prefix_(std::move(prefix)) {
  validate_prefix(prefix_);
}

SqlMirror& SqlMirror::collection(doc::DocStore& store, std::string name,
                                 const std::optional<Schema>& schema) {
  TableLayout layout(prefix_, std::move(name), schema);
  for (const Entry& existing : entries_) {
    if (existing.layout.collection() == layout.collection()) {
      throw StoreError(
          fmt::format("SQL mirror collection is already registered: \"{}\"", layout.collection()));
    }
    if (existing.layout.table() == layout.table()) {
      throw StoreError(
          fmt::format("SQL mirror collections \"{}\" and \"{}\" map to the same table {}",
                      existing.layout.collection(), layout.collection(), layout.table()));
    }
  }
  entries_.push_back(Entry{&store, std::move(layout)});
  return *this;
}

SqlMirror::Entry& SqlMirror::entry(std::string_view name) {
  return const_cast<Entry&>(std::as_const(*this).entry(name));
}

const SqlMirror::Entry& SqlMirror::entry(std::string_view name) const {
  for (const Entry& e : entries_) {
    if (e.layout.collection() == name) return e;
  }
  std::string message("SQL mirror collection is not registered: \"");
  message += name;
  message += '"';
  throw StoreError(message);
}

const std::string& SqlMirror::table(std::string_view name) const {
  return entry(name).layout.table();
}

const TableLayout& SqlMirror::layout(std::string_view name) const {
  return entry(name).layout;
}

std::vector<std::string> SqlMirror::collections() const {
  std::vector<std::string> names;
  for (const Entry& e : entries_) names.push_back(e.layout.collection());
  return names;
}

void SqlMirror::install() {
  Transaction tx(db_);
  for (const Entry& e : entries_) {
    db_.exec(e.layout.create_table_sql());
    for (const std::string& sql : e.layout.create_index_sql()) db_.exec(sql);
  }
  tx.commit();
}

void SqlMirror::uninstall() {
  for (const Entry& e : entries_) db_.exec(e.layout.drop_table_sql());
}

PushResult SqlMirror::push(std::string_view name) {
  return push_entry(entry(name));
}

PushResult SqlMirror::push() {
  PushResult total;
  for (Entry& e : entries_) total += push_entry(e);
  return total;
}

PushResult SqlMirror::push_entry(Entry& e) {
  const TableLayout& layout = e.layout;
  PushResult result;
  Transaction tx(db_);
  RowHashes existing(db_, layout);
  std::optional<DeferredIndexes> deferred;
  if (existing.size() == 0) deferred.emplace(db_, layout);
  Statement insert = db_.prepare(layout.insert_sql(), true, "insert");
  Statement remove = db_.prepare(layout.delete_one_sql(), true, "delete_one");
  Encoded row;
  e.store->scan(RecordQuery::all(), [&](const doc::RecordView& record) {
    row.encode(*record.data);
    const std::size_t found = existing.find(record.id);
    if (found != RowHashes::kNotFound) {
      existing.mark_seen(found);
      if (existing.hash(found) == row.hash) {
        ++result.unchanged;
        return true;
      }
      remove.bind_text(1, record.id);
      remove.run();
      ++result.updated;
    } else {
      ++result.inserted;
    }
    layout.bind_insert(insert, record.id, row.hash, *record.data, row.canonical);
    insert.run();
    return true;
  });
  std::vector<std::string_view> leftovers;
  for (std::size_t i = 0; i < existing.size(); ++i) {
    if (!existing.seen(i)) leftovers.push_back(existing.id(i));
  }
  delete_in_chunks(db_, layout, leftovers);
  result.deleted = leftovers.size();
  if (deferred) deferred->restore();
  // Statements are reset; COMMIT needs no statement to be mid-step.
  tx.commit();
  return result;
}

FlushResult SqlMirror::flush(std::string_view name, const std::vector<std::string>& ids) {
  Entry& e = entry(name);
  const TableLayout& layout = e.layout;
  FlushResult result;
  Transaction tx(db_);
  Statement insert = db_.prepare(layout.insert_sql(), false, "insert");
  Statement remove = db_.prepare(layout.delete_one_sql(), false, "delete_one");
  std::unordered_set<std::string_view> seen;
  Encoded row;
  for (const std::string& id : ids) {
    if (!seen.insert(id).second) continue;
    doc::SharedJson data = e.store->find(id);
    remove.bind_text(1, id);
    remove.run();
    if (!data) {
      ++result.deleted;
      continue;
    }
    row.encode(*data);
    layout.bind_insert(insert, id, row.hash, *data, row.canonical);
    insert.run();
    ++result.upserted;
  }
  tx.commit();
  return result;
}

PushResult SqlMirror::rebuild(std::string_view name) {
  Entry& e = entry(name);
  db_.exec(e.layout.delete_all_sql());
  return push_entry(e);
}

PushResult SqlMirror::rebuild() {
  PushResult total;
  for (Entry& e : entries_) {
    db_.exec(e.layout.delete_all_sql());
    total += push_entry(e);
  }
  return total;
}

PullResult SqlMirror::pull(std::string_view name) {
  return pull_entry(entry(name));
}

PullResult SqlMirror::pull() {
  PullResult total;
  for (Entry& e : entries_) total += pull_entry(e);
  return total;
}

PullResult SqlMirror::pull_entry(Entry& e) {
  const TableLayout& layout = e.layout;
  PullResult result;
  std::vector<Json> batch;
  auto write_batch = [&] {
    if (batch.empty()) return;
    result.written += e.store->put_stream(std::move(batch));
    batch.clear();
  };
  Statement select = db_.prepare(layout.select_data_sql(), false, "select_data");
  std::string stored;
  std::string canonical;
  try {
    while (select.step()) {
      if (select.column_type(0) != SqlType::text) corrupt_row(layout, "", "has no text id");
      std::string id(select.column_text(0));
      if (!uuid_v7::is_valid(id)) corrupt_row(layout, id, "has an invalid UUIDv7 id");
      if (select.column_type(1) != SqlType::text) corrupt_row(layout, id, "has no text data");
      Json data = parse_json(select.column_text(1));
      if (data.is_discarded() || !(data.is_object() || data.is_array())) {
        corrupt_row(layout, id, "has data that is not a JSON object or array");
      }
      if (doc::SharedJson current = e.store->find(id)) {
        canonical.clear();
        append_compact(canonical, data);
        stored.clear();
        append_compact(stored, *current);
        if (stored == canonical) {
          ++result.unchanged;
          continue;
        }
      }
      Json row = Json::object();
      row["id"] = std::move(id);
      row["data"] = std::move(data);
      batch.push_back(std::move(row));
      if (batch.size() >= pull_batch_) write_batch();
    }
  } catch (...) {
    // pull is not transactional: the rows before the failure are restored.
    write_batch();
    throw;
  }
  write_batch();
  return result;
}

MirrorVerifyResult SqlMirror::verify() {
  MirrorVerifyResult out;
  for (Entry& e : entries_) {
    CollectionCheck check = verify_entry(e);
    auto report = [&](std::size_t count, std::string_view what) {
      if (count == 0) return;
      std::string message = e.layout.collection();
      message += ": ";
      message += std::to_string(count);
      message += ' ';
      message += what;
      message += ' ';
      message += e.layout.table();
      out.errors.push_back(std::move(message));
    };
    report(check.missing, "records missing from");
    report(check.stale, "stale rows in");
    report(check.orphaned, "orphaned rows in");
    out.stats.push_back(std::move(check));
  }
  out.ok = out.errors.empty();
  return out;
}

CollectionCheck SqlMirror::verify_entry(Entry& e) {
  CollectionCheck check;
  check.collection = e.layout.collection();
  RowHashes rows(db_, e.layout);
  check.rows = rows.size();
  Encoded row;
  e.store->scan(RecordQuery::all(), [&](const doc::RecordView& record) {
    ++check.records;
    const std::size_t found = rows.find(record.id);
    if (found == RowHashes::kNotFound) {
      ++check.missing;
      return true;
    }
    rows.mark_seen(found);
    row.encode(*record.data);
    if (rows.hash(found) != row.hash) ++check.stale;
    return true;
  });
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (!rows.seen(i)) ++check.orphaned;
  }
  return check;
}

}  // namespace storh::engines::mirror
