// Writer markers and temp sweeps (engine-spec.md 10.1: W1-W4, W6) and repair (W3, D1).
#include <fcntl.h>
#include <sys/resource.h>

#include "common/store_error.h"
#include "doc_test_util.h"

using namespace doc_test;
using storh::test::read_text;
using storh::test::ScratchDir;
using storh::test::write_text;

namespace {

std::vector<std::string> markers(const fs::path& collection) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(collection / ".storh" / "writers")) {
    names.push_back(entry.path().filename());
  }
  return names;
}

void make_old(const fs::path& file) {
  struct timespec old {};
  old.tv_sec = ::time(nullptr) - 120;
  set_mtime(file, old);
}

}  // namespace

TEST_CASE("W1: a store that wrote has one marker named with its pid, destroying it removes it",
          "[doc][sweep][W1]") {
  ScratchDir dir;
  const fs::path collection = dir.path() / "docs";
  {
    DocStore store(dir.path(), "docs");
    CHECK(markers(collection).empty());  // registered on the first mutation, not at open
    store.put(Json{{"a", 1}});
    store.put(Json{{"a", 2}});
    const auto names = markers(collection);
    REQUIRE(names.size() == 1);
    CHECK(names[0] == store.writer_prefix());
    CHECK(names[0].starts_with(std::to_string(::getpid()) + "."));
    // A forked child that destroys its copy does not remove the parent's marker.
    const pid_t child = fork_child([&] {
      DocStore other(dir.path(), "docs");
      other.put(Json{{"child", true}});
    });
    CHECK(wait_child(child) == 0);
    CHECK(markers(collection).size() == 1);
  }
  CHECK(markers(collection).empty());
}

TEST_CASE("W2: a reopen after clean shutdowns leaves orphan temp files in place",
          "[doc][sweep][W2]") {
  ScratchDir dir;
  { DocStore(dir.path(), "docs").put(Json{{"a", 1}}); }
  const fs::path orphan = dir.path() / "docs" / "data" / "00" / ".99999999.abcdef01.1.tmp";
  write_text(orphan, "partial");
  make_old(orphan);
  { DocStore reopened(dir.path(), "docs"); }
  CHECK(fs::exists(orphan));
}

TEST_CASE("W2: a dead or unparseable marker makes the next open sweep and unlink them",
          "[doc][sweep][W2]") {
  ScratchDir dir;
  { DocStore(dir.path(), "docs").put(Json{{"a", 1}}); }
  const fs::path writers = dir.path() / "docs" / ".storh" / "writers";
  const fs::path orphan = dir.path() / "docs" / "data" / "00" / ".99999999.abcdef01.1.tmp";
  const auto marker = GENERATE(std::string("99999999.deadbeef"), std::string("not-a-pid"));
  write_text(orphan, "partial");
  write_text(writers / marker, "");
  { DocStore reopened(dir.path(), "docs"); }
  CHECK_FALSE(fs::exists(orphan));
  CHECK_FALSE(fs::exists(writers / marker));
}

TEST_CASE("W2: a collection without writers/ is swept once and writers/ created",
          "[doc][sweep][W2]") {
  ScratchDir dir;
  const fs::path orphan = dir.path() / "docs" / "data" / "00" / ".99999999.abcdef01.1.tmp";
  write_text(orphan, "partial");
  DocStore store(dir.path(), "docs");
  CHECK_FALSE(fs::exists(orphan));
  CHECK(fs::is_directory(dir.path() / "docs" / ".storh" / "writers"));
}

TEST_CASE("W3: repair sweeps unconditionally and keeps committed records", "[doc][sweep][W3]") {
  ScratchDir dir;
  DocStore store(dir.path(), "docs");
  const Record record = store.put(Json{{"a", 1}});
  const fs::path orphan =
      dir.path() / "docs" / "data" / "nested" / "deeper" / ".99999999.abcdef01.7.tmp";
  write_text(orphan, "partial");
  const auto result = store.repair();
  CHECK(result.quarantined == 0);
  CHECK_FALSE(fs::exists(orphan));
  CHECK(store.get(record.id)->data == Json{{"a", 1}});
  CHECK(store.verify().ok);
}

TEST_CASE("W4: young foreign temp files and live owners' temp files survive a sweep",
          "[doc][sweep][W4]") {
  ScratchDir dir;
  DocStore store(dir.path(), "docs");
  store.put(Json{{"a", 1}});
  const fs::path shard = dir.path() / "docs" / "data" / "00";
  const fs::path young = shard / ".x.0123456789ab.tmp";
  const fs::path old = shard / ".y.0123456789ab.tmp";
  const fs::path live = shard / ("." + std::to_string(::getpid()) + ".abcdef01.3.tmp");
  write_text(young, "");
  write_text(old, "");
  write_text(live, "");
  make_old(old);
  make_old(live);
  store.repair();
  CHECK(fs::exists(young));
  CHECK_FALSE(fs::exists(old));
  CHECK(fs::exists(live));
}

TEST_CASE("W6: a failed record write unlinks its temp file and says so", "[doc][sweep][W6]") {
  ScratchDir dir;
  DocStore store(dir.path(), "docs");
  store.put(Json{{"a", 1}});
  // A file-size limit of 10 bytes makes the write of a larger record fail (EFBIG).
  const pid_t child = fork_child([&] {
    ::signal(SIGXFSZ, SIG_IGN);
    struct rlimit limit {
      10, 10
    };
    ::setrlimit(RLIMIT_FSIZE, &limit);
    DocStore writer(dir.path(), "docs");
    try {
      writer.put(Json{{"big", std::string(100, 'x')}});
    } catch (const storh::engines::StoreError& error) {
      if (std::string(error.what()).find("Could not write storage file") != std::string::npos) {
        ::_exit(temp_files(dir.path()).empty() ? 42 : 43);
      }
    }
    ::_exit(44);
  });
  CHECK(wait_child(child) == 42);
}

TEST_CASE("D1: a truncated record is quarantined by repair", "[doc][sweep][D1]") {
  ScratchDir dir;
  DocStore store(dir.path(), "docs");
  const Record bad = store.put(Json{{"a", 1}});
  const Record good = store.put(Json{{"a", 2}});
  const fs::path file = record_file(dir.path(), "docs", bad.id);
  const std::string text = read_text(file);
  write_text(file, text.substr(0, text.size() / 2));
  CHECK_FALSE(store.verify().ok);
  const auto result = store.repair();
  CHECK(result.quarantined == 1);
  CHECK(fs::exists(dir.path() / "docs" / ".storh" / "corrupt" / (bad.id + ".jsonc")));
  CHECK_FALSE(store.get(bad.id));
  CHECK(store.get(good.id));
  CHECK(store.verify().ok);
  CHECK(store.stats().records == 1);
  // A second quarantine of the same name gets a suffix.
  store.put(Json{{"a", 3}}, bad.id);
  write_text(file, "{");
  CHECK(store.repair().quarantined == 1);
  std::size_t quarantined = 0;
  for (const auto& entry : fs::directory_iterator(dir.path() / "docs" / ".storh" / "corrupt")) {
    (void)entry;
    ++quarantined;
  }
  CHECK(quarantined == 2);
}
