// DirectTable (mirror_direct.h): a mirror table copied through a bare sqlite3 handle, the
// reference the mirror benchmark reads push, rebuild and flush against.
#include <catch2/catch.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "mirror/mirror_direct.h"
#include "mirror_test_util.h"

using namespace mirror_test;
using storh::engines::mirror::DirectTable;
using storh::engines::mirror::TableLayout;

namespace {

// A mirror of n bench-like rows, pushed and closed, and the path of its database.
fs::path pushed_mirror(Fixture& f, int n) {
  for (int i = 0; i < n; ++i) {
    f.store->put(Json{{"kind", i % 2 == 0 ? "page" : "post"},
                      {"slug", "item-" + std::to_string(i)},
                      {"publishedAt", 1700000000000 + i}});
  }
  REQUIRE(f.mirror->push("docs").inserted == static_cast<std::uint64_t>(n));
  return f.dir / "mirror.db";
}

}  // namespace

TEST_CASE("direct table: a copy holds the same schema and rows, cell for cell",
          "[mirror][direct]") {
  for (const std::string journal : {"delete", "wal"}) {
    Fixture f;
    const fs::path source = pushed_mirror(f, 25);
    DirectTable table(source, f.mirror->layout("docs"));
    CHECK(table.rows() == 25);
    const fs::path copy = f.dir / "direct.db";
    table.create(copy, journal);
    CHECK(table.count() == 0);
    CHECK(table.insert_all() == 25);
    CHECK(table.count() == 25);

    Database direct(copy);
    CHECK(direct.journal_mode() == journal);
    CHECK(master_of(direct) == master_of(f.db));
    CHECK(read_rows(direct, "bench_docs") == read_rows(f.db, "bench_docs"));

    // Flush's SQL: each of the first rows deleted and inserted again; nothing else moves.
    CHECK(table.reinsert_first(10) == 10);
    CHECK(table.reinsert_first(100) == 25);  // more than there are: every row, once
    CHECK(table.count() == 25);
    CHECK(read_rows(direct, "bench_docs") == read_rows(f.db, "bench_docs"));
  }
}

TEST_CASE("direct table: create replaces an old copy and an empty table copies nothing",
          "[mirror][direct]") {
  Fixture f;
  const fs::path source = pushed_mirror(f, 3);
  const fs::path copy = f.dir / "direct.db";
  {
    DirectTable table(source, f.mirror->layout("docs"));
    table.create(copy, "delete");
    table.insert_all();
  }
  DirectTable again(source, f.mirror->layout("docs"));
  again.create(copy, "delete");  // a second insert_all would break the primary key if kept
  CHECK(again.insert_all() == 3);
  CHECK(again.count() == 3);

  f.db.exec("DELETE FROM bench_docs");
  DirectTable empty(source, f.mirror->layout("docs"));
  CHECK(empty.rows() == 0);
  empty.create(copy, "delete");
  CHECK(empty.insert_all() == 0);
  CHECK(empty.reinsert_first(5) == 0);
  CHECK(empty.count() == 0);
}

TEST_CASE("direct table: errors name the database and what failed", "[mirror][direct]") {
  Fixture f;
  const fs::path source = pushed_mirror(f, 2);
  // A layout whose table the database does not have.
  const TableLayout other("bench_", "other", std::nullopt);
  const std::string missing = message_of([&] { const DirectTable table(source, other); });
  CHECK(missing.find("no such table: bench_other") != std::string::npos);
  CHECK(missing.find(source.string()) != std::string::npos);
  // The table is there, but without a column of the layout: SQLite says which.
  f.db.exec("CREATE TABLE bench_nohash (\"id\" TEXT, \"data\" TEXT)");
  const TableLayout nohash("bench_", "nohash", std::nullopt);
  const std::string lacking = message_of([&] { const DirectTable table(source, nohash); });
  CHECK(lacking.find("no such column: hash") != std::string::npos);
  CHECK(lacking.find(source.string()) != std::string::npos);
  // Columns are read by name, in the layout's order: a table with more columns, or with
  // them in another order or case, gives the layout's values in its own order.
  const TableLayout bare("bench_", "docs", std::nullopt);  // no schema: id, hash, data
  CHECK(DirectTable(source, bare).rows() == 2);
  f.db.exec("CREATE TABLE bench_swapped (\"hash\" TEXT, \"data\" TEXT, \"ID\" TEXT)");
  f.db.exec("INSERT INTO bench_swapped VALUES ('h1', '[1]', 'i1'), ('h2', '[2]', 'i2')");
  DirectTable swapped(source, TableLayout("bench_", "swapped", std::nullopt));
  REQUIRE(swapped.rows() == 2);
  const fs::path copy = f.dir / "swapped.db";
  swapped.create(copy, "delete");
  CHECK(swapped.insert_all() == 2);
  Database check(copy);
  Statement rows = check.prepare(
      "SELECT group_concat(id || ':' || hash || ':' || data, ' ') FROM "
      "(SELECT * FROM bench_swapped ORDER BY rowid)");
  REQUIRE(rows.step());
  CHECK(std::string(rows.column_text(0)) == "i1:h1:[1] i2:h2:[2]");

  const std::string unreadable =
      message_of([&] { const DirectTable table(f.dir / "absent.db", bare); });
  CHECK(unreadable.find("open") != std::string::npos);
  CHECK(unreadable.find("absent.db") != std::string::npos);

  DirectTable table(source, f.mirror->layout("docs"));
  CHECK_THROWS_AS(table.insert_all(), std::logic_error);
  CHECK_THROWS_AS(table.count(), std::logic_error);
  CHECK(message_of([&] {
          table.create(f.dir / "direct.db", "bogus");
        }).find("journal_mode bogus") != std::string::npos);

  // A row that breaks the copy's primary key fails the insert and names it.
  table.create(f.dir / "direct.db", "delete");
  table.insert_all();
  const std::string duplicate = message_of([&] { table.insert_all(); });
  CHECK(duplicate.find("insert") != std::string::npos);
  CHECK(duplicate.find("UNIQUE") != std::string::npos);
}
