// mirror_direct.h: the SQL that the mirror's writes amount to, through a bare sqlite3
// handle and nothing else, so that push, rebuild and flush read against what SQLite alone
// costs on this machine in the same run (as query reads against query_direct).
//
// A DirectTable is a copy of one mirror table, taken after a push: the table's layout (the
// same CREATE TABLE, CREATE INDEX, INSERT and DELETE text SqlMirror runs) and every row's
// column values, in rowid order. It then writes them into a database of its own, with the
// same journal mode and page cache (kPageCacheSql) and SQLite's other defaults
// (synchronous FULL), through the C API: one
// prepared statement per kind of change and one immediate transaction, as SqlMirror does,
// without the document store, the canonical encoding or the row hashes.
//
// Errors throw std::runtime_error naming the database and SQLite's message.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "mirror/sqlite.h"
#include "mirror/table_layout.h"

namespace storh::engines::mirror {

class DirectTable {
 public:
  // Reads the rows of `layout`'s table from the database at `source` (read-only): the
  // layout's columns, by name, in its order. Throws when the table or one of those
  // columns is missing.
  DirectTable(const std::filesystem::path& source, const TableLayout& layout);

  // Creates an empty database at `path` (replacing any file there) with `journal_mode`
  // and the table's schema, and keeps it open for the calls below.
  void create(const std::filesystem::path& path, std::string_view journal_mode);
  // INSERTs every row in one transaction. Returns the rows inserted. Into the empty copy
  // (the first call after create()) it does what SqlMirror's push into an empty table
  // does: drops the layout's secondary indexes, inserts, makes them again, all in that
  // transaction (create() made them from the same layout, so each is as install()
  // makes it and is dropped without the sqlite_master check push makes).
  std::uint64_t insert_all();
  // DELETEs each of the first `d` rows by id and INSERTs it again, in one transaction.
  // Returns the rows deleted (each delete finds its row after insert_all()).
  std::uint64_t reinsert_first(std::uint64_t d);
  // SELECT COUNT(*) of the copy.
  std::int64_t count();

  std::uint64_t rows() const noexcept { return values_.size() / columns_; }

 private:
  struct FreeValue {
    void operator()(sqlite3_value* value) const noexcept { sqlite3_value_free(value); }
  };
  using Value = std::unique_ptr<sqlite3_value, FreeValue>;

  void bind_row(sqlite3_stmt* insert, std::uint64_t row) const;
  void exec(const std::string& sql);
  [[noreturn]] void fail(std::string_view what) const;

  std::vector<std::string> schema_;  // CREATE TABLE first, then its indexes
  std::vector<TableLayout::Index> indexes_;
  bool empty_ = false;      // no row inserted since create()
  std::string insert_sql_;  // the id is parameter 1, then every column in order
  std::string delete_sql_;  // by id
  std::string count_sql_;
  std::size_t columns_ = 0;    // select_rows_sql()'s columns, insert_sql()'s parameters
  std::vector<Value> values_;  // rows() x columns_, row by row, in insert_sql_'s order
  std::unique_ptr<sqlite3, CloseDb> db_;
  std::filesystem::path path_;
};

}  // namespace storh::engines::mirror
