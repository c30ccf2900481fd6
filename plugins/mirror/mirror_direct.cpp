#include "mirror/mirror_direct.h"

#include <algorithm>
#include <stdexcept>
#include <system_error>

#include <fmt/format.h>

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

std::string quote(std::string_view name) {
  std::string out("\"");
  for (const char c : name) {
    out += c;
    if (c == '"') out += '"';
  }
  out += '"';
  return out;
}

}  // namespace

DirectTable::DirectTable(const std::filesystem::path& source, std::string_view table)
    : quoted_table_(quote(table)) {
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(source.c_str(), &raw, SQLITE_OPEN_READONLY, nullptr);
  const std::unique_ptr<sqlite3, CloseDb> db(raw);
  if (rc != SQLITE_OK) fail_at(raw, source, "open");

  // The table's CREATE TABLE, then its CREATE INDEX statements (the primary key's
  // automatic index has no text and comes with the table).
  Stmt schema = prepare_at(raw, source,
                           "SELECT sql FROM sqlite_master WHERE tbl_name = ?1 AND sql IS NOT NULL"
                           " ORDER BY type = 'index', rowid");
  sqlite3_bind_text(schema.get(), 1, table.data(), static_cast<int>(table.size()),
                    SQLITE_TRANSIENT);
  while (sqlite3_step(schema.get()) == SQLITE_ROW) {
    schema_.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(schema.get(), 0)));
  }
  if (schema_.empty()) fail_at(raw, source, fmt::format("no table {}", quoted_table_));

  Stmt select = prepare_at(raw, source, "SELECT * FROM " + quoted_table_ + " ORDER BY rowid");
  columns_ = sqlite3_column_count(select.get());
  id_column_ = -1;
  for (int c = 0; c < columns_; ++c) {
    if (std::string_view(sqlite3_column_name(select.get(), c)) == "id") id_column_ = c;
  }
  if (id_column_ < 0) fail_at(raw, source, fmt::format("{} has no id column", quoted_table_));
  int step = SQLITE_ROW;
  while ((step = sqlite3_step(select.get())) == SQLITE_ROW) {
    for (int c = 0; c < columns_; ++c) {
      Value value(sqlite3_value_dup(sqlite3_column_value(select.get(), c)));
      if (!value) throw std::bad_alloc();
      values_.push_back(std::move(value));
    }
    ++rows_;
  }
  if (step != SQLITE_DONE) fail_at(raw, source, "read " + quoted_table_);
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
  exec("BEGIN IMMEDIATE");
  for (const std::string& sql : schema_) exec(sql);
  exec("COMMIT");
}

std::string DirectTable::insert_sql() const {
  std::string sql = "INSERT INTO " + quoted_table_ + " VALUES (?";
  for (int c = 1; c < columns_; ++c) sql += ", ?";
  sql += ')';
  return sql;
}

std::uint64_t DirectTable::insert_all() {
  exec("BEGIN IMMEDIATE");
  Stmt insert = prepare_at(db_.get(), path_, insert_sql());
  for (std::uint64_t r = 0; r < rows_; ++r) {
    const Value* row = values_.data() + r * static_cast<std::uint64_t>(columns_);
    for (int c = 0; c < columns_; ++c) sqlite3_bind_value(insert.get(), c + 1, row[c].get());
    if (sqlite3_step(insert.get()) != SQLITE_DONE) fail("insert");
    sqlite3_reset(insert.get());
  }
  insert.reset();
  exec("COMMIT");
  return rows_;
}

std::uint64_t DirectTable::reinsert_first(std::uint64_t d) {
  exec("BEGIN IMMEDIATE");
  Stmt insert = prepare_at(db_.get(), path_, insert_sql());
  Stmt remove = prepare_at(db_.get(), path_, "DELETE FROM " + quoted_table_ + " WHERE \"id\" = ?");
  std::uint64_t deleted = 0;
  for (std::uint64_t r = 0; r < std::min(d, rows_); ++r) {
    const Value* row = values_.data() + r * static_cast<std::uint64_t>(columns_);
    sqlite3_bind_value(remove.get(), 1, row[id_column_].get());
    if (sqlite3_step(remove.get()) != SQLITE_DONE) fail("delete");
    deleted += static_cast<std::uint64_t>(sqlite3_changes(db_.get()));
    sqlite3_reset(remove.get());
    for (int c = 0; c < columns_; ++c) sqlite3_bind_value(insert.get(), c + 1, row[c].get());
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
  Stmt stmt = prepare_at(db_.get(), path_, "SELECT COUNT(*) FROM " + quoted_table_);
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
