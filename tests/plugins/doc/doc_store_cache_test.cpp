// Cache validation modes (engine-spec.md 4.5, 4.6, 10.5: C1-C4) with and without a shared
// MemoryCache.
#include <fcntl.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include "common/memory_cache.h"
#include "doc/change_watch.h"
#include "doc/index_manager.h"
#include "doc/query.h"
#include "doc/record_file.h"
#include "doc_test_util.h"

using namespace doc_test;
using storh::engines::MemoryCache;
using storh::test::read_text;
using storh::test::ScratchDir;
using storh::test::write_text;

TEST_CASE("C1: STAT detects external rewrites that change size or mtime", "[doc][cache][C1]") {
  const bool shared = GENERATE(false, true);
  ScratchDir dir;
  auto cache = shared ? std::make_shared<MemoryCache>(100) : nullptr;
  DocStore store(dir.path(), "docs", options_for(Validation::stat, cache));
  const Record record = store.put(Json{{"v", "one"}});
  const fs::path file = record_file(dir.path(), "docs", record.id);
  CHECK(store.get(record.id)->data["v"] == "one");
  write_text(file, record_text(record.id, R"({"v":"three"})"));  // size changes
  CHECK(store.get(record.id)->data["v"] == "three");
  CHECK(store.stream_all()[0].data["v"] == "three");
  // Same size, different mtime.
  struct timespec later = mtime_of(file);
  later.tv_sec += 5;
  write_text(file, record_text(record.id, R"({"v":"four!"})"));
  set_mtime(file, later);
  CHECK(store.get(record.id)->data["v"] == "four!");
}

TEST_CASE("C1: an external insert is counted and an external delete disappears",
          "[doc][cache][C1]") {
  const auto mode = GENERATE(Validation::stat, Validation::hash);
  ScratchDir dir;
  DocStore store(dir.path(), "docs", with_mode(mode));
  const Record a = store.put(Json{{"kind", "page"}});
  const Record b = store.put(Json{{"kind", "page"}});
  const std::string outsider = storh::engines::uuid_v7::generate();
  write_text(record_file(dir.path(), "docs", outsider),
             record_text(outsider, R"({"kind":"page"})"));
  CHECK_FALSE(store.fast_path_valid());
  CHECK(store.count() == 3);
  CHECK(store.count(RecordQuery::all().where_equal("kind", "page")) == 3);
  fs::remove(record_file(dir.path(), "docs", outsider));
  fs::remove(record_file(dir.path(), "docs", a.id));
  CHECK_FALSE(store.get(a.id));
  CHECK(store.count() == 1);
  CHECK(store.first()->id == b.id);
  CHECK(ids_of(store.stream_all()) == std::vector<std::string>{b.id});
}

TEST_CASE("C2: HASH detects same-size same-mtime rewrites, STAT's blind spot misses them",
          "[doc][cache][C2]") {
  const bool shared = GENERATE(false, true);
  ScratchDir dir;
  auto cache = shared ? std::make_shared<MemoryCache>(100) : nullptr;
  DocStore hashed(dir.path(), "docs", options_for(Validation::hash, cache));
  const Record record = hashed.put(Json{{"v", "aaaa"}});
  DocStore statted(dir.path(), "docs", options_for(Validation::stat, nullptr));
  CHECK(statted.get(record.id)->data["v"] == "aaaa");  // now validated in `statted`
  CHECK(hashed.fast_path_valid());

  rewrite_keeping_mtime(record_file(dir.path(), "docs", record.id),
                        record_text(record.id, R"({"v":"bbbb"})"));
  CHECK(hashed.get(record.id)->data["v"] == "bbbb");
  CHECK(statted.get(record.id)->data["v"] == "aaaa");  // documented blind spot
  CHECK(hashed.stream_all()[0].data["v"] == "bbbb");
}

