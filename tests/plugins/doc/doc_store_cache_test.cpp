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

namespace {

// Rewrites `file` in place with `text` (same inode) and restores its mtime: the change
// STAT cannot see when the size is unchanged.
void rewrite_keeping_mtime(const fs::path& file, const std::string& text) {
  const struct timespec before = mtime_of(file);
  write_text(file, text);
  set_mtime(file, before);
}

std::string record_text(const std::string& id, const std::string& data) {
  return "{\"id\":\"" + id + "\",\"data\":" + data + "}\n";
}

DocStoreOptions options_for(Validation mode, std::shared_ptr<MemoryCache> cache) {
  DocStoreOptions options = with_mode(mode);
  options.cache = std::move(cache);
  return options;
}

}  // namespace

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
namespace {

using storh::engines::doc::set_change_watch_fault;

// The child's side: plain syscalls, an exception (exit code 1) on failure.
void must(bool ok, const char* what) {
  if (!ok) throw std::runtime_error(what);
}

// Writes `text` into `file` in place (same inode when it exists).
void write_in_place(const fs::path& file, const std::string& text) {
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  must(fd >= 0, "open");
  must(::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()), "write");
  must(::close(fd) == 0, "close");
}

// Another writer's atomic replace: a temp file of its own renamed over `file`.
void rename_over(const fs::path& file, const std::string& text) {
  const fs::path temp = file.parent_path() / ".other.1.tmp";
  write_in_place(temp, text);
  must(::rename(temp.c_str(), file.c_str()) == 0, "rename");
}

// Runs `body` in a forked child and waits for it: the change is complete, and its
// process gone, before the caller's next read starts.
void by_another_process(const std::function<void()>& body) {
  REQUIRE(wait_child(fork_child(body)) == 0);
}

std::size_t max_queued_events() {
  std::size_t value = 0;
  std::ifstream("/proc/sys/fs/inotify/max_queued_events") >> value;
  return value;
}

// Resets the watch fault hook when a test ends, however it ends.
struct WatchFault {
  explicit WatchFault(int error_number) { set_change_watch_fault(error_number); }
  ~WatchFault() { set_change_watch_fault(0); }
  WatchFault(const WatchFault&) = delete;
  WatchFault& operator=(const WatchFault&) = delete;
};

}  // namespace

