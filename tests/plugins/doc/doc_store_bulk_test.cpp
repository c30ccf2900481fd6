// Bulk writes (putStream, importJsonl) and the JSONL round trip (engine-spec.md 4.4).
#include <fmt/format.h>

#include "common/bench/bench_row.h"
#include "common/fault_injection.h"
#include "common/store_error.h"
#include "doc_test_util.h"

using namespace doc_test;
using storh::engines::BulkSync;
using storh::test::read_text;
using storh::test::ScratchDir;
using storh::test::write_text;

TEST_CASE("doc bulk: put_stream stores every row across batch boundaries", "[doc][bulk]") {
  ScratchDir dir;
  DocStoreOptions options;
  options.batch_size = GENERATE(1, 3, 16, 1024);
  // 50 rows: batches of 16 and 1024 are made durable with syncfs, the last batch of 16
  // (two rows) with fsyncs; and every batch with fsyncs when told so.
  options.bulk_sync = GENERATE(BulkSync::filesystem, BulkSync::files);
  constexpr std::uint64_t kRows = 50;
  DocStore store(dir.path(), "docs", options);
  std::uint64_t next = 0;
  const std::size_t stored = store.put_stream([&]() -> std::optional<Json> {
    if (next == kRows) return std::nullopt;
    return storh::engines::bench_row(next++);
  });
  CHECK(stored == kRows);
  CHECK(store.fast_count() == std::optional<std::size_t>(kRows));  // caches remember the rows
  DocStore reopened(dir.path(), "docs");
  auto records = reopened.stream_all();
  REQUIRE(records.size() == kRows);
  for (std::uint64_t i = 0; i < kRows; ++i) {
    CHECK(records[i].data == storh::engines::bench_row(i));
  }
  // stream_shared: the same records, from the fast path of the writing store and from disk.
  for (DocStore* from : {&store, &reopened}) {
    const auto shared = from->stream_shared();
    REQUIRE(shared.size() == kRows);
    for (std::uint64_t i = 0; i < kRows; ++i) {
      CHECK(shared[i].id == records[i].id);
      CHECK(*shared[i].data == storh::engines::bench_row(i));
    }
  }
  CHECK(temp_files(dir.path()).empty());
}

TEST_CASE("doc bulk: a batch of 20 is two syncs with bulk_sync = filesystem, 21 with files",
          "[doc][bulk]") {
  namespace fault = storh::engines::fault;
  const auto [bulk_sync, syncs] = GENERATE(table<BulkSync, std::uint64_t>(
      {{BulkSync::filesystem, 2},     // one syncfs before the renames, one after
       {BulkSync::files, 20 + 1}}));  // each file, then the one shard directory
  ScratchDir dir;
  DocStoreOptions options;
  options.batch_size = 20;
  options.bulk_sync = bulk_sync;
  DocStore store(dir.path(), "docs", options);
  std::vector<Json> rows;
  rows.reserve(20);
  // One shard: every id has "00" at characters 24..25.
  for (int i = 0; i < 20; ++i) {
    rows.push_back(Json{{"id", fmt::format("01900000-0000-7000-8000-0000{:08x}", i)},
                        {"data", storh::engines::bench_row(static_cast<std::uint64_t>(i))}});
  }
  store.put(storh::engines::bench_row(99),
            "01900000-0000-7000-8000-0000ffffffff");  // makes data/00
  fault::count_only();
  store.put_stream(std::move(rows));
  // Boundaries: 20 writes, the syncs, 20 renames (directory syncs count as syncs here).
  // Where syncfs is not trusted (an old kernel, another filesystem), filesystem means files.
  const bool trusted =
      storh::engines::open_for_syncfs(dir / "docs" / "data", storh::engines::Sync::durable,
                                      BulkSync::filesystem)
          .valid();
  const std::uint64_t crossed = fault::crossed();
  fault::disarm();
  CHECK(crossed == 20 + (trusted ? syncs : 20 + 1) + 20);
  CHECK(store.count() == 21);
}

TEST_CASE("doc bulk: bulk_sync names its choices", "[doc][bulk]") {
  using storh::engines::parse_bulk_sync;
  CHECK(parse_bulk_sync("filesystem") == BulkSync::filesystem);
  CHECK(parse_bulk_sync("files") == BulkSync::files);
  CHECK_THROWS_WITH(parse_bulk_sync("fsync"),
                    "unknown bulk sync \"fsync\" (valid: filesystem, files)");
}

