// NOTIFY's bell (plugins/doc/change_bell.h): quiet from a drain that found the inotify
// queue empty until the next event, whoever queues it; never trusted off its own thread;
// and, through the store, every read that starts after another process's change returned
// sees that change while the writer keeps writing.
#include <sys/mman.h>

#include <atomic>
#include <new>
#include <stdexcept>
#include <thread>

#include "common/durable_io.h"
#include "doc_test_util.h"

using namespace doc_test;
using storh::engines::UniqueFd;
using storh::engines::doc::ChangeBell;
using storh::test::ScratchDir;

namespace {

// Reads every queued event; the bytes read.
std::size_t drain_queue(int fd) {
  std::size_t total = 0;
  char buffer[4096];
  for (;;) {
    const ssize_t got = ::read(fd, buffer, sizeof buffer);
    if (got <= 0) return total;
    total += static_cast<std::size_t>(got);
  }
}

// What a NOTIFY drain does: collect the bell, read the queue empty, then arm the bell on
// the empty queue. Returns the bytes read.
std::size_t drain_and_arm(ChangeBell& bell, int fd) {
  bell.collect();
  const std::size_t read = drain_queue(fd);
  bell.arm();
  return read;
}

// An inotify descriptor watching `dir` for names made, removed and touched.
UniqueFd watch_dir(const fs::path& dir) {
  UniqueFd fd(::inotify_init1(IN_CLOEXEC | IN_NONBLOCK));
  REQUIRE(fd.valid());
  REQUIRE(::inotify_add_watch(fd.get(), dir.c_str(), IN_CREATE | IN_DELETE | IN_ATTRIB) >= 0);
  return fd;
}

// A scratch directory, an inotify descriptor watching it, and a bell on that descriptor
// (destroyed in the reverse order: the bell before the descriptor it polls).
struct WatchedDir {
  ScratchDir dir;
  UniqueFd fd = watch_dir(dir.path());
  ChangeBell bell{fd.get()};
};

void make_file(const fs::path& file) {
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0 || ::close(fd) != 0) throw std::runtime_error("create " + file.string());
}

// Another writer's atomic replace of a record file, as a second process makes it.
void replace_record_file(const fs::path& file, const std::string& id, long value) {
  const fs::path temp = file.parent_path() / ".writer.tmp";
  const std::string text =
      "{\"id\":\"" + id + "\",\"data\":{\"v\":" + std::to_string(value) + "}}\n";
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error("open " + temp.string());
  const bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  if (::close(fd) != 0 || !written || ::rename(temp.c_str(), file.c_str()) != 0) {
    throw std::runtime_error("replace " + file.string());
  }
}

// Two counters in memory shared with a forked child.
struct SharedCounters {
  std::atomic<long> written{0};   // the writer's last change that has returned
  std::atomic<long> verified{0};  // the reader has read at least this value
};

SharedCounters* map_counters() {
  void* memory = ::mmap(nullptr, sizeof(SharedCounters), PROT_READ | PROT_WRITE,
                        MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  REQUIRE(memory != MAP_FAILED);
  return new (memory) SharedCounters;
}

}  // namespace

TEST_CASE("NOTIFY bell: quiet from an empty drain until the next event, whoever causes it",
          "[doc][notify][bell]") {
  if (!change_bell_available()) {
    WARN("io_uring cannot be set up here: NOTIFY drains with read on every call");
    return;
  }
  WatchedDir watched;
  REQUIRE(watched.bell.usable());
  CHECK_FALSE(watched.bell.quiet());  // not armed until a drain has found the queue empty
  watched.bell.arm();
  CHECK(watched.bell.quiet());
  watched.bell.arm();  // armed already: nothing changes
  CHECK(watched.bell.quiet());

  SECTION("another process's change, once its call has returned") {
    REQUIRE(wait_child(fork_child([&] { make_file(watched.dir.path() / "other"); })) == 0);
    CHECK_FALSE(watched.bell.quiet());
  }
  SECTION("this process's own change") {
    make_file(watched.dir.path() / "own");
    CHECK_FALSE(watched.bell.quiet());
  }
  SECTION("an attribute change only") {
    make_file(watched.dir.path() / "f");
    drain_and_arm(watched.bell, watched.fd.get());
    REQUIRE(watched.bell.quiet());
    REQUIRE(::utimensat(AT_FDCWD, (watched.dir.path() / "f").c_str(), nullptr, 0) == 0);
    CHECK_FALSE(watched.bell.quiet());
  }
  // Arming on the emptied queue makes it quiet again, and the next change rings it again.
  CHECK(drain_and_arm(watched.bell, watched.fd.get()) > 0);
  CHECK(watched.bell.quiet());
  make_file(watched.dir.path() / "again");
  CHECK_FALSE(watched.bell.quiet());
}

TEST_CASE("NOTIFY bell: an event queued while it was unarmed fails the next arm at once",
          "[doc][notify][bell]") {
  if (!change_bell_available()) return;
  WatchedDir watched;
  make_file(watched.dir.path() / "before");  // queued, not drained
  watched.bell.arm();                        // the queue is readable: its poll completes at once
  CHECK_FALSE(watched.bell.quiet());
  CHECK(drain_and_arm(watched.bell, watched.fd.get()) > 0);
  CHECK(watched.bell.quiet());
}

