// The DocStore operations of engine-spec.md 4.4: put/get/remove, scans with RecordQuery,
// stats/verify/compact, reopen, and the fast path agreeing with the slow path.
#include "common/bench/bench_row.h"
#include "common/store_error.h"
#include "doc_test_util.h"

using namespace doc_test;
using storh::test::read_text;
using storh::test::ScratchDir;
using storh::test::write_text;

TEST_CASE("doc ops: put, get, overwrite and remove", "[doc][ops]") {
  ScratchDir dir;
  DocStore store(dir.path(), "docs");
  const Record first = store.put(Json{{"title", "one"}});
  CHECK(storh::engines::uuid_v7::is_valid(first.id));
  CHECK(store.get(first.id)->data == Json{{"title", "one"}});
  store.put(Json{{"title", "two"}}, first.id);
  CHECK(store.get(first.id)->data == Json{{"title", "two"}});
  CHECK(store.remove(first.id));
  CHECK_FALSE(store.get(first.id));
  CHECK_FALSE(store.remove(first.id));
  CHECK_FALSE(store.get(storh::engines::uuid_v7::generate()));
}

TEST_CASE("doc ops: a reopened store reads what another instance wrote", "[doc][ops]") {
  ScratchDir dir;
  std::vector<std::string> ids;
  {
    DocStore store(dir.path(), "docs");
    for (int i = 0; i < 20; ++i) ids.push_back(store.put(storh::engines::bench_row(i)).id);
  }
  DocStore reopened(dir.path(), "docs");
  CHECK_FALSE(reopened.fast_count());  // data/ existed: caches start unknown
  for (int i = 0; i < 20; ++i) {
    CHECK(reopened.get(ids[static_cast<std::size_t>(i)])->data == storh::engines::bench_row(i));
  }
  CHECK(ids_of(reopened.stream_all()) == ids);
}

TEST_CASE("doc ops: put_many follows the envelope rules", "[doc][ops]") {
  ScratchDir dir;
  DocStore store(dir.path(), "docs");
  const std::string id = "018bcfe5-6800-7000-8000-aa0000000001";
  const std::string bare_id = "018bcfe5-6800-7000-8000-aa0000000002";
  auto records = store.put_many({Json{{"id", id}, {"data", {{"a", 1}}}},
                                 Json{{"id", bare_id}, {"b", 2}}, Json{{"id", 7}, {"c", 3}}});
  REQUIRE(records.size() == 3);
  CHECK(records[0].id == id);
  CHECK(store.get(id)->data == Json{{"a", 1}});
  CHECK(records[1].id == bare_id);
  CHECK(store.get(bare_id)->data == Json{{"id", bare_id}, {"b", 2}});
  CHECK(records[2].id != "7");
  CHECK(store.get(records[2].id)->data == Json{{"id", 7}, {"c", 3}});
}

TEST_CASE("doc ops: scans come in id order with after, time range, equality and limit",
          "[doc][ops][scan]") {
  ScratchDir dir;
  auto mode = GENERATE(Validation::stat, Validation::hash, Validation::trust);
  DocStore store(dir.path(), "docs", with_mode(mode));
  std::vector<std::string> ids;
  // Out-of-order inserts: the cache must still scan in id order.
  for (int i = 9; i >= 0; --i) {
    const std::string id = storh::engines::uuid_v7::generate(storh::engines::kBenchStartMs + i);
    store.put(storh::engines::bench_row(static_cast<std::uint64_t>(i)), id);
  }
  ids = store.record_ids();
  REQUIRE(ids.size() == 10);
  REQUIRE(std::is_sorted(ids.begin(), ids.end()));

  auto check_both_paths = [&](const RecordQuery& query, const std::vector<std::string>& expected) {
    DocStore fresh(dir.path(), "docs", with_mode(mode));  // slow path
    CHECK(ids_of(store.stream_all(query)) == expected);
    CHECK(ids_of(fresh.stream_all(query)) == expected);
    CHECK(store.count(query) == expected.size());
    CHECK(fresh.count(query) == expected.size());
  };
  check_both_paths(RecordQuery::all(), ids);
  check_both_paths(RecordQuery::all().after(ids[6]), {ids[7], ids[8], ids[9]});
  check_both_paths(RecordQuery::all().time_range_ms(storh::engines::kBenchStartMs + 2,
                                                    storh::engines::kBenchStartMs + 4),
                   {ids[2], ids[3], ids[4]});
  check_both_paths(RecordQuery::all().where_equal("kind", "page").limit(2), {ids[0], ids[2]});
  check_both_paths(RecordQuery::all().where_equal("status", "draft"),
                   {ids[0], ids[3], ids[6], ids[9]});
  check_both_paths(RecordQuery::all().after(ids[3]).time_range_ms(
                       storh::engines::kBenchStartMs + 1, storh::engines::kBenchStartMs + 5),
                   {ids[4], ids[5]});
  CHECK(store.first(RecordQuery::all().where_equal("bucket", 5))->id == ids[5]);
  CHECK_FALSE(store.first(RecordQuery::all().where_equal("bucket", 50)));
  CHECK(store.fast_count() == std::optional<std::size_t>(10));
}

