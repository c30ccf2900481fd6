// Helpers for the mirror tests: a scratch store + SQLite file + mirror, and raw row reads.
#pragma once

#include <catch2/catch.hpp>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/bench/bench_row.h"
#include "common/schema.h"
#include "common/store_error.h"
#include "doc/doc_store.h"
#include "mirror/sql_mirror.h"
#include "mirror/sqlite.h"
#include "scratch_dir.h"

namespace mirror_test {

namespace fs = std::filesystem;
using storh::engines::Json;
using storh::engines::Record;
using storh::engines::Schema;
using storh::engines::StoreError;
using storh::engines::Sync;
using storh::engines::doc::DocStore;
using storh::engines::doc::DocStoreOptions;
using storh::engines::mirror::Database;
using storh::engines::mirror::FlushResult;
using storh::engines::mirror::PullResult;
using storh::engines::mirror::PushResult;
using storh::engines::mirror::SqlMirror;
using storh::engines::mirror::SqlType;
using storh::engines::mirror::Statement;
using storh::test::read_text;
using storh::test::ScratchDir;
using storh::test::write_text;

using storh::engines::bench_schema;

// A document that fits bench_schema(): kinds alternate, slugs and times are unique.
inline Json doc_row(int i) {
  return Json{{"kind", i % 2 == 0 ? "page" : "post"},
              {"slug", "item-" + std::to_string(i)},
              {"publishedAt", 1700000000000 + i}};
}

inline DocStoreOptions options(Sync sync = Sync::none) {
  DocStoreOptions o;
  o.sync = sync;
  return o;
}

// A document store "docs", a database file and a mirror with prefix bench_ over them.
struct Fixture {
  explicit Fixture(std::optional<Schema> schema = bench_schema(), Sync sync = Sync::none)
      : store(std::make_unique<DocStore>(dir.path(), "docs", options(sync))),
        db(dir / "mirror.db"),
        mirror(std::make_unique<SqlMirror>(db, "bench_")) {
    mirror->collection(*store, "docs", std::move(schema));
    mirror->install();
  }

  ScratchDir dir;
  std::unique_ptr<DocStore> store;
  Database db;
  std::unique_ptr<SqlMirror> mirror;
};

// One table row: SQLite's type name and text form of each column, in column order.
struct Cell {
  std::string type;  // typeof(): integer, real, text, null
  std::string text;
  bool operator==(const Cell&) const = default;
};
using Row = std::vector<Cell>;

// Every row of `table` ordered by id, every column with typeof().
inline std::vector<Row> read_rows(Database& db, const std::string& table) {
  Statement columns = db.prepare("SELECT name FROM pragma_table_info(?) ORDER BY cid");
  columns.bind_text(1, table);
  std::vector<std::string> names;
  while (columns.step()) names.emplace_back(columns.column_text(0));
  std::string sql = "SELECT ";
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) sql += ", ";
    sql += "typeof(\"" + names[i] + "\"), \"" + names[i] + "\"";
  }
  sql += " FROM \"" + table + "\" ORDER BY \"id\"";
  Statement select = db.prepare(sql);
  std::vector<Row> rows;
  while (select.step()) {
    Row row;
    for (std::size_t i = 0; i < names.size(); ++i) {
      const int c = static_cast<int>(2 * i);
      row.push_back({std::string(select.column_text(c)), std::string(select.column_text(c + 1))});
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

// Every schema object of the database, by name: "type|name|table|sql" (sql empty for the
// primary key's automatic index). Root pages are left out: they move when an index is
// made again.
inline std::vector<std::string> master_of(Database& db) {
  Statement select = db.prepare(
      "SELECT type || '|' || name || '|' || tbl_name || '|' || ifnull(sql, '') "
      "FROM sqlite_master ORDER BY name");
  std::vector<std::string> out;
  while (select.step()) out.emplace_back(select.column_text(0));
  return out;
}

inline std::int64_t row_count(Database& db, const std::string& table) {
  return db.query_int64("SELECT COUNT(*) FROM \"" + table + "\"");
}

inline std::string message_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

inline std::string push_text(const PushResult& r) {
  return "{" + std::to_string(r.inserted) + ", " + std::to_string(r.updated) + ", " +
         std::to_string(r.deleted) + ", " + std::to_string(r.unchanged) + "}";
}

}  // namespace mirror_test
