// push, reconcile, flush, rebuild and verify (engine-spec.md section 8, 10.5 M1-M3).
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "common/canonical_json.h"
#include "common/hashes.h"
#include "common/uuid_v7.h"
#include "mirror_test_util.h"

using namespace mirror_test;
using storh::engines::encode_compact;
using storh::engines::xxh128_hex;

namespace {

// The data part of a record file: {"id":"<id>","data":<data>}\n
std::string data_bytes_of_file(const fs::path& path) {
  const std::string file = read_text(path);
  const std::string head = "\",\"data\":";
  const auto start = file.find(head);
  REQUIRE(start != std::string::npos);
  REQUIRE(file.size() >= start + head.size() + 2);
  return file.substr(start + head.size(), file.size() - (start + head.size()) - 2);
}

}  // namespace

TEST_CASE("push: into an empty table the indexes are made after the rows, same schema",
          "[mirror][push]") {
  Fixture f;
  // An index that is not the layout's stays in place (and is kept row by row).
  f.db.exec("CREATE INDEX \"extra_hash_idx\" ON \"bench_docs\" (\"hash\")");
  const std::vector<std::string> installed = master_of(f.db);
  REQUIRE(installed.size() == 6);  // table, primary key, kind, slug, publishedAt, extra
  for (int i = 0; i < 20; ++i) f.store->put(doc_row(i));

  CHECK(f.mirror->push("docs") == PushResult{20, 0, 0, 0});
  CHECK(master_of(f.db) == installed);
  // The indexes hold every row: lookups through them find what a scan finds.
  CHECK(f.db.query_int64("SELECT COUNT(*) FROM \"bench_docs\" INDEXED BY "
                         "\"bench_docs_slug_idx\" WHERE \"slug\" >= ''") == 20);
  CHECK(f.db.query_int64("SELECT COUNT(*) FROM \"bench_docs\" INDEXED BY "
                         "\"bench_docs_kind_idx\" WHERE \"kind\" = 'page'") == 10);
  Statement integrity = f.db.prepare("PRAGMA integrity_check");
  REQUIRE(integrity.step());
  CHECK(integrity.column_text(0) == "ok");
  integrity = Statement();

  CHECK(f.mirror->rebuild("docs") == PushResult{20, 0, 0, 0});
  CHECK(master_of(f.db) == installed);

  // A duplicate unique value fails when the index is made again: the push rolls back,
  // the indexes with it.
  f.db.exec("DELETE FROM \"bench_docs\"");
  f.store->put(Json{{"kind", "x"}, {"slug", "item-3"}});
  const std::string message = message_of([&] { f.mirror->push("docs"); });
  CHECK(message.find("UNIQUE constraint failed: bench_docs.slug") != std::string::npos);
  CHECK(row_count(f.db, "bench_docs") == 0);
  CHECK(master_of(f.db) == installed);
  CHECK_FALSE(f.db.in_transaction());
}

TEST_CASE(
    "push: rows hold the id, xxh128 of the canonical JSON, typed columns and the "
    "canonical JSON byte for byte",
    "[mirror][push]") {
  Fixture f;
  std::vector<Record> records;
  records.reserve(5);
  for (int i = 0; i < 5; ++i) records.push_back(f.store->put(doc_row(i)));
  // Escaping and ordering of canonical JSON: keys keep insertion order, '/' and UTF-8
  // stay raw, U+2028 is escaped, floats keep a fraction.
  records.push_back(f.store->put(Json::parse(
      R"({"z":"a/b","kind":"caf\u00e9 \u2028","slug":"s","publishedAt":1.5,"n":[1.0,{}]})")));
  records.push_back(f.store->put(Json::array({1, 2})));

  CHECK(f.mirror->push("docs") == PushResult{7, 0, 0, 0});
  const std::vector<Row> rows = read_rows(f.db, "bench_docs");
  REQUIRE(rows.size() == 7);
  std::sort(records.begin(), records.end(),
            [](const Record& a, const Record& b) { return a.id < b.id; });
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Record& record = records[i];
    const Row& row = rows[i];
    REQUIRE(row.size() == 6);
    const std::string canonical = encode_compact(record.data);
    CHECK(row[0] == Cell{"text", record.id});
    CHECK(row[1] == Cell{"text", xxh128_hex(canonical)});
    CHECK(row[5] == Cell{"text", canonical});
    // The same bytes the store wrote into the record file.
    CHECK(row[5].text == data_bytes_of_file(f.store->record_path(record.id)));
  }
  // Typed columns: a value only when its type fits.
  const Row& first = rows[0];
  CHECK(first[2] == Cell{"text", "page"});
  CHECK(first[3] == Cell{"text", "item-0"});
  CHECK(first[4] == Cell{"integer", "1700000000000"});
  const Row& odd = rows[5];
  CHECK(odd[2] == Cell{"text", "caf\xc3\xa9 \xe2\x80\xa8"});
  CHECK(odd[4] == Cell{"null", ""});  // 1.5 is not an int
  CHECK(odd[5].text ==
        R"({"z":"a/b","kind":"café \u2028","slug":"s","publishedAt":1.5,"n":[1.0,[]]})");
  const Row& list = rows[6];
  CHECK(list[2] == Cell{"null", ""});
  CHECK(list[5].text == "[1,2]");
}

