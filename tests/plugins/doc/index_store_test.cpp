// Secondary indexes on a real DocStore: files and their contents after a rebuild,
// incremental maintenance, the unique constraint, verify() and the drift invariants of
// engine-spec.md 10.2 (D2, D3, D4, D6, and D7's index side).
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <map>

#include "common/bench/bench_row.h"
#include "common/durable_io.h"
#include "common/store_error.h"
#include "doc/index_bucket_cache.h"
#include "doc/index_files.h"
#include "doc/index_keys.h"
#include "doc/index_manager.h"
#include "doc/query.h"
#include "doc_test_util.h"

using namespace doc_test;
using storh::test::ScratchDir;
namespace doc = storh::engines::doc;
using storh::engines::bench_row;
using storh::engines::kBenchStartMs;

namespace {

bool has_error(const std::vector<std::string>& errors, const std::string& text) {
  for (const auto& e : errors) {
    if (e.find(text) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("index: a rebuild writes storh's files", "[index]") {
  ScratchDir dir;
  DocStore store(dir.path(), "docs");
  const auto ids = fill_bench_rows(store, 40);
  auto& indexes = doc::index_manager(store);
  CHECK(indexes.field("kind").field("bucket").field("publishedAt").range().sync());
  const fs::path root = dir.path() / "docs" / ".storh" / "indexes";
  CHECK(storh::engines::read_file_bytes(root / "manifest.jsonc") ==
        "{\n    \"fields\": [\n        {\n            \"field\": \"bucket\",\n            "
        "\"unique\": false,\n"
        "            \"range\": false\n        },\n        {\n            \"field\": \"kind\",\n"
        "            \"unique\": false,\n            \"range\": false\n        },\n        {\n"
        "            \"field\": \"publishedAt\",\n            \"unique\": false,\n"
        "            \"range\": true\n        }\n    ]\n}\n");
  const std::string page =
      storh::engines::read_file_bytes(root / "entries/eq/6b696e64/s-70616765.jsonc");
  CHECK(
      page.rfind(
          "{\"field\":\"kind\",\"key\":\"s-70616765\",\"count\":20,\"value\":\"page\",\"ids\":[\"" +
              ids[0] + "\",\"" + ids[2] + "\"",
          0) == 0);
  CHECK(fs::exists(root / "entries/eq/6275636b6574/i-4.jsonc"));
  CHECK(fs::exists(
      root / "entries/compound/6275636b6574-6b696e64/c-76963804b829bbaea3bb13d2551ee889.jsonc"));
  CHECK_FALSE(fs::exists(root / "entries/eq/7075626c69736865644174"));  // range: no eq files
  const std::string base =
      storh::engines::read_file_bytes(root / "entries/range/7075626c69736865644174.jsonl");
  CHECK(base.size() == std::size_t{40} * 128);
  CHECK(
      storh::engines::read_file_bytes(root / "entries/range/7075626c69736865644174.idx.jsonc") ==
      "{\"stride\":256,\"checkpoints\":[{\"key\":\"n-00001700000000000d000000\",\"offset\":0}]}\n");
  CHECK_FALSE(fs::exists(root / "entries/range/.chunks"));
  CHECK(indexes.verify().empty());
  CHECK_FALSE(indexes.sync());  // same definitions: manifest rewritten, no rebuild
}

TEST_CASE("index: puts and deletes keep every index exact", "[index]") {
  ScratchDir dir;
  DocStore store(dir.path(), "docs");
  auto ids = fill_bench_rows(store, 30);
  index_benchmark_fields(store);
  store.put(Json{{"kind", "post"}, {"bucket", 4}, {"publishedAt", kBenchStartMs + 500}}, ids[0]);
  store.remove(ids[2]);
  const std::string fresh = store.put(Json{{"kind", "page"}, {"bucket", 4}, {"publishedAt", 7}}).id;
  store.put(Json{{"kind", "page"}}, ids[4]);  // drops bucket and publishedAt
  CHECK(store.verify().ok);
  CHECK(count_kind(store, "page") == 14);
  CHECK(doc::DocQuery(store).where("kind").eq("page").where("bucket").eq(4).count() == 3);
  CHECK(doc::DocQuery(store).where("publishedAt").eq(7).get().at(0).id == fresh);
  CHECK(doc::DocQuery(store).where("publishedAt").gte(kBenchStartMs + 100).count() == 1);
  CHECK(doc::DocQuery(store).where("publishedAt").lt(kBenchStartMs).count() == 1);
  // A delta file exists now: ordered reads fall back to sorting, with the same answer.
  const auto newest = doc::DocQuery(store)
                          .where("publishedAt")
                          .gte(0)
                          .order_by("publishedAt", "desc")
                          .limit(3)
                          .get();
  REQUIRE(newest.size() == 3);
  CHECK(newest[0].id == ids[0]);
  CHECK(newest[1].data["publishedAt"] == kBenchStartMs + 29);
  // A rebuild folds the delta into the base and answers the same.
  store.reindex();
  CHECK_FALSE(fs::exists(doc::index_manager(store).entries_dir() /
                         "range/7075626c69736865644174.delta.jsonl"));
  CHECK(doc::DocQuery(store)
            .where("publishedAt")
            .gte(0)
            .order_by("publishedAt", "desc")
            .limit(3)
            .get()[0]
            .id == ids[0]);
  CHECK(store.verify().ok);
}

TEST_CASE("index: a unique field rejects a second id and writes nothing", "[index]") {
  ScratchDir dir;
  DocStore store(dir.path(), "docs");
  auto& indexes = doc::index_manager(store);
  indexes.field("slug").unique().sync();
  const std::string a = store.put(Json{{"slug", "x"}}).id;
  store.put(Json{{"slug", "x"}, {"v", 2}}, a);  // same id, same value: allowed
  const std::size_t before = store.count();
  try {
    store.put(Json{{"slug", "x"}});
    FAIL("no exception");
  } catch (const storh::engines::StoreError& e) {
    CHECK(std::string(e.what()) == "Unique index violation on field: slug");
  }
  CHECK(store.count() == before);
  CHECK(doc::DocQuery(store).where("slug").eq("x").get().at(0).data["v"] == 2);
  CHECK(store.verify().ok);
}

TEST_CASE("index: D2 edited index files are reported and repaired", "[index][drift]") {
  ScratchDir dir;
  std::vector<std::string> ids;
  {
    DocStore store(dir.path(), "docs");
    ids = fill_bench_rows(store, 20);
    index_benchmark_fields(store);
  }
  DocStore store(dir.path(), "docs");
  auto& indexes = doc::index_manager(store);
  const fs::path file = indexes.eq_path("kind", Json("page"));
  auto bucket = doc::parse_bucket(storh::engines::read_file_bytes(file));
  REQUIRE(bucket);
  bucket->ids.erase(bucket->ids.begin());
  bucket->ids.push_back("018bcfe5-6800-7000-8000-ffffffffffff");  // a phantom
  storh::engines::write_atomic(file, doc::encode_bucket("kind", bucket->key, "page", bucket->ids));
  const auto result = store.verify();
  CHECK_FALSE(result.ok);
  CHECK(has_error(result.errors, "Index mismatch (equality)"));
  // Queries re-check candidates: the phantom never comes back as a record.
  CHECK(doc::DocQuery(store).where("kind").eq("page").get().size() == 9);
  CHECK(store.repair().quarantined == 0);
  CHECK(count_kind(store, "page") == 10);
  CHECK(store.verify().ok);
}

TEST_CASE("index: D3 a record ahead of its indexes until repair", "[index][drift]") {
  ScratchDir dir;
  std::vector<std::string> ids;
  {
    DocStore store(dir.path(), "docs");
    ids = fill_bench_rows(store, 20);
    index_benchmark_fields(store);
  }
  // The record file holds new data; the indexes still describe row(0) (page, bucket 0).
  storh::engines::write_atomic(
      record_file(dir.path(), "docs", ids[0]),
      "{\"id\":\"" + ids[0] + "\",\"data\":{\"kind\":\"post\",\"bucket\":3,\"publishedAt\":5}}\n");
  DocStore store(dir.path(), "docs");
  CHECK(store.get(ids[0])->data["kind"] == "post");
  CHECK(count_kind(store, "page") == 10);  // the old bucket, trusted
  CHECK_FALSE(store.verify().ok);
  store.repair();
  CHECK(count_kind(store, "page") == 9);
  CHECK(doc::DocQuery(store).where("kind").eq("post").where("bucket").eq(3).count() == 3);
  CHECK(doc::DocQuery(store).where("publishedAt").lt(100).count() == 1);
  CHECK(store.verify().ok);
}

TEST_CASE("index: D4 old entries removed and new ones never added", "[index][drift]") {
  ScratchDir dir;
  std::vector<std::string> ids;
  {
    DocStore store(dir.path(), "docs");
    ids = fill_bench_rows(store, 10);
    index_benchmark_fields(store);
    // Simulate the crash: remove ids[1] from its buckets, then change the file only.
    auto& indexes = doc::index_manager(store);
    indexes.on_delete(ids[1], bench_row(1));
  }
  storh::engines::write_atomic(
      record_file(dir.path(), "docs", ids[1]),
      "{\"id\":\"" + ids[1] + "\",\"data\":{\"kind\":\"page\",\"bucket\":1}}\n");
  DocStore store(dir.path(), "docs");
  CHECK(count_kind(store, "post") == 4);
  CHECK(count_kind(store, "page") == 5);
  CHECK_FALSE(store.verify().ok);
  store.repair();
  CHECK(count_kind(store, "page") == 6);
  CHECK(store.verify().ok);
}

TEST_CASE("index: D6 concurrent indexed writers keep indexes exact", "[index][concurrency]") {
  ScratchDir dir;
  {
    DocStore store(dir.path(), "docs");
    doc::index_manager(store).field("kind").field("bucket").sync();
  }
  std::vector<pid_t> children;
  children.reserve(4);
  for (int w = 0; w < 4; ++w) {
    children.push_back(fork_child([&, w] {
      DocStore store(dir.path(), "docs");
      for (int i = 0; i < 16; ++i) {
        store.put(Json{{"kind", "page"}, {"bucket", i % 4}, {"writer", w}});
      }
    }));
  }
  for (pid_t pid : children) CHECK(wait_child(pid) == 0);
  DocStore store(dir.path(), "docs");
  CHECK(count_kind(store, "page") == 64);
  const auto records = doc::DocQuery(store).where("kind").eq("page").get();
  CHECK(records.size() == 64);
  auto sorted = ids_of(records);
  std::sort(sorted.begin(), sorted.end());
  CHECK(ids_of(records) == sorted);
  CHECK(doc::DocQuery(store).where("kind").eq("page").where("bucket").eq(3).count() == 16);
  CHECK(store.verify().ok);
}

TEST_CASE("index: D7 concurrent updates of the same records leave no stale entry",
          "[index][concurrency][D7]") {
  ScratchDir dir;
  constexpr int kRecords = 20, kWriters = 5, kRevisions = 3;
  std::vector<std::string> ids;
  {
    DocStore store(dir.path(), "docs");
    for (int slot = 0; slot < kRecords; ++slot) {
      ids.push_back(store
                        .put(Json{{"kind", "initial"},
                                  {"bucket", slot % 4},
                                  {"revision", 0},
                                  {"slot", slot},
                                  {"writer", -1},
                                  {"marker", "initial"}})
                        .id);
    }
    doc::index_manager(store).field("kind").field("bucket").field("revision").range().sync();
  }
  std::vector<pid_t> children;
  children.reserve(kWriters);
  for (int w = 0; w < kWriters; ++w) {
    children.push_back(fork_child([&, w] {
      DocStore store(dir.path(), "docs");
      for (int revision = 1; revision <= kRevisions; ++revision) {
        for (int slot = 0; slot < kRecords; ++slot) {
          store.put(Json{{"kind", "w" + std::to_string(w)},
                         {"bucket", (slot + w + revision) % 4},
                         {"revision", revision},
                         {"slot", slot},
                         {"writer", w},
                         {"marker", fmt::format("w{}-r{}-s{}", w, revision, slot)}},
                    ids[static_cast<std::size_t>(slot)]);
        }
      }
    }));
  }
  for (pid_t pid : children) CHECK(wait_child(pid) == 0);

  DocStore store(dir.path(), "docs");
  // Each record is one writer's complete version: marker, revision, writer and bucket agree.
  std::map<std::string, Json> data_of;
  for (int slot = 0; slot < kRecords; ++slot) {
    const std::string& id = ids[static_cast<std::size_t>(slot)];
    const Json data = store.get(id)->data;
    const int writer = data["writer"];
    const int revision = data["revision"];
    CHECK(revision == kRevisions);
    CHECK(data["kind"] == "w" + std::to_string(writer));
    CHECK(data["bucket"] == (slot + writer + revision) % 4);
    CHECK(data["marker"] == fmt::format("w{}-r{}-s{}", writer, revision, slot));
    data_of[id] = data;
  }
  CHECK(count_kind(store, "initial") == 0);
  CHECK(doc::DocQuery(store).where("kind").eq("initial").get().empty());
  // For every revision and bucket value, the indexes answer what the data says.
  const auto expected_ids = [&](const char* field, const Json& value) {
    std::vector<std::string> out;
    for (const auto& [id, data] : data_of) {
      if (data[field] == value) out.push_back(id);  // data_of is sorted by id
    }
    return out;
  };
  for (int revision = 0; revision <= kRevisions; ++revision) {
    const auto expected = expected_ids("revision", revision);
    CHECK(ids_of(doc::DocQuery(store).where("revision").eq(revision).get()) == expected);
    CHECK(doc::DocQuery(store).where("revision").eq(revision).count() == expected.size());
  }
  for (int bucket = 0; bucket < 4; ++bucket) {
    const auto expected = expected_ids("bucket", bucket);
    CHECK(ids_of(doc::DocQuery(store).where("bucket").eq(bucket).get()) == expected);
    CHECK(doc::DocQuery(store).where("bucket").eq(bucket).count() == expected.size());
    for (int w = 0; w < kWriters; ++w) {
      std::size_t pairs = 0;
      for (const auto& [id, data] : data_of) {
        pairs += data["bucket"] == bucket && data["writer"] == w ? 1 : 0;
      }
      CHECK(doc::DocQuery(store)
                .where("kind")
                .eq("w" + std::to_string(w))
                .where("bucket")
                .eq(bucket)
                .count() == pairs);
    }
  }
  CHECK(store.verify().ok);
}
