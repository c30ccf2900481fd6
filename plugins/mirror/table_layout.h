// table_layout.h: how a mirrored collection looks in SQLite (engine-spec.md section 8), so a
// table written by storh's PHP SqlMirror is read here and the other way round.
//
//   CREATE TABLE IF NOT EXISTS "<table>" ("id" TEXT NOT NULL PRIMARY KEY,
//     "hash" TEXT NOT NULL, <typed schema columns in declaration order>, "data" TEXT NOT NULL)
//   CREATE [UNIQUE] INDEX IF NOT EXISTS "<table>_<lower-case field>_idx" ON "<table>" ("<field>")
//
// <table> = prefix + collection name with '-' replaced by '_'. Schema fields typed
// string -> TEXT, int and bool -> INTEGER, float -> REAL; mixed fields get no column.
// A unique field gets a UNIQUE INDEX, an indexed or range field an INDEX.
//
// Row values: id; hash = xxh128 hex of the data's canonical JSON; each typed column holds
// the field's value only when its type fits (string for string, integer for int,
// integer or float for float (stored as REAL), bool as 0/1), else NULL; data = the
// canonical JSON. Values are bound as parameters with the column's own type, which
// stores the same values as PHP's bind-as-string plus column affinity.
//
// Every identifier is validated before it reaches SQL text; no SQL is built from data.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/record.h"
#include "common/schema.h"

namespace storh::engines::mirror {

class Statement;

// Throws StoreError unless `prefix` matches [A-Za-z0-9_]*.
void validate_prefix(std::string_view prefix);

class TableLayout {
 public:
  // Validates the name ([A-Za-z0-9_-]+) and the schema's columns (names match
  // ^[A-Za-z][A-Za-z0-9_]*$, are not id/hash/data in any case, are distinct ignoring
  // case; an indexed field must not be mixed). Throws StoreError saying which.
  TableLayout(std::string_view prefix, std::string collection, const std::optional<Schema>& schema);

  const std::string& collection() const noexcept { return collection_; }
  const std::string& table() const noexcept { return table_; }
  // The typed columns, in schema declaration order (mixed fields excluded).
  const std::vector<SchemaField>& columns() const noexcept { return columns_; }

  // One secondary index of the layout: its name, the statement install() runs, the text
  // SQLite keeps for it in sqlite_master.sql (that statement without IF NOT EXISTS: what
  // an index made by install(), here or by storh's PHP SqlMirror, reads back as), and
  // its DROP INDEX.
  struct Index {
    std::string name;
    std::string create_sql;
    std::string stored_sql;
    std::string drop_sql;
  };

  // The sqlite_master.sql of the index named by parameter 1 on the table named by
  // parameter 2 (no row when there is none).
  static constexpr std::string_view kStoredIndexSql =
      "SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ? AND tbl_name = ?";

  std::string create_table_sql() const;
  std::vector<Index> indexes() const;
  // The create_sql of every index, in schema declaration order.
  std::vector<std::string> create_index_sql() const;
  std::string drop_table_sql() const;
  // INSERT INTO "<table>" ("id","hash",<columns>,"data") VALUES (?,...): parameter 1 is
  // the id, 2 the hash, 3.. the typed columns, the last one the data.
  std::string insert_sql() const;
  // SELECT "id","hash",<columns>,"data" FROM "<table>" ORDER BY rowid: every row, its
  // values in insert_sql()'s parameter order, in the order the rows were inserted.
  std::string select_rows_sql() const;
  std::string delete_one_sql() const;
  // DELETE FROM "<table>" WHERE "id" IN (?,...) with `count` parameters.
  std::string delete_in_sql(std::size_t count) const;
  std::string delete_all_sql() const;
  std::string select_hashes_sql() const;  // SELECT "id","hash" FROM ...
  std::string select_data_sql() const;    // SELECT "id","data" FROM ... ORDER BY "id"
  std::string quoted_table() const;

  // Binds one row to a statement prepared from insert_sql(). `canonical` and `hash` are
  // bound without copies and must outlive the statement's next step; so must `data`.
  void bind_insert(Statement& insert, std::string_view id, std::string_view hash, const Json& data,
                   std::string_view canonical) const;

 private:
  // "id", "hash", <columns>, "data": the column list of insert_sql() and select_rows_sql().
  std::string column_list() const;

  std::string collection_;
  std::string table_;
  std::vector<SchemaField> columns_;
};

}  // namespace storh::engines::mirror