TEST_CASE("C2: HASH fast-path queries see same-stat rewrites", "[doc][cache][C2]") {
  ScratchDir dir;
  DocStore store(dir.path(), "docs", with_mode(Validation::hash));
  const Record record = store.put(Json{{"kind", "page"}});
  store.put(Json{{"kind", "page"}});
  CHECK(store.fast_path_valid());
  rewrite_keeping_mtime(record_file(dir.path(), "docs", record.id),
                        record_text(record.id, R"({"kind":"post"})"));
  CHECK_FALSE(store.fast_path_valid());
  CHECK(store.count(RecordQuery::all().where_equal("kind", "page")) == 1);
}

TEST_CASE(
    "C3: TRUST ignores external rewrites, follows its own and shared-cache writes, and "
    "scans in id order after out-of-order inserts",
    "[doc][cache][C3]") {
  ScratchDir dir;
  auto cache = std::make_shared<MemoryCache>(100);
  DocStore first(dir.path(), "docs", options_for(Validation::trust, cache));
  DocStore second(dir.path(), "docs", options_for(Validation::trust, cache));
  const std::string late = storh::engines::uuid_v7::generate(2000000000000);
  const std::string early = storh::engines::uuid_v7::generate(1000000000000);
  first.put(Json{{"v", "late"}}, late);
  first.put(Json{{"v", "early"}}, early);
  CHECK(ids_of(first.stream_all()) == std::vector<std::string>{early, late});

  write_text(record_file(dir.path(), "docs", late), record_text(late, R"({"v":"external"})"));
  CHECK(first.get(late)->data["v"] == "late");
  CHECK(first.stream_all()[1].data["v"] == "late");

  second.put(Json{{"v", "from second"}}, late);  // same shared cache
  CHECK(first.get(late)->data["v"] == "from second");
  second.remove(early);
  CHECK_FALSE(first.get(early));
  first.put(Json{{"v", "own"}}, late);
  CHECK(first.get(late)->data["v"] == "own");
}

TEST_CASE("C3: TRUST without a shared cache answers from its data cache", "[doc][cache][C3]") {
  ScratchDir dir;
  DocStore store(dir.path(), "docs", with_mode(Validation::trust));
  const Record record = store.put(Json{{"v", 1}});
  fs::remove(record_file(dir.path(), "docs", record.id));
  CHECK(store.get(record.id)->data["v"] == 1);
  CHECK(store.count() == 1);
}

TEST_CASE("C4: reindex reads from disk and clears the caches", "[doc][cache][C4]") {
  const auto mode = GENERATE(Validation::stat, Validation::trust);
  ScratchDir dir;
  auto cache = std::make_shared<MemoryCache>(100);
  DocStore store(dir.path(), "docs", options_for(mode, cache));
  const Record record = store.put(Json{{"v", "aaaa"}});
  CHECK(store.get(record.id)->data["v"] == "aaaa");
  rewrite_keeping_mtime(record_file(dir.path(), "docs", record.id),
                        record_text(record.id, R"({"v":"bbbb"})"));
  CHECK(store.get(record.id)->data["v"] == "aaaa");  // same stat: cached
  store.reindex();
  CHECK(cache->size() == 0);
  CHECK(store.get(record.id)->data["v"] == "bbbb");
}

TEST_CASE("doc cache: a shared cache serves a second instance and records negatives",
          "[doc][cache]") {
  ScratchDir dir;
  auto cache = std::make_shared<MemoryCache>(100);
  DocStore writer(dir.path(), "docs", options_for(Validation::stat, cache));
  const Record record = writer.put(Json{{"v", 1}});
  const std::string missing = storh::engines::uuid_v7::generate();
  CHECK_FALSE(writer.get(missing));
  auto negative = cache->get("doc:docs:" + missing);
  REQUIRE(negative);
  CHECK(*negative == Json::array({false, writer.cache_scope(), 0, -1, ""}));
  auto positive = cache->get("doc:docs:" + record.id);
  REQUIRE(positive);
  CHECK((*positive)[5] == R"({"v":1})");  // STAT keeps the canonical JSON text

  DocStore reader(dir.path(), "docs", options_for(Validation::stat, cache));
  CHECK(reader.get(record.id)->data["v"] == 1);
  CHECK_FALSE(reader.get(missing));
  // A scope from another collection path is ignored and deleted.
  cache->set("doc:docs:" + record.id, Json::array({true, "other-scope", 0, 1, "", "{}"}));
  CHECK(DocStore(dir.path(), "docs", options_for(Validation::trust, cache))
            .get(record.id)
            ->data["v"] == 1);
}

