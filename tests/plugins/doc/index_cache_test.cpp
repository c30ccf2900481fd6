// The index caches on a real DocStore: cached bucket files and range bases follow
// another instance's writes, a large range base is read by window, a rebuild merges
// spilled chunks, and the bucket cache's hash ignores where the store lives.
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

TEST_CASE("index: cached bucket files follow another instance's writes", "[index][bucket_cache]") {
  ScratchDir dir;
  DocStore reader(dir.path(), "docs");
  const auto ids = fill_bench_rows(reader, 20);
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
  fill_bench_rows(reader, 30);
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
  fill_bench_rows(reader, 2000);  // a base of ~150 KB: a window is a few KB of it
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
