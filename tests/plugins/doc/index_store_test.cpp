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

// A "docs" store with `n` benchmark rows and ids generated from kBenchStartMs + i.
std::vector<std::string> fill(DocStore& store, int n) {
  std::vector<std::string> ids;
  for (int i = 0; i < n; ++i) {
    const std::string id = storh::engines::uuid_v7::generate(kBenchStartMs + i);
    store.put(bench_row(static_cast<std::uint64_t>(i)), id);
    ids.push_back(id);
  }
  return ids;
}

void index_benchmark_fields(DocStore& store) {
  doc::index_manager(store).field("kind").field("bucket").field("publishedAt").range().sync();
}

std::size_t count_kind(DocStore& store, const char* kind) {
  return doc::DocQuery(store).where("kind").eq(kind).count();
}

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
  const auto ids = fill(store, 40);
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
  auto ids = fill(store, 30);
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
    ids = fill(store, 20);
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
    ids = fill(store, 20);
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
    ids = fill(store, 10);
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

TEST_CASE("index: cached bucket files follow another instance's writes", "[index][bucket_cache]") {
  ScratchDir dir;
  DocStore reader(dir.path(), "docs");
  const auto ids = fill(reader, 20);
  index_benchmark_fields(reader);
  DocStore writer(dir.path(), "docs");
  const auto page_ids = [&] {
    return ids_of(doc::DocQuery(reader).where("kind").eq("page").get());
  };

  REQUIRE(count_kind(reader, "page") == 10);
  const auto before = page_ids();
  REQUIRE(before.size() == 10);

  SECTION("an added record is counted by the next query") {
    writer.put(Json{{"kind", "page"}, {"bucket", 7}});
    CHECK(count_kind(reader, "page") == 11);
    CHECK(page_ids().size() == 11);
    CHECK(doc::DocQuery(reader).where("kind").eq("page").where("bucket").eq(7).count() == 1);
  }
  SECTION("a same-size rewrite (one id swapped for another) is seen") {
    // ids[0] leaves the page bucket and ids[1] joins it: same count, same file size.
    Json page0 = bench_row(0), post1 = bench_row(1);
    page0["kind"] = "post";
    post1["kind"] = "page";
    writer.put(page0, ids[0]);
    writer.put(post1, ids[1]);
    CHECK(count_kind(reader, "page") == 10);
    const auto after = page_ids();
    CHECK(std::find(after.begin(), after.end(), ids[0]) == after.end());
    CHECK(std::find(after.begin(), after.end(), ids[1]) != after.end());
  }
  SECTION("a limited query reads the bucket's head and agrees with the whole list") {
    // Uncached text: the head read; fewer ids than the limit: the whole file.
    DocStore fresh(dir.path(), "docs");
    const auto limited = [&](DocStore& store, std::int64_t limit) {
      return ids_of(doc::DocQuery(store).where("kind").eq("page").limit(limit).get());
    };
    const auto all = page_ids();
    CHECK(limited(fresh, 3) == std::vector<std::string>(all.begin(), all.begin() + 3));
    CHECK(limited(fresh, 1) == std::vector<std::string>(all.begin(), all.begin() + 1));
    CHECK(limited(fresh, 50) == all);
    // The head is read again by every limited query, so another instance's write shows.
    writer.remove(all[0]);
    CHECK(limited(fresh, 3) == std::vector<std::string>(all.begin() + 1, all.begin() + 4));
    CHECK(limited(reader, 3) == std::vector<std::string>(all.begin() + 1, all.begin() + 4));
  }
  SECTION("a bucket emptied and removed counts zero") {
    for (int i = 0; i < 20; i += 2) writer.remove(ids[static_cast<std::size_t>(i)]);
    CHECK(count_kind(reader, "page") == 0);
    CHECK(page_ids().empty());
  }
}

TEST_CASE("index: a cached range base follows another instance's writes and rebuilds",
          "[index][range_cache]") {
  ScratchDir dir;
  DocStore reader(dir.path(), "docs");
  fill(reader, 30);
  index_benchmark_fields(reader);
  DocStore writer(dir.path(), "docs");
  const Json low = kBenchStartMs + 10, high = kBenchStartMs + 19;
  const auto window_count = [&] {
    return doc::DocQuery(reader).where("publishedAt").between(low, high).count();
  };
  const auto newest = [&] {
    return doc::DocQuery(reader)
        .where("publishedAt")
        .gte(kBenchStartMs)
        .order_by("publishedAt", "desc")
        .first()
        ->data["publishedAt"]
        .get<std::int64_t>();
  };
  REQUIRE(window_count() == 10);
  REQUIRE(newest() == kBenchStartMs + 29);

  // An insert goes to the delta file: the next query sees it.
  writer.put(Json{{"kind", "page"}, {"bucket", 1}, {"publishedAt", kBenchStartMs + 15}});
  CHECK(window_count() == 11);
  // A rebuild replaces the base (and drops the delta): still seen, with new content.
  writer.put(Json{{"kind", "page"}, {"bucket", 1}, {"publishedAt", kBenchStartMs + 500}});
  writer.reindex();
  CHECK(window_count() == 11);
  CHECK(newest() == kBenchStartMs + 500);
  CHECK(doc::DocQuery(reader).where("publishedAt").gte(kBenchStartMs + 400).count() == 1);
}

