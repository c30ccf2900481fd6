// NOTIFY validation (docs/engines/doc.md, "NOTIFY: STAT with inotify"): another process's
// change to a record or an index file is seen by the first read or query after it,
// the store's own writes keep its caches, and without watches it validates as STAT.
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