TEST_CASE("doc ops: the fast path is used only while it matches the files", "[doc][ops][scan]") {
  ScratchDir dir;
  DocStore store(dir.path(), "docs");
  CHECK(store.fast_count() == std::optional<std::size_t>(0));
  const Record record = store.put(Json{{"a", 1}});
  CHECK(store.fast_path_valid());
  store.put(Json{{"a", 2}});
  CHECK(store.fast_count() == std::optional<std::size_t>(2));
  store.path_for_id(record.id);  // drops the caches
  CHECK_FALSE(store.fast_path_valid());
  CHECK(store.count() == 2);
}

TEST_CASE("doc ops: scans report unreadable records or skip them with a handler",
          "[doc][ops][scan]") {
  ScratchDir dir;
  DocStore store(dir.path(), "docs");
  const Record good = store.put(Json{{"a", 1}});
  const std::string bad = "018bcfe5-6800-7000-8000-aa0000000001";
  write_text(record_file(dir.path(), "docs", bad), "{\"id\":\"" + bad + "\",\"data\":");
  CHECK_THROWS_AS(store.stream_all(), storh::engines::StoreError);
  std::vector<std::string> errors;
  std::vector<std::string> seen;
  store.scan(
      RecordQuery::all(),
      [&](const auto& record) {
        seen.emplace_back(record.id);
        return true;
      },
      [&](std::string_view id, std::string_view) { errors.emplace_back(id); });
  CHECK(seen == std::vector<std::string>{good.id});
  CHECK(errors == std::vector<std::string>{bad});
}

TEST_CASE("doc ops: stats, verify and compact count readable and corrupt records", "[doc][ops]") {
  ScratchDir dir;
  DocStore store(dir.path(), "docs");
  const Record a = store.put(Json{{"a", 1}});
  store.put(Json{{"b", 2}});
  auto stats = store.stats();
  CHECK(stats.records == 2);
  CHECK(stats.corrupt == 0);
  CHECK(stats.bytes == read_text(record_file(dir.path(), "docs", a.id)).size() * 2);
  CHECK(store.verify().ok);
  CHECK(store.compact() == 2);
  write_text(record_file(dir.path(), "docs", a.id), "{\"id\":");
  auto verify = store.verify();
  CHECK_FALSE(verify.ok);
  CHECK(verify.errors == std::vector<std::string>{"Corrupt records: 1"});
  CHECK(verify.stats.records == 1);
}

TEST_CASE("doc ops: schema violations are raised before anything is written", "[doc][ops]") {
  ScratchDir dir;
  DocStoreOptions options;
  options.schema = storh::engines::Schema::collection("docs").string("kind").required({"kind"});
  DocStore store(dir.path(), "docs", options);
  CHECK_THROWS_WITH(store.put(Json{{"other", 1}}),
                    Catch::Contains("Missing required schema field"));
  CHECK_THROWS_WITH(store.put(Json{{"kind", 1}}), Catch::Contains("must be string"));
  CHECK(store.count() == 0);
  CHECK(store.put(Json{{"kind", "page"}}).data["kind"] == "page");
  DocStoreOptions wrong;
  wrong.schema = storh::engines::Schema::collection("other");
  CHECK_THROWS_AS(DocStore(dir.path(), "docs", wrong), storh::engines::StoreError);
}

// The store keeps each shard directory open; when the directory is removed and made
// again behind it, a get and a remove must reach the file at the path, not the old inode.
TEST_CASE("doc ops: a shard directory replaced behind the store is reopened", "[doc][ops]") {
  const auto mode = GENERATE(Validation::stat, Validation::hash);
  ScratchDir dir;
  DocStore store(dir.path(), "docs", with_mode(mode));
  const Record first = store.put(Json{{"v", 1}});
  const fs::path file = record_file(dir.path(), "docs", first.id);
  const fs::path shard = file.parent_path();
  REQUIRE(store.get(first.id));  // the shard's descriptor is open now
  fs::remove_all(shard);
  fs::create_directories(shard);
  write_text(file, R"({"id":")" + first.id + R"(","data":{"v":2}})" + "\n");
  const auto again = store.get(first.id);
  REQUIRE(again);
  CHECK(again->data == Json{{"v", 2}});

  fs::remove_all(shard);
  fs::create_directories(shard);
  write_text(file, R"({"id":")" + first.id + R"(","data":{"v":3}})" + "\n");
  CHECK(store.remove(first.id));
  CHECK_FALSE(fs::exists(file));
  CHECK_FALSE(store.get(first.id));
  CHECK_FALSE(store.remove(first.id));
}