// Each change is made while the store's bell (change_bell.h) is armed: the reads before
// it found the queue empty. Without the bell, each read drains with `read`.
TEST_CASE("NOTIFY: another process's change is seen by the first read", "[doc][cache][notify]") {
  const bool shared = GENERATE(false, true);
  const bool bell = GENERATE(true, false);
  const BellDisabled bell_off(!bell);
  ScratchDir dir;
  DocStore store(
      dir.path(), "docs",
      options_for(Validation::notify, shared ? std::make_shared<MemoryCache>(100) : nullptr));
  const std::string a = id_in_shard("3a", 1);
  const std::string b = id_in_shard("4b", 2);
  store.put(Json{{"v", "one"}}, a);
  store.put(Json{{"v", "two"}}, b);
  const fs::path file_a = record_file(dir.path(), "docs", a);
  REQUIRE(store.get(a)->data["v"] == "one");
  REQUIRE(store.count() == 2);
  REQUIRE(store.fast_path_valid());
  // The last drain found the queue empty: the bell is armed, and the next read would
  // make no system call at all.
  REQUIRE(store.notify_quiet() == (bell && change_bell_available()));

  SECTION("rename over a record") {
    by_another_process([&] { rename_over(file_a, record_text(a, R"({"v":"new"})")); });
    CHECK_FALSE(store.notify_quiet());  // rung by the other process's rename
    CHECK(store.get(a)->data["v"] == "new");
    CHECK(store.stream_all()[0].data["v"] == "new");
  }
  SECTION("unlink") {
    by_another_process([&] { must(::unlink(file_a.c_str()) == 0, "unlink"); });
    CHECK_FALSE(store.notify_quiet());
    CHECK_FALSE(store.get(a));
    CHECK(ids_of(store.stream_all()) == std::vector<std::string>{b});
  }
  SECTION("touch (mtime only)") {
    by_another_process(
        [&] { must(::utimensat(AT_FDCWD, file_a.c_str(), nullptr, 0) == 0, "touch"); });
    // The first read no longer vouches for the cached stamp (the walk re-checks it).
    CHECK_FALSE(store.fast_path_valid());
    CHECK(store.get(a)->data["v"] == "one");
    CHECK(store.fast_path_valid());
  }
  SECTION("same-size rewrite in place with the mtime kept (STAT's blind spot)") {
    const struct timespec before = mtime_of(file_a);
    by_another_process([&] {
      write_in_place(file_a, record_text(a, R"({"v":"ONE"})"));
      const struct timespec times[2] = {before, before};
      must(::utimensat(AT_FDCWD, file_a.c_str(), times, 0) == 0, "utimensat");
    });
    CHECK(store.get(a)->data["v"] == "ONE");
    CHECK(store.stream_all()[0].data["v"] == "ONE");
  }
  SECTION("a new record file") {
    const std::string c = id_in_shard("3a", 3);
    by_another_process(
        [&] { rename_over(record_file(dir.path(), "docs", c), record_text(c, R"({"v":"c"})")); });
    CHECK(store.count() == 3);
    CHECK(store.get(c)->data["v"] == "c");
  }
  SECTION("a new record file in a new shard directory") {
    const std::string c = id_in_shard("5c", 3);
    by_another_process([&] {
      const fs::path file = record_file(dir.path(), "docs", c);
      must(::mkdir(file.parent_path().c_str(), 0755) == 0, "mkdir");
      write_in_place(file, record_text(c, R"({"v":"c"})"));
    });
    CHECK(store.count() == 3);
    CHECK(store.get(c)->data["v"] == "c");
    // The new shard is watched now: a second change there is seen too.
    by_another_process(
        [&] { must(::unlink(record_file(dir.path(), "docs", c).c_str()) == 0, "rm"); });
    CHECK_FALSE(store.get(c));
    CHECK(store.count() == 2);
  }
  SECTION("a shard directory removed and made again") {
    by_another_process([&] {
      must(::unlink(file_a.c_str()) == 0, "unlink");
      must(::rmdir(file_a.parent_path().c_str()) == 0, "rmdir");
      must(::mkdir(file_a.parent_path().c_str(), 0755) == 0, "mkdir");
      write_in_place(file_a, record_text(a, R"({"v":"again"})"));
    });
    CHECK(store.get(a)->data["v"] == "again");
    CHECK(store.count() == 2);
    // Watched again after the re-arm.
    by_another_process([&] { rename_over(file_a, record_text(a, R"({"v":"third"})")); });
    CHECK(store.get(a)->data["v"] == "third");
  }
  SECTION("queue overflow") {
    const std::size_t limit = max_queued_events();
    if (limit == 0 || limit > (std::size_t{1} << 20)) {
      WARN("fs.inotify.max_queued_events is " << limit << ": overflow not generated");
      return;
    }
    const fs::path noise = file_a.parent_path() / "noise.txt";
    write_text(noise, "x");
    CHECK(store.get(a)->data["v"] == "one");
    by_another_process([&] {
      // Alternating names: the kernel merges only identical consecutive events.
      const fs::path file_b = record_file(dir.path(), "docs", b);
      for (std::size_t i = 0; i < limit / 2 + 16; ++i) {
        must(::utimensat(AT_FDCWD, noise.c_str(), nullptr, 0) == 0, "touch");
        must(::utimensat(AT_FDCWD, file_b.c_str(), nullptr, 0) == 0, "touch");
      }
      // Past the overflow: this change's events are dropped.
      rename_over(file_a, record_text(a, R"({"v":"lost"})"));
    });
    CHECK(store.get(a)->data["v"] == "lost");
    CHECK(store.count() == 2);
    CHECK(store.notify_fallback_reason().empty());  // overflow re-arms, it is no fallback
    by_another_process([&] { rename_over(file_a, record_text(a, R"({"v":"after"})")); });
    CHECK(store.get(a)->data["v"] == "after");
  }
  CHECK(store.notify_fallback_reason().empty());
}

