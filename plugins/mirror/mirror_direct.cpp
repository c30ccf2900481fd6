#include "mirror/mirror_direct.h"

#include <algorithm>
#include <stdexcept>
#include <system_error>

#include <fmt/format.h>

#include "mirror/sqlite.h"

namespace storh::engines::mirror {
namespace {

struct Finalize {
  void operator()(sqlite3_stmt* stmt) const noexcept { sqlite3_finalize(stmt); }
};
using Stmt = std::unique_ptr<sqlite3_stmt, Finalize>;

[[noreturn]] void fail_at(sqlite3* db, const std::filesystem::path& path, std::string_view what) {
  throw std::runtime_error(fmt::format("{} ({}): {}", what, path.string(),
                                       db != nullptr ? sqlite3_errmsg(db) : "out of memory"));
}

Stmt prepare_at(sqlite3* db, const std::filesystem::path& path, const std::string& sql) {
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db, sql.c_str(), static_cast<int>(sql.size()), &stmt, nullptr) !=
      SQLITE_OK) {
    fail_at(db, path, "prepare " + sql);
  }
  return Stmt(stmt);
}

}  // namespace

DirectTable::DirectTable(const std::filesystem::path& source, const TableLayout& layout)
    : insert_sql_(layout.insert_sql()),
      delete_sql_(layout.delete_one_sql()),
      count_sql_("SELECT COUNT(*) FROM " + layout.quoted_table()) {
  schema_.push_back(layout.create_table_sql());
  indexes_ = layout.indexes();
  for (const TableLayout::Index& index : indexes_) schema_.push_back(index.create_sql);

  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(source.c_str(), &raw, SQLITE_OPEN_READONLY, nullptr);
  const std::unique_ptr<sqlite3, CloseDb> db(raw);
  if (rc != SQLITE_OK) fail_at(raw, source, "open");
  // The layout's columns in insert_sql()'s order, whatever the table's own order; a
  // column the table lacks fails the prepare, in SQLite's words. Not by default: SQLite
  // reads a double-quoted name that is no column as a string literal, unless told not to.
  if (sqlite3_db_config(raw, SQLITE_DBCONFIG_DQS_DML, 0, nullptr) != SQLITE_OK) {
    fail_at(raw, source, "turn off double-quoted strings");
  }
  Stmt select = prepare_at(raw, source, layout.select_rows_sql());
  // select_rows_sql() lists insert_sql()'s columns: one value per INSERT parameter.
  const int columns = sqlite3_column_count(select.get());
  columns_ = static_cast<std::size_t>(columns);
  int step = SQLITE_ROW;
  while ((step = sqlite3_step(select.get())) == SQLITE_ROW) {
    for (int c = 0; c < columns; ++c) {
      Value value(sqlite3_value_dup(sqlite3_column_value(select.get(), c)));
      if (!value) throw std::bad_alloc();
      values_.push_back(std::move(value));
    }
  }
  if (step != SQLITE_DONE) fail_at(raw, source, "read " + layout.quoted_table());
}

void DirectTable::create(const std::filesystem::path& path, std::string_view journal_mode) {
  db_.reset();
  path_ = path;
  for (const char* suffix : {"", "-journal", "-wal", "-shm"}) {
    std::error_code ignored;
    std::filesystem::remove(path.string() + suffix, ignored);
  }
  sqlite3* raw = nullptr;
  const int rc =
      sqlite3_open_v2(path.c_str(), &raw,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  db_.reset(raw);
  if (rc != SQLITE_OK) fail("open");
  Stmt mode = prepare_at(raw, path, fmt::format("PRAGMA journal_mode = {}", journal_mode));
  if (sqlite3_step(mode.get()) != SQLITE_ROW ||
      std::string_view(reinterpret_cast<const char*>(sqlite3_column_text(mode.get(), 0))) !=
          journal_mode) {
    fail(fmt::format("journal_mode {}", journal_mode));
  }
  mode.reset();
  exec(kPageCacheSql);
  exec("BEGIN IMMEDIATE");
  for (const std::string& sql : schema_) exec(sql);
  exec("COMMIT");
  empty_ = true;
}

// Binds one row's values to an INSERT prepared from insert_sql_.
void DirectTable::bind_row(sqlite3_stmt* insert, std::uint64_t row) const {
  const Value* values = values_.data() + row * columns_;
  for (std::size_t c = 0; c < columns_; ++c) {
    sqlite3_bind_value(insert, static_cast<int>(c) + 1, values[c].get());
  }
}

std::uint64_t DirectTable::insert_all() {
  exec("BEGIN IMMEDIATE");
  const bool deferred = empty_;
  if (deferred) {
    for (const TableLayout::Index& index : indexes_) exec(index.drop_sql);
  }
  Stmt insert = prepare_at(db_.get(), path_, insert_sql_);
  for (std::uint64_t r = 0; r < rows(); ++r) {
    bind_row(insert.get(), r);
    if (sqlite3_step(insert.get()) != SQLITE_DONE) fail("insert");
    sqlite3_reset(insert.get());
  }
  insert.reset();
  if (deferred) {
    for (const TableLayout::Index& index : indexes_) exec(index.create_sql);
  }
  exec("COMMIT");
  empty_ = false;
  return rows();
}

std::uint64_t DirectTable::reinsert_first(std::uint64_t d) {
  exec("BEGIN IMMEDIATE");
  Stmt insert = prepare_at(db_.get(), path_, insert_sql_);
  Stmt remove = prepare_at(db_.get(), path_, delete_sql_);
  std::uint64_t deleted = 0;
  for (std::uint64_t r = 0; r < std::min(d, rows()); ++r) {
    sqlite3_bind_value(remove.get(), 1, values_[r * columns_].get());  // the id
    if (sqlite3_step(remove.get()) != SQLITE_DONE) fail("delete");
    deleted += static_cast<std::uint64_t>(sqlite3_changes(db_.get()));
    sqlite3_reset(remove.get());
    bind_row(insert.get(), r);
    if (sqlite3_step(insert.get()) != SQLITE_DONE) fail("insert");
    sqlite3_reset(insert.get());
  }
  insert.reset();
  remove.reset();
  exec("COMMIT");
  return deleted;
}

std::int64_t DirectTable::count() {
  if (!db_) throw std::logic_error("DirectTable: create() comes first");
  Stmt stmt = prepare_at(db_.get(), path_, count_sql_);
  if (sqlite3_step(stmt.get()) != SQLITE_ROW) fail("count");
  return sqlite3_column_int64(stmt.get(), 0);
}

void DirectTable::exec(const std::string& sql) {
  if (!db_) throw std::logic_error("DirectTable: create() comes first");
  if (sqlite3_exec(db_.get(), sql.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) fail(sql);
}

void DirectTable::fail(std::string_view what) const {
  fail_at(db_.get(), path_, what);
}

}  // namespace storh::engines::mirror
