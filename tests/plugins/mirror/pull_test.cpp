// pull: restoring records from the table (engine-spec.md section 8, 10.5 M4).
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "common/canonical_json.h"
#include "common/hashes.h"
#include "common/uuid_v7.h"
#include "mirror_test_util.h"

using namespace mirror_test;
using storh::engines::encode_compact;

namespace {

// A second store and a schema-less mirror over the same table, as the benchmark's pull.
struct Restore {
  Restore(Fixture& f, Sync sync = Sync::none, std::optional<Schema> store_schema = {})
      : store(f.dir.path(), "restored", with_schema(sync, std::move(store_schema))),
        mirror(f.db, "bench_") {
    mirror.collection(store, "docs");
  }
  static DocStoreOptions with_schema(Sync sync, std::optional<Schema> schema) {
    DocStoreOptions o = options(sync);
    o.schema = std::move(schema);
    return o;
  }
  DocStore store;
  SqlMirror mirror;
};

void insert_raw(Database& db, const std::string& id, const std::string& hash,
                const std::string& data) {
  Statement insert = db.prepare("INSERT INTO bench_docs (id, hash, data) VALUES (?, ?, ?)");
  insert.bind_text(1, id);
  insert.bind_text(2, hash);
  insert.bind_text(3, data);
  insert.run();
}

}  // namespace

TEST_CASE("M4: pull restores record files from the table, a second pull changes nothing",
          "[mirror][pull][M4]") {
  Fixture f;
  std::vector<Record> records;
  records.reserve(5);
  for (int i = 0; i < 5; ++i) records.push_back(f.store->put(doc_row(i)));
  REQUIRE(f.mirror->push("docs").inserted == 5);

  Restore r(f, Sync::durable);
  r.mirror.set_pull_batch(2);  // several durable batches
  CHECK(r.mirror.pull() == PullResult{5, 0});
  for (const Record& record : records) {
    // The same file bytes the original store wrote.
    CHECK(read_text(r.store.record_path(record.id)) == read_text(f.store->record_path(record.id)));
  }
  // A fresh instance reads them from disk.
  DocStore reopened(f.dir.path(), "restored", options());
  CHECK(reopened.count() == 5);
  CHECK(reopened.get(records[3].id)->data == records[3].data);

  CHECK(r.mirror.pull("docs") == PullResult{0, 5});
  // pull never deletes and only rewrites records whose data differ.
  r.store.put(Json{{"local", true}});
  r.store.put(Json{{"kind", "edited"}}, records[1].id);
  CHECK(r.mirror.pull("docs") == PullResult{1, 4});
  CHECK(r.store.count() == 6);
  CHECK(r.store.get(records[1].id)->data == records[1].data);
}

TEST_CASE("M4: hand-inserted rows are pulled, then one push canonicalises them",
          "[mirror][pull][M4]") {
  Fixture f;
  const std::string id = storh::engines::uuid_v7::generate();
  insert_raw(f.db, id, "not-a-hash", R"({ "kind" : "page", "slug": "hand/made", "n": 1.50 })");
  CHECK(f.mirror->pull("docs") == PullResult{1, 0});
  REQUIRE(f.store->get(id));
  CHECK(encode_compact(f.store->get(id)->data) == R"({"kind":"page","slug":"hand/made","n":1.5})");
  CHECK(f.mirror->push("docs") == PushResult{0, 1, 0, 0});
  const auto rows = read_rows(f.db, "bench_docs");
  REQUIRE(rows.size() == 1);
  CHECK(rows[0][5].text == R"({"kind":"page","slug":"hand/made","n":1.5})");
  CHECK(rows[0][1].text == storh::engines::xxh128_hex(rows[0][5].text));
  CHECK(rows[0][2] == Cell{"text", "page"});
  CHECK(f.mirror->pull("docs") == PullResult{0, 1});
}

TEST_CASE("pull: a corrupt row is an error naming the id, rows before it are restored",
          "[mirror][pull]") {
  Fixture f;
  const std::string good = "018bcfe5-6800-7000-8000-000000000001";
  const std::string bad = "018bcfe5-6800-7000-8000-000000000002";
  insert_raw(f.db, good, "h", R"({"kind":"page"})");

  SECTION("data that is not JSON") {
    insert_raw(f.db, bad, "h", "{broken");
    const std::string message = message_of([&] { f.mirror->pull("docs"); });
    CHECK(message ==
          "SQL mirror row " + bad + " in bench_docs has data that is not a JSON object or array");
  }
  SECTION("data that is a JSON scalar") {
    insert_raw(f.db, bad, "h", "42");
    CHECK(message_of([&] { f.mirror->pull("docs"); }).find(bad) != std::string::npos);
  }
  SECTION("an id that is not a UUIDv7") {
    insert_raw(f.db, "zzz-not-an-id", "h", "{}");
    CHECK(message_of([&] { f.mirror->pull("docs"); }) ==
          "SQL mirror row zzz-not-an-id in bench_docs has an invalid UUIDv7 id");
  }
  SECTION("an id that is not text") {
    f.db.exec("INSERT INTO bench_docs (id, hash, data) VALUES (x'ff', 'h', '{}')");
    CHECK(message_of([&] { f.mirror->pull("docs"); }).find("has no text id") != std::string::npos);
  }
  REQUIRE(f.store->get(good));
  CHECK(f.store->count() == 1);
}

TEST_CASE("pull: the store's schema applies to restored records", "[mirror][pull]") {
  Fixture f;
  insert_raw(f.db, storh::engines::uuid_v7::generate(), "h", R"({"kind":5})");
  Restore r(f, Sync::none, Schema::collection("restored").string("kind"));
  CHECK(message_of([&] { r.mirror.pull(); }) == "Schema field kind must be string.");
  CHECK(r.store.count() == 0);
}

TEST_CASE("pull: empty data restores as an empty record", "[mirror][pull]") {
  Fixture f;
  const std::string id = storh::engines::uuid_v7::generate();
  insert_raw(f.db, id, "h", "{}");
  CHECK(f.mirror->pull() == PullResult{1, 0});
  CHECK(read_text(f.store->record_path(id)) == "{\"id\":\"" + id + "\",\"data\":[]}\n");
  CHECK(f.mirror->pull() == PullResult{0, 1});
}