TEST_CASE("NOTIFY: a store opened on an existing collection sees outside changes",
          "[doc][cache][notify]") {
  ScratchDir dir;
  std::vector<std::string> ids;
  {
    DocStore writer(dir.path(), "docs");
    for (int i = 0; i < 20; ++i) ids.push_back(writer.put(Json{{"i", i}}).id);
  }
  DocStore store(dir.path(), "docs",
                 options_for(Validation::notify, std::make_shared<MemoryCache>(100)));
  for (int i = 0; i < 20; ++i) REQUIRE(store.get(ids[i])->data["i"] == i);
  for (int i = 0; i < 20; ++i) REQUIRE(store.get(ids[i])->data["i"] == i);  // trusted now
  const fs::path file = record_file(dir.path(), "docs", ids[7]);
  const struct timespec before = mtime_of(file);
  by_another_process([&] {
    write_in_place(file, record_text(ids[7], R"({"i":9})"));  // same size, in place
    const struct timespec times[2] = {before, before};
    must(::utimensat(AT_FDCWD, file.c_str(), times, 0) == 0, "utimensat");
  });
  CHECK(store.get(ids[7])->data["i"] == 9);
  by_another_process([&] { must(::unlink(file.c_str()) == 0, "unlink"); });
  CHECK_FALSE(store.get(ids[7]));
}

TEST_CASE("NOTIFY: the store's own writes keep its caches and fast path", "[doc][cache][notify]") {
  ScratchDir dir;
  DocStoreOptions options = with_mode(Validation::notify);
  options.batch_size = 512;
  options.sync = storh::engines::Sync::none;
  DocStore store(dir.path(), "docs", options);
  std::vector<Json> rows;
  rows.reserve(3000);
  for (int i = 0; i < 3000; ++i) rows.push_back(Json{{"i", i}});
  const std::size_t stored = store.put_stream(std::move(rows));  // six batches, drained between
  REQUIRE(stored == 3000);
  const Record first = store.put(Json{{"i", -1}});
  store.put(Json{{"i", -2}}, first.id);
  CHECK(store.remove(store.first()->id));
  CHECK(store.fast_path_valid());
  CHECK(store.count() == 3000);
  CHECK(store.cached_records() == 3000);
  CHECK(store.get(first.id)->data["i"] == -2);
  CHECK(store.notify_fallback_reason().empty());
}

TEST_CASE("NOTIFY: without watches it says why once and validates as STAT",
          "[doc][cache][notify]") {
  const int error_number = GENERATE(ENOSPC, EMFILE);
  WatchFault fault(error_number);
  ScratchDir dir;
  DocStore store(dir.path(), "docs", with_mode(Validation::notify));
  const Record record = store.put(Json{{"v", "one"}});
  CHECK(store.get(record.id)->data["v"] == "one");
  const std::string reason = store.notify_fallback_reason();
  INFO(reason);
  CHECK(reason.find("falls back to stat") != std::string::npos);
  CHECK(reason.find(std::strerror(error_number)) != std::string::npos);
  const fs::path file = record_file(dir.path(), "docs", record.id);
  by_another_process([&] { rename_over(file, record_text(record.id, R"({"v":"two"})")); });
  CHECK(store.get(record.id)->data["v"] == "two");
  CHECK(store.stream_all()[0].data["v"] == "two");
  by_another_process([&] { must(::unlink(file.c_str()) == 0, "unlink"); });
  CHECK_FALSE(store.get(record.id));
  CHECK(store.count() == 0);
  CHECK(store.notify_fallback_reason() == reason);  // said once, kept
}

// ---- NOTIFY and the index folder: every outside change to an index file, made by another
// process that has exited before the query starts, is seen by that first indexed query.
namespace {

using storh::engines::doc::DocQuery;
using storh::engines::doc::index_manager;

// `text` with its first `from` replaced by `to` (which must be there).
std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

// A store with three pages and two posts, `kind` indexed and `n` a range index, whose
// indexed queries have been answered once (so their files are cached).
struct IndexedStore {
  ScratchDir dir;
  DocStore store;
  fs::path pages;  // the bucket file of kind = "page"
  fs::path range;  // the range base file of n