TEST_CASE("NOTIFY bell: a wake whose event was already read leaves it armed for the next",
          "[doc][notify][bell]") {
  if (!change_bell_available()) return;
  WatchedDir watched;
  watched.bell.arm();
  make_file(watched.dir.path() / "first");
  REQUIRE(drain_queue(watched.fd.get()) > 0);  // read before the bell is collected
  watched.bell.collect();  // the poll finds nothing to read: it stays (or is put back) on the queue
  make_file(watched.dir.path() / "second");
  CHECK_FALSE(watched.bell.quiet());
  CHECK(drain_and_arm(watched.bell, watched.fd.get()) > 0);
  CHECK(watched.bell.quiet());
}

TEST_CASE("NOTIFY bell: two bells on one thread ring apart", "[doc][notify][bell]") {
  if (!change_bell_available()) return;
  WatchedDir a;
  WatchedDir b;
  a.bell.arm();
  b.bell.arm();
  make_file(a.dir.path() / "a");  // a's work stays pending: nobody collects it
  CHECK_FALSE(a.bell.quiet());
  CHECK(b.bell.quiet());
  make_file(b.dir.path() / "b");
  CHECK_FALSE(b.bell.quiet());
}

TEST_CASE("NOTIFY bell: another thread and a forked child never trust it", "[doc][notify][bell]") {
  if (!change_bell_available()) return;
  WatchedDir watched;
  watched.bell.arm();
  REQUIRE(watched.bell.quiet());
  bool quiet_elsewhere = true;
  std::thread([&] {
    quiet_elsewhere = watched.bell.quiet();
    watched.bell.collect();  // not the ring's thread: both do nothing
    watched.bell.arm();
  }).join();
  CHECK_FALSE(quiet_elsewhere);
  CHECK(watched.bell.quiet());
  // The child shares the ring's memory and the inotify queue with this process; it must
  // drain for itself.
  const int code = wait_child(fork_child([&] {
    if (watched.bell.quiet()) throw std::runtime_error("a forked child trusted its parent's ring");
  }));
  CHECK(code == 0);
  CHECK(watched.bell.quiet());
}

TEST_CASE("NOTIFY bell: disabled, or unavailable, a store drains with read and misses nothing",
          "[doc][notify][bell]") {
  const BellDisabled disabled(true);
  ScratchDir dir;
  DocStore store(dir.path(), "docs", with_mode(Validation::notify));
  const std::string id = store.put(Json{{"v", 1}}).id;
  REQUIRE(store.count() == 1);
  REQUIRE(store.get(id)->data["v"] == 1);
  CHECK_FALSE(store.notify_quiet());  // every call drains
  const fs::path file = record_file(dir.path(), "docs", id);
  REQUIRE(wait_child(fork_child([&] { replace_record_file(file, id, 2); })) == 0);
  CHECK(store.get(id)->data["v"] == 2);
  CHECK(store.notify_fallback_reason().empty());  // it is still NOTIFY, not STAT
}

// The promise under concurrency: the reader gets one record in a loop while a second
// process replaces it 400 times, each replacement starting only once the reader has
// read the one before. A read that starts after a replacement returned (the reader saw
// `written` move) must see it, whether the reader's bell was quiet at that moment or not.
TEST_CASE("NOTIFY: every read that starts after another process's write returned sees it",
          "[doc][notify][bell][concurrency]") {
  const bool bell = GENERATE(true, false);
  const BellDisabled disabled(!bell);
  ScratchDir dir;
  DocStore store(dir.path(), "docs", with_mode(Validation::notify));
  const std::string id = id_in_shard("7c", 1);
  store.put(Json{{"v", 0}}, id);
  REQUIRE(store.count() == 1);
  const fs::path file = record_file(dir.path(), "docs", id);
  constexpr long kWrites = 400;
  SharedCounters* counters = map_counters();

  const pid_t writer = fork_child([&] {
    for (long k = 1; k <= kWrites; ++k) {
      while (counters->verified.load(std::memory_order_acquire) < k - 1) {
      }
      replace_record_file(file, id, k);
      counters->written.store(k, std::memory_order_release);
    }
  });
  long stale = 0;
  long quiet_reads = 0;
  long first_stale_written = 0;
  long first_stale_read = 0;
  for (long written = 0; written < kWrites;) {
    written = counters->written.load(std::memory_order_acquire);
    if (store.notify_quiet()) ++quiet_reads;
    const long read = store.get(id)->data["v"].get<long>();
    if (read < written && stale++ == 0) {
      first_stale_written = written;
      first_stale_read = read;
    }
    counters->verified.store(written, std::memory_order_release);
  }
  REQUIRE(wait_child(writer) == 0);
  ::munmap(counters, sizeof(SharedCounters));
  INFO("first stale read: " << first_stale_read << " after write " << first_stale_written
                            << " had returned");
  CHECK(stale == 0);
  // With the bell, most reads between two writes made no system call: the race above
  // was run against the bell, not only against the drain.
  if (bell && change_bell_available()) CHECK(quiet_reads > 0);
  CHECK(store.get(id)->data["v"] == kWrites);
}