TEST_CASE("push: float columns store ints as REAL, bool columns 0/1, misfits NULL",
          "[mirror][push]") {
  Fixture f(Schema::collection("docs").floating("score").boolean("flag").string("name"));
  const Record a = f.store->put(Json{{"score", 3}, {"flag", true}, {"name", 7}});
  const Record b = f.store->put(Json{{"score", "x"}, {"flag", 1}, {"name", nullptr}});
  const Record c = f.store->put(Json{{"score", 0.25}, {"flag", false}});
  REQUIRE(f.mirror->push("docs").inserted == 3);
  const auto rows = read_rows(f.db, "bench_docs");
  REQUIRE(rows.size() == 3);
  CHECK(rows[0][2] == Cell{"real", "3.0"});
  CHECK(rows[0][3] == Cell{"integer", "1"});
  CHECK(rows[0][4] == Cell{"null", ""});
  CHECK(rows[1][2] == Cell{"null", ""});
  CHECK(rows[1][3] == Cell{"null", ""});
  CHECK(rows[2][2] == Cell{"real", "0.25"});
  CHECK(rows[2][3] == Cell{"integer", "0"});
}

TEST_CASE("push: a row written the way storh's PHP mirror writes it is unchanged",
          "[mirror][push]") {
  Fixture f;
  const Record record = f.store->put(doc_row(3));
  const std::string canonical = encode_compact(record.data);
  const std::string hash = xxh128_hex(canonical);
  // PDO binds every value as a string; INTEGER affinity makes publishedAt an integer.
  Statement insert = f.db.prepare(
      "INSERT INTO bench_docs (id, hash, kind, slug, publishedAt, data) VALUES (?,?,?,?,?,?)");
  const std::string published = "1700000000003";
  insert.bind_text(1, record.id);
  insert.bind_text(2, hash);
  insert.bind_text(3, "post");
  insert.bind_text(4, "item-3");
  insert.bind_text(5, published);
  insert.bind_text(6, canonical);
  insert.run();
  const auto php_rows = read_rows(f.db, "bench_docs");

  CHECK(f.mirror->push("docs") == PushResult{0, 0, 0, 1});
  // Our own insert produces the identical row.
  CHECK(f.mirror->rebuild("docs") == PushResult{1, 0, 0, 0});
  CHECK(read_rows(f.db, "bench_docs") == php_rows);
}

TEST_CASE("M1: push reports one update, delete and insert, then everything unchanged",
          "[mirror][push][M1]") {
  Fixture f;
  const Record a = f.store->put(doc_row(0));
  const Record b = f.store->put(doc_row(1));
  CHECK(f.mirror->push("docs") == PushResult{2, 0, 0, 0});
  CHECK(f.mirror->push() == PushResult{0, 0, 0, 2});

  f.store->put(Json{{"kind", "page"}, {"slug", "changed"}}, a.id);
  f.store->remove(b.id);
  const Record c = f.store->put(doc_row(2));
  const PushResult pushed = f.mirror->push("docs");
  INFO(push_text(pushed));
  CHECK(pushed == PushResult{1, 1, 1, 0});
  CHECK(f.mirror->push("docs") == PushResult{0, 0, 0, 2});

  const auto rows = read_rows(f.db, "bench_docs");
  REQUIRE(rows.size() == 2);
  CHECK(rows[0][0].text == a.id);
  CHECK(rows[0][3].text == "changed");
  CHECK(rows[1][0].text == c.id);
}