  explicit IndexedStore(DocStoreOptions options) : store(dir.path(), "docs", std::move(options)) {
    for (int i = 0; i < 5; ++i) {
      store.put(Json{{"kind", i % 2 == 0 ? "page" : "post"}, {"n", i}}, id_in_shard("3a", i + 1));
    }
    auto& indexes = index_manager(store);
    indexes.field("kind").field("n").range().sync();
    pages = indexes.eq_path("kind", "page");
    range = indexes.entries_dir() / "range" / "6e.jsonl";
    REQUIRE(fs::exists(pages));
    REQUIRE(fs::exists(range));
    for (int round = 0; round < 2; ++round) {
      REQUIRE(page_count() == 3);
      REQUIRE(pages_got() == 3);
      REQUIRE(range_count() == 4);
    }
  }
  std::size_t page_count() { return DocQuery(store).where("kind").eq("page").count(); }
  std::size_t pages_got() { return DocQuery(store).where("kind").eq("page").get().size(); }
  std::size_t range_count() { return DocQuery(store).where("n").gte(1).count(); }
};

}  // namespace

TEST_CASE("NOTIFY: another process's change to an index file is seen by the first query",
          "[doc][cache][notify]") {
  IndexedStore s(with_mode(Validation::notify));
  const std::string bucket = read_text(s.pages);
  // The same bucket claiming other counts, each the same size (made here, not in a child).
  const auto counting = [&](int count) {
    return replaced(bucket, "\"count\":3", "\"count\":" + std::to_string(count));
  };

  SECTION("rename over a bucket file") {
    const std::string two = counting(2);
    by_another_process([&] { rename_over(s.pages, two); });
    CHECK(s.page_count() == 2);
    // The query re-checks each candidate against its record: all three still match.
    CHECK(s.pages_got() == 3);
  }
  SECTION("unlink a bucket file") {
    by_another_process([&] { must(::unlink(s.pages.c_str()) == 0, "unlink"); });
    CHECK(s.page_count() == 0);
    CHECK(s.pages_got() == 0);
  }
  SECTION("same-size rewrite in place with the mtime kept (STAT's blind spot)") {
    const std::string seven = counting(7);
    by_another_process([&] { rewrite_keeping_mtime(s.pages, seven); });
    CHECK(s.page_count() == 7);
  }
  SECTION("unlink the range base file") {
    by_another_process([&] { must(::unlink(s.range.c_str()) == 0, "unlink"); });
    CHECK(s.range_count() == 0);  // counts trust the index, as in storh
  }
  SECTION("the index folder removed and made again") {
    const fs::path indexes = s.dir.path() / "docs" / ".storh" / "indexes";
    const std::string manifest = read_text(indexes / "manifest.jsonc");
    const std::string one = counting(1), two = counting(2);
    by_another_process([&] {
      fs::remove_all(indexes);
      fs::create_directories(s.pages.parent_path());
      write_text(indexes / "manifest.jsonc", manifest);
      write_text(s.pages, one);
    });
    CHECK(s.page_count() == 1);
    CHECK(s.range_count() == 0);  // no range file in the new folder
    // The new folder is watched: a second change is seen too.
    by_another_process([&] { rename_over(s.pages, two); });
    CHECK(s.page_count() == 2);
  }
  SECTION("after the store's own index writes") {
    // Own writes rewrite the bucket (and append to the range delta): their answers, and a
    // foreign change after them, are both seen.
    const std::string extra = id_in_shard("3a", 9);
    s.store.put(Json{{"kind", "page"}, {"n", 9}}, extra);
    CHECK(s.page_count() == 4);
    CHECK(s.range_count() == 5);
    CHECK(s.store.remove(extra));
    CHECK(s.page_count() == 3);
    CHECK(s.range_count() == 4);
    const std::string five = counting(5);
    by_another_process([&] { rename_over(s.pages, five); });
    CHECK(s.page_count() == 5);
  }
  CHECK(s.store.notify_fallback_reason().empty());
}

TEST_CASE("NOTIFY: without watches, index files are validated by stat", "[doc][cache][notify]") {
  const int error_number = GENERATE(ENOSPC, EMFILE);
  WatchFault fault(error_number);
  IndexedStore s(with_mode(Validation::notify));
  CHECK_FALSE(s.store.notify_fallback_reason().empty());
  const std::string two = replaced(read_text(s.pages), "\"count\":3", "\"count\":2");
  by_another_process([&] { rename_over(s.pages, two); });
  CHECK(s.page_count() == 2);
  by_another_process([&] { must(::unlink(s.pages.c_str()) == 0, "unlink"); });
  CHECK(s.page_count() == 0);
  CHECK(s.pages_got() == 0);
}

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