TEST_CASE("doc bulk: a repeated id within one batch keeps the later row", "[doc][bulk]") {
  ScratchDir dir;
  DocStore store(dir.path(), "docs");
  const std::string id = "018bcfe5-6800-7000-8000-aa0000000001";
  CHECK(store.put_stream(
            {Json{{"id", id}, {"data", {{"v", 1}}}}, Json{{"id", id}, {"data", {{"v", 2}}}}}) == 2);
  CHECK(store.get(id)->data == Json{{"v", 2}});
  CHECK(DocStore(dir.path(), "docs").get(id)->data == Json{{"v", 2}});
  CHECK(store.count() == 1);
}

TEST_CASE("doc bulk: export then import round-trips byte for byte", "[doc][bulk][jsonl]") {
  ScratchDir dir;
  DocStore source(dir.path(), "docs");
  source.put_stream([n = std::uint64_t{0}]() mutable -> std::optional<Json> {
    if (n == 50) return std::nullopt;
    return storh::engines::bench_row(n++);
  });
  const fs::path file = dir.path() / "out" / "docs.jsonl";
  CHECK(source.export_jsonl(file) == 50);
  const std::string exported = read_text(file);
  // The slow path exports the same bytes.
  CHECK(DocStore(dir.path(), "docs").export_jsonl(dir.path() / "slow.jsonl") == 50);
  CHECK(read_text(dir.path() / "slow.jsonl") == exported);

  DocStore target(dir.path(), "copy");
  CHECK(target.import_jsonl(file) == 50);
  CHECK(ids_of(target.stream_all()) == ids_of(source.stream_all()));
  for (const Record& record : source.stream_all()) {
    CHECK(read_text(record_file(dir.path(), "copy", record.id)) ==
          read_text(record_file(dir.path(), "docs", record.id)));
  }
  CHECK(target.export_jsonl(dir.path() / "again.jsonl") == 50);
  CHECK(read_text(dir.path() / "again.jsonl") == exported);
}

TEST_CASE("doc bulk: import copies envelope lines verbatim and re-encodes other rows",
          "[doc][bulk][jsonl]") {
  ScratchDir dir;
  const std::string a = "018bcfe5-6800-7000-8000-aa0000000001";
  const std::string b = "018bcfe5-6800-7000-8000-aa0000000002";
  const std::string c = "018bcfe5-6800-7000-8000-aa0000000003";
  const fs::path file = dir.path() / "in.jsonl";
  write_text(file, "{\"data\": {\"x\": 1}, \"id\": \"" + a + "\"}\r\n" +  //
                       "   \n" +                                          //
                       "{\"id\":\"" + b + "\",\"data\":{\"y\":2},\"extra\":true}\n" + "{\"id\":\"" +
                       c + "\",\"z\":3}\n" +  //
                       "{\"w\":4}");
  DocStore store(dir.path(), "docs");
  CHECK(store.import_jsonl(file) == 4);
  CHECK(read_text(record_file(dir.path(), "docs", a)) ==
        "{\"data\": {\"x\": 1}, \"id\": \"" + a + "\"}\n");
  CHECK(read_text(record_file(dir.path(), "docs", b)) ==
        "{\"id\":\"" + b + "\",\"data\":{\"y\":2}}\n");
  CHECK(store.get(c)->data == Json{{"id", c}, {"z", 3}});
  CHECK(store.count(RecordQuery::all().where_equal("w", 4)) == 1);
  CHECK_FALSE(store.fast_path_valid());  // import discards the in-process caches
}

TEST_CASE("doc bulk: import rejects non-object rows, bad JSON and missing files",
          "[doc][bulk][jsonl]") {
  ScratchDir dir;
  DocStore store(dir.path(), "docs");
  write_text(dir.path() / "list.jsonl", "[1,2]\n");
  CHECK_THROWS_WITH(store.import_jsonl(dir.path() / "list.jsonl"),
                    Catch::Contains("JSONL import rows must be objects"));
  write_text(dir.path() / "bad.jsonl", "{\"a\":\n");
  CHECK_THROWS_WITH(store.import_jsonl(dir.path() / "bad.jsonl"), Catch::Contains("import"));
  CHECK_THROWS_WITH(store.import_jsonl(dir.path() / "missing.jsonl"), Catch::Contains("import"));
  write_text(dir.path() / "badid.jsonl", "{\"id\":\"nope\",\"data\":{}}\n");
  CHECK_THROWS_WITH(store.import_jsonl(dir.path() / "badid.jsonl"),
                    Catch::Contains("Invalid UUIDv7"));
  CHECK_THROWS_WITH(store.export_jsonl(dir.path() / "bad.jsonl" / "x"), Catch::Contains("export"));
}