TEST_CASE("index: a large range base is read by window first, then kept once read in full",
          "[index][range_cache]") {
  ScratchDir dir;
  doc::DocStoreOptions unsynced;
  unsynced.sync = storh::engines::Sync::none;  // 2,000 puts; durability is not under test
  DocStore reader(dir.path(), "docs", unsynced);
  fill(reader, 2000);  // a base of ~150 KB: a window is a few KB of it
  index_benchmark_fields(reader);
  DocStore writer(dir.path(), "docs");
  const auto window = [&](std::int64_t from) {
    const Json low = kBenchStartMs + from, high = kBenchStartMs + from + 9;
    return doc::DocQuery(reader).where("publishedAt").between(low, high).count();
  };
  // Many windowed reads (each a pread from a checkpoint), then enough bytes read for the
  // whole base to be kept: every answer stays exact across the switch.
  for (std::int64_t from = 0; from < 2000; from += 37) {
    INFO("from " << from);
    CHECK(window(from) == static_cast<std::size_t>(std::min<std::int64_t>(10, 2000 - from)));
  }
  const auto desc = doc::DocQuery(reader)
                        .where("publishedAt")
                        .gte(kBenchStartMs)
                        .order_by("publishedAt", "desc")
                        .limit(3)
                        .get();
  REQUIRE(desc.size() == 3);
  CHECK(desc[0].data["publishedAt"] == kBenchStartMs + 1999);
  // A rebuild by another instance replaces the base: the kept text is dropped.
  writer.put(Json{{"kind", "page"}, {"bucket", 1}, {"publishedAt", kBenchStartMs + 5}});
  writer.reindex();
  CHECK(window(0) == 11);
  CHECK(window(1000) == 10);
}

TEST_CASE("index: a range rebuild past one sort chunk merges the spilled chunks",
          "[index][range_chunks]") {
  // 16,384 range lines fit one in-memory chunk; more spill to .chunks/ and are merged.
  constexpr std::int64_t kRows = 16384 + 700;
  ScratchDir dir;
  storh::engines::doc::DocStoreOptions options;
  options.sync = storh::engines::Sync::none;
  DocStore store(dir.path(), "docs", options);
  std::int64_t next = 0;
  store.put_stream([&]() -> std::optional<Json> {
    if (next == kRows) return std::nullopt;
    // Descending values, so the chunks are not already in order.
    return Json{{"publishedAt", kRows - next++}};
  });
  doc::index_manager(store).field("publishedAt").range().sync();
  const fs::path range = dir.path() / "docs/.storh/indexes/entries/range";
  CHECK_FALSE(fs::exists(range / ".chunks"));
  const std::string base = storh::engines::read_file_bytes(range / "7075626c69736865644174.jsonl");
  CHECK(static_cast<std::int64_t>(std::count(base.begin(), base.end(), '\n')) == kRows);
  CHECK(doc::DocQuery(store).where("publishedAt").gte(0).count() ==
        static_cast<std::size_t>(kRows));
  CHECK(doc::DocQuery(store).where("publishedAt").between(100, 199).count() == 100);
  const auto lowest =
      doc::DocQuery(store).where("publishedAt").gte(0).order_by("publishedAt").first();
  REQUIRE(lowest);
  CHECK(lowest->data["publishedAt"] == 1);
  const auto highest =
      doc::DocQuery(store).where("publishedAt").gte(0).order_by("publishedAt", "desc").first();
  REQUIRE(highest);
  CHECK(highest->data["publishedAt"] == kRows);
  CHECK(store.verify().ok);
}

TEST_CASE("index: the bucket cache hashes a path without the folder the store lives in",
          "[index]") {
  const std::string here = "/tmp/storh-a1/c002-doc/collection/.storh/indexes";
  const std::string there = "/var/tmp/x/docs/.storh/indexes";
  const doc::PathTailHash hash_here{here.size()};
  const doc::PathTailHash hash_there{there.size()};
  const std::string bucket = "/eq/kind/page.json";
  CHECK(hash_here(here + bucket) == hash_there(there + bucket));
  CHECK(hash_here(here + bucket) == std::hash<std::string_view>{}(bucket));
  // A path shorter than the folder hashes as nothing is left of it, without reading past it.
  CHECK(hash_here("/tmp") == std::hash<std::string_view>{}(""));
}