TEST_CASE("push: leftover rows are deleted in chunks of 500", "[mirror][push]") {
  Fixture f;
  std::vector<Json> rows;
  rows.reserve(1201);
  for (int i = 0; i < 1201; ++i) rows.push_back(doc_row(i));
  f.store->put_stream(std::move(rows));
  CHECK(f.mirror->push("docs").inserted == 1201);
  std::vector<std::string> ids = f.store->record_ids();
  for (std::size_t i = 1; i < ids.size(); ++i) f.store->remove(ids[i]);
  CHECK(f.mirror->push("docs") == PushResult{0, 0, 1200, 1});
  CHECK(row_count(f.db, "bench_docs") == 1);
}

TEST_CASE("M2: flush ignores duplicate ids, removes rows of deleted records, leaves the rest",
          "[mirror][flush][M2]") {
  Fixture f;
  const Record a = f.store->put(doc_row(0));
  const Record b = f.store->put(doc_row(1));
  const Record c = f.store->put(doc_row(2));
  REQUIRE(f.mirror->push("docs").inserted == 3);
  const auto before = read_rows(f.db, "bench_docs");

  f.store->put(Json{{"kind", "post"}, {"slug", "a2"}}, a.id);
  f.store->remove(b.id);
  f.store->put(Json{{"kind", "post"}, {"slug", "c2"}}, c.id);  // not flushed
  const std::string never = storh::engines::uuid_v7::generate();
  CHECK(f.mirror->flush("docs", {a.id, b.id, a.id, never, b.id}) == FlushResult{1, 2});

  const auto rows = read_rows(f.db, "bench_docs");
  REQUIRE(rows.size() == 2);
  CHECK(rows[0][0].text == a.id);
  CHECK(rows[0][3].text == "a2");
  CHECK(rows[0][5].text == encode_compact(Json{{"kind", "post"}, {"slug", "a2"}}));
  CHECK(rows[1] == before[2]);  // c keeps its old row
  CHECK(f.mirror->push("docs") == PushResult{0, 1, 0, 1});
}

TEST_CASE("M3: a unique violation fails the push and leaves the table empty",
          "[mirror][push][M3]") {
  Fixture f;
  f.store->put(Json{{"kind", "page"}, {"slug", "same"}});
  f.store->put(Json{{"kind", "post"}, {"slug", "same"}});
  const std::string message = message_of([&] { f.mirror->push("docs"); });
  CHECK(message.find("SQL mirror statement failed") != std::string::npos);
  CHECK(message.find("UNIQUE constraint failed: bench_docs.slug") != std::string::npos);
  CHECK(row_count(f.db, "bench_docs") == 0);
  CHECK_FALSE(f.db.in_transaction());
}

TEST_CASE("push: a failed push leaves the table exactly as it was", "[mirror][push]") {
  Fixture f;
  const Record a = f.store->put(doc_row(0));
  const Record b = f.store->put(doc_row(1));
  const Record c = f.store->put(doc_row(2));
  REQUIRE(f.mirror->push("docs").inserted == 3);
  const auto before = read_rows(f.db, "bench_docs");

  SECTION("unique violation after an update, a delete and an insert") {
    f.store->put(Json{{"kind", "x"}, {"slug", "new-a"}}, a.id);
    f.store->remove(b.id);
    f.store->put(Json{{"kind", "x"}, {"slug", "item-2"}});  // duplicates c's slug
    CHECK_THROWS_AS(f.mirror->push("docs"), StoreError);
  }
  SECTION("an unreadable record in the store") {
    f.store->put(Json{{"kind", "x"}, {"slug", "new-a"}}, a.id);
    write_text(f.store->record_path(c.id), "{not json");
    // A fresh instance reads from disk, so the scan meets the broken file.
    f.store = std::make_unique<DocStore>(f.dir.path(), "docs", options());
    f.mirror = std::make_unique<SqlMirror>(f.db, "bench_");
    f.mirror->collection(*f.store, "docs", bench_schema());
    CHECK_THROWS_AS(f.mirror->push("docs"), StoreError);
  }
  CHECK(read_rows(f.db, "bench_docs") == before);
  CHECK_FALSE(f.db.in_transaction());
}