TEST_CASE(
    "doc cache: the shared payload is the data, shown as its canonical text, and unusual "
    "files still read",
    "[doc][cache]") {
  using storh::engines::doc::framed_data_text;
  const std::string id = storh::engines::uuid_v7::generate();
  CHECK(framed_data_text(record_text(id, R"({"b":1, "a":[2]})"), id) == R"({"b":1, "a":[2]})");
  CHECK(framed_data_text(R"({"id":")" + id + R"(","data":[1]})", id) == "[1]");  // no newline
  CHECK_FALSE(framed_data_text(record_text(id, "{}"), storh::engines::uuid_v7::generate()));
  CHECK_FALSE(framed_data_text(R"({"data":{},"id":")" + id + "\"}\n", id));
  CHECK_FALSE(framed_data_text(R"({"id":")" + id + R"(","data":[1])", id));  // no closing brace
  CHECK_FALSE(framed_data_text("", id));

  const auto mode = GENERATE(Validation::stat, Validation::hash);
  ScratchDir dir;
  auto cache = std::make_shared<MemoryCache>(100);
  DocStore writer(dir.path(), "docs", options_for(mode, cache));
  const Record spaced = writer.put(Json{{"v", 1}});
  const Record extra = writer.put(Json{{"v", 2}});
  // Written by hand: not canonical, and one with a member after "data" (its data text is
  // `{"v":20},"z":1`, which is no JSON value, so the shared entry cannot serve it).
  write_text(record_file(dir.path(), "docs", spaced.id), record_text(spaced.id, R"({ "v" : 10 })"));
  write_text(record_file(dir.path(), "docs", extra.id),
             R"({"id":")" + extra.id + R"(","data":{"v":20},"z":1})" + "\n");
  std::shared_ptr<const Json> first;
  for (int round = 0; round < 2; ++round) {  // first fills the shared cache, second reads it
    DocStore reader(dir.path(), "docs", options_for(mode, cache));
    const auto data = reader.find(spaced.id);
    REQUIRE(data);
    CHECK(*data == Json{{"v", 10}});
    CHECK(reader.get(extra.id)->data == Json{{"v", 20}});
    // The second instance is handed the value the first one parsed, not a new decoding.
    if (round == 0) first = data;
    if (round == 1) CHECK(data == first);
  }
  // Seen through get(), the entry keeps section 4.6's shape: the data as canonical JSON text.
  const auto entry = cache->get("doc:docs:" + spaced.id);
  REQUIRE(entry);
  CHECK((*entry)[5] == R"({"v":10})");
  // A tuple set() as JSON holds text, and is decoded.
  cache->set("doc:docs:" + spaced.id, *entry);
  DocStore reader(dir.path(), "docs", options_for(mode, cache));
  const auto decoded = reader.find(spaced.id);
  REQUIRE(decoded);
  CHECK(*decoded == Json{{"v", 10}});
  CHECK(decoded != first);
}

TEST_CASE("doc cache: another instance gets a written record as its file decodes", "[doc][cache]") {
  const auto mode = GENERATE(Validation::stat, Validation::hash);
  ScratchDir dir;
  auto cache = std::make_shared<MemoryCache>(100);
  DocStore writer(dir.path(), "docs", options_for(mode, cache));
  // An empty object is written as [] (storh's encoder): the file says something else than
  // the data put, and a reader must get what the file says, as storh's readers do.
  const Record record = writer.put(Json{{"a", Json::object()}, {"n", 1}});
  DocStore reader(dir.path(), "docs", options_for(mode, cache));
  const auto data = reader.find(record.id);
  REQUIRE(data);
  CHECK(*data == Json{{"a", Json::array()}, {"n", 1}});
  CHECK((*cache->get("doc:docs:" + record.id))[5] == R"({"a":[],"n":1})");
}

