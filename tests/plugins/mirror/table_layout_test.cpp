// The SQLite table layout of engine-spec.md section 8: DDL text, names and validation.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "common/schema.h"
#include "common/store_error.h"
#include "mirror/table_layout.h"
#include "mirror_test_util.h"

using mirror_test::bench_schema;
using storh::engines::Schema;
using storh::engines::StoreError;
using storh::engines::mirror::TableLayout;
using storh::engines::mirror::validate_prefix;

namespace {

std::string error_of(std::string_view prefix, std::string name, const Schema& schema) {
  try {
    TableLayout layout(prefix, std::move(name), schema);
  } catch (const StoreError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("table layout: the benchmark table and indexes are storh's DDL byte for byte",
          "[mirror][layout]") {
  TableLayout layout("bench_", "docs", bench_schema());
  CHECK(layout.table() == "bench_docs");
  CHECK(layout.create_table_sql() ==
        "CREATE TABLE IF NOT EXISTS \"bench_docs\" (\"id\" TEXT NOT NULL PRIMARY KEY, "
        "\"hash\" TEXT NOT NULL, \"kind\" TEXT, \"slug\" TEXT, \"publishedAt\" INTEGER, "
        "\"data\" TEXT NOT NULL)");
  CHECK(layout.create_index_sql() ==
        std::vector<std::string>{
            "CREATE INDEX IF NOT EXISTS \"bench_docs_kind_idx\" ON \"bench_docs\" (\"kind\")",
            "CREATE UNIQUE INDEX IF NOT EXISTS \"bench_docs_slug_idx\" ON \"bench_docs\" "
            "(\"slug\")",
            "CREATE INDEX IF NOT EXISTS \"bench_docs_publishedat_idx\" ON \"bench_docs\" "
            "(\"publishedAt\")"});
  CHECK(layout.insert_sql() ==
        "INSERT INTO \"bench_docs\" (\"id\", \"hash\", \"kind\", \"slug\", \"publishedAt\", "
        "\"data\") VALUES (?, ?, ?, ?, ?, ?)");
  CHECK(layout.delete_in_sql(3) == "DELETE FROM \"bench_docs\" WHERE \"id\" IN (?, ?, ?)");
}

TEST_CASE("table layout: types map to TEXT, INTEGER and REAL, mixed fields get no column",
          "[mirror][layout]") {
  Schema schema =
      Schema::collection("x").string("s").integer("i").floating("f").boolean("b").mixed("m");
  TableLayout layout("", "my-things", schema);
  CHECK(layout.table() == "my_things");
  CHECK(layout.create_table_sql() ==
        "CREATE TABLE IF NOT EXISTS \"my_things\" (\"id\" TEXT NOT NULL PRIMARY KEY, "
        "\"hash\" TEXT NOT NULL, \"s\" TEXT, \"i\" INTEGER, \"f\" REAL, \"b\" INTEGER, "
        "\"data\" TEXT NOT NULL)");
  CHECK(layout.create_index_sql().empty());
  CHECK(layout.columns().size() == 4);
}

TEST_CASE("table layout: no schema means id, hash and data only", "[mirror][layout]") {
  TableLayout layout("storh_", "docs", std::nullopt);
  CHECK(layout.create_table_sql() ==
        "CREATE TABLE IF NOT EXISTS \"storh_docs\" (\"id\" TEXT NOT NULL PRIMARY KEY, "
        "\"hash\" TEXT NOT NULL, \"data\" TEXT NOT NULL)");
}

TEST_CASE("table layout: names, prefixes and columns are validated", "[mirror][layout]") {
  const Schema none = Schema::collection("x");
  CHECK(error_of("bench_", "", none).find("collection name") != std::string::npos);
  CHECK(error_of("bench_", "a b", none).find("\"a b\"") != std::string::npos);
  CHECK(error_of("bench_", "a\"b", none) != "");
  CHECK(error_of("bench-", "docs", none).find("prefix") != std::string::npos);
  CHECK_THROWS_AS(validate_prefix("x;"), StoreError);
  CHECK_NOTHROW(validate_prefix(""));

  CHECK(error_of("", "docs", Schema::collection("x").string("1abc")).find("column name") !=
        std::string::npos);
  CHECK(error_of("", "docs", Schema::collection("x").string("a-b")) != "");
  CHECK(error_of("", "docs", Schema::collection("x").string("ID")).find("reserved") !=
        std::string::npos);
  CHECK(error_of("", "docs", Schema::collection("x").integer("Hash")) != "");
  CHECK(error_of("", "docs", Schema::collection("x").string("data")) != "");
  CHECK(error_of("", "docs", Schema::collection("x").string("a").string("A")) != "");
  CHECK(error_of("", "docs", Schema::collection("x").mixed("m").index()).find("mixed") !=
        std::string::npos);
  // An unindexed mixed field, even with a name SQL could not take, is simply skipped.
  CHECK(error_of("", "docs", Schema::collection("x").mixed("not a column")).empty());
}