TEST_CASE("rebuild: deletes every row and pushes everything as inserted", "[mirror][rebuild]") {
  Fixture f;
  for (int i = 0; i < 4; ++i) f.store->put(doc_row(i));
  REQUIRE(f.mirror->push("docs").inserted == 4);
  const auto before = read_rows(f.db, "bench_docs");
  CHECK(f.mirror->rebuild("docs") == PushResult{4, 0, 0, 0});
  CHECK(f.mirror->rebuild() == PushResult{4, 0, 0, 0});
  CHECK(read_rows(f.db, "bench_docs") == before);
}

TEST_CASE("verify: counts missing, stale and orphaned rows", "[mirror][verify]") {
  Fixture f;
  const Record a = f.store->put(doc_row(0));
  const Record b = f.store->put(doc_row(1));
  f.store->put(doc_row(2));
  f.mirror->push("docs");
  auto clean = f.mirror->verify();
  CHECK(clean.ok);
  REQUIRE(clean.stats.size() == 1);
  CHECK(clean.stats[0].records == 3);
  CHECK(clean.stats[0].rows == 3);

  f.store->put(Json{{"slug", "changed"}}, a.id);
  f.store->remove(b.id);
  f.store->put(doc_row(3));
  f.store->put(doc_row(4));
  auto dirty = f.mirror->verify();
  CHECK_FALSE(dirty.ok);
  const auto& s = dirty.stats[0];
  CHECK(s.records == 4);
  CHECK(s.rows == 3);
  CHECK(s.missing == 2);
  CHECK(s.stale == 1);
  CHECK(s.orphaned == 1);
  CHECK(dirty.errors == std::vector<std::string>{"docs: 2 records missing from bench_docs",
                                                 "docs: 1 stale rows in bench_docs",
                                                 "docs: 1 orphaned rows in bench_docs"});
}

TEST_CASE("registration: duplicate names and table collisions are refused, uninstall drops",
          "[mirror]") {
  Fixture f;
  DocStore other(f.dir.path(), "other", options());
  CHECK(message_of([&] { f.mirror->collection(other, "docs"); }).find("already registered") !=
        std::string::npos);
  f.mirror->collection(other, "a-b");
  CHECK(message_of([&] { f.mirror->collection(other, "a_b"); }).find("same table") !=
        std::string::npos);
  CHECK(f.mirror->table("a-b") == "bench_a_b");
  CHECK_THROWS_AS(f.mirror->table("nope"), StoreError);
  CHECK_THROWS_AS(SqlMirror(f.db, "bad prefix"), StoreError);

  f.mirror->install();
  CHECK(f.db.query_int64("SELECT COUNT(*) FROM sqlite_master WHERE type = 'table'") == 2);
  CHECK(f.db.query_int64("SELECT COUNT(*) FROM sqlite_master WHERE type = 'index' AND name "
                         "LIKE 'bench_docs_%_idx'") == 3);
  f.mirror->uninstall();
  CHECK(f.db.query_int64("SELECT COUNT(*) FROM sqlite_master WHERE type = 'table'") == 0);
}

TEST_CASE("sqlite errors carry SQLite's message and the statement", "[mirror][sqlite]") {
  Fixture f;
  const std::string message = message_of([&] { f.db.exec("SELECT * FROM missing_table"); });
  CHECK(message ==
        "SQL mirror statement failed: no such table: missing_table (SELECT * FROM missing_table)");
  CHECK_THROWS_WITH(f.db.prepare("SELEC 1"), Catch::Contains("syntax error"));
}

TEST_CASE("a mirror connection keeps a 64 MiB page cache and SQLite's durability defaults",
          "[mirror][sqlite]") {
  Fixture f;
  CHECK(f.db.query_int64("PRAGMA cache_size") == -65536);
  CHECK(f.db.query_int64("PRAGMA synchronous") == 2);  // FULL
  CHECK(f.db.journal_mode() == "delete");
}