TEST_CASE("doc cache: an invalid id is refused in every mode, and nothing is cached for it",
          "[doc][cache]") {
  const auto mode = GENERATE(Validation::stat, Validation::hash, Validation::trust);
  const bool shared = GENERATE(false, true);
  ScratchDir dir;
  auto cache = shared ? std::make_shared<MemoryCache>(100) : nullptr;
  DocStore store(dir.path(), "docs", options_for(mode, cache));
  const Record record = store.put(Json{{"v", 1}});
  std::string version4 = record.id;
  version4[14] = '4';  // a UUID, but not a version 7 one
  for (const std::string& bad :
       {std::string(), std::string("short"), version4, record.id + "0", std::string(4096, 'a')}) {
    CHECK_THROWS_WITH(store.get(bad), Catch::Contains("Invalid UUIDv7"));
  }
  if (cache) CHECK(cache->size() == 1);  // the put's entry only
  CHECK(store.get(record.id)->data == Json{{"v", 1}});
}

TEST_CASE("doc cache: one instance reads a large record and then small ones (cold)",
          "[doc][cache]") {
  const auto mode = GENERATE(Validation::stat, Validation::hash, Validation::trust);
  ScratchDir dir;
  std::vector<Record> records;
  {
    DocStore writer(dir.path(), "docs", with_mode(mode));
    records.push_back(writer.put(Json{{"big", std::string(200000, 'x')}}));
    records.push_back(writer.put(Json{{"v", 1}}));
    records.push_back(writer.put(Json{{"big", std::string(70000, 'y')}}));
    records.push_back(writer.put(Json::array({1, 2})));
  }
  DocStore reader(dir.path(), "docs", options_for(mode, std::make_shared<MemoryCache>(100)));
  CHECK(reader.get(records[0].id)->data["big"].get<std::string>().size() == 200000);
  CHECK(reader.get(records[1].id)->data == Json{{"v", 1}});
  CHECK(reader.get(records[2].id)->data["big"] == std::string(70000, 'y'));
  CHECK(reader.get(records[3].id)->data == Json::array({1, 2}));
  CHECK(reader.get(records[0].id)->data["big"] == std::string(200000, 'x'));  // cached
  // Another cold instance, large after small after large: the buffer given back regrows.
  DocStore again(dir.path(), "docs", with_mode(mode));
  CHECK(again.get(records[1].id)->data == Json{{"v", 1}});
  CHECK(again.get(records[0].id)->data["big"] == std::string(200000, 'x'));
  CHECK(again.get(records[3].id)->data == Json::array({1, 2}));
  CHECK(again.get(records[2].id)->data["big"] == std::string(70000, 'y'));
}

// ---- NOTIFY: every outside change, made by another process that has exited before the
// read starts, is seen by that first read (C1).
TEST_CASE("doc reads: a get and a scan leave the record file's access time alone", "[doc][cache]") {
  const auto mode = GENERATE(Validation::stat, Validation::hash, Validation::trust);
  ScratchDir dir;
  const Record record = DocStore(dir.path(), "docs").put(Json{{"v", 1}});
  const fs::path file = record_file(dir.path(), "docs", record.id);
  // Older than the modification: the next plain read would update it (relatime).
  const struct timespec times[2] = {{1, 0}, {0, UTIME_OMIT}};
  REQUIRE(::utimensat(AT_FDCWD, file.c_str(), times, 0) == 0);
  CHECK(DocStore(dir.path(), "docs", options_for(mode, nullptr)).stream_all().size() == 1);
  CHECK(DocStore(dir.path(), "docs", options_for(mode, nullptr)).get(record.id)->data ==
        Json{{"v", 1}});
  struct stat info {};
  REQUIRE(::stat(file.c_str(), &info) == 0);
  CHECK(info.st_atim.tv_sec == 1);
}
