// The record cache (plugins/log/record_cache.h): reads served from cached lines must
// always equal reads of the files, whatever another instance or process did to them.
// Each case compares the instance under test with a fresh instance, which has no cache.
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "log/segmented_log.h"
#include "log_test_support.h"

namespace lg = storh::engines::log;
using storh::engines::Json;
using storh::engines::Record;
using storh::engines::RecordQuery;
using storh::engines::Sync;

namespace {

using log_test::small;

// (id, data) of every record a stream yields, in order.
std::vector<std::pair<std::string, Json>> contents(const lg::SegmentedLog& log) {
  std::vector<std::pair<std::string, Json>> out;
  for (Record& record : log.stream().to_vector()) {
    out.emplace_back(std::move(record.id), std::move(record.data));
  }
  return out;
}

std::vector<std::pair<std::string, Json>> fresh_contents(const std::filesystem::path& root) {
  lg::SegmentedLog fresh(root, "c", small());
  return contents(fresh);
}

}  // namespace

TEST_CASE("log cache: reads after writes, compaction and reopen equal a fresh instance's",
          "[log][cache]") {
  log_test::Scratch scratch;
  lg::SegmentedLog log(scratch.path(), "c", small());
  std::vector<std::string> ids;
  for (int i = 0; i < 30; ++i) ids.push_back(log.put(Json{{"i", i}}).id);
  log.remove(ids[3]);
  log.put(Json{{"i", "again"}}, ids[5]);
  CHECK(contents(log) == fresh_contents(scratch.path()));
  CHECK(log.get(ids[5])->data == Json{{"i", "again"}});
  CHECK_FALSE(log.get(ids[3]));
  log.compact();
  CHECK(contents(log) == fresh_contents(scratch.path()));
  CHECK(log.get(ids[7])->data == Json{{"i", 7}});
  const auto page = log.stream(RecordQuery::all().after(ids[10]).limit(5)).to_vector();
  REQUIRE(page.size() == 5);
  CHECK(page.front().id == ids[11]);
}

TEST_CASE("log cache: another instance's appends and compaction are seen after recover",
          "[log][cache]") {
  log_test::Scratch scratch;
  lg::SegmentedLog mine(scratch.path(), "c", small());
  for (int i = 0; i < 10; ++i) mine.put(Json{{"mine", i}});
  (void)contents(mine);  // fills the cache from the files as well as from the writes
  lg::SegmentedLog other(scratch.path(), "c", small());
  for (int i = 0; i < 10; ++i) other.put(Json{{"other", i}});
  other.compact();
  other.put(Json{{"other", "last"}});
  mine.put(Json{{"mine", "after"}});
  mine.recover();
  CHECK(contents(mine) == fresh_contents(scratch.path()));
  CHECK(mine.stream().to_vector().size() == 22);
}

TEST_CASE("log cache: a forked process's appends are seen after recover", "[log][cache][process]") {
  log_test::Scratch scratch;
  lg::SegmentedLog mine(scratch.path(), "c", small());
  for (int i = 0; i < 5; ++i) mine.put(Json{{"mine", i}});
  (void)contents(mine);
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    int code = 0;
    try {
      lg::SegmentedLog child(scratch.path(), "c", small());
      for (int i = 0; i < 7; ++i) child.put(Json{{"child", i}});
    } catch (...) {
      code = 1;
    }
    _exit(code);
  }
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);
  mine.recover();
  CHECK(contents(mine) == fresh_contents(scratch.path()));
  CHECK(mine.count() == 12);
}

TEST_CASE("log cache: a cached line that another process's recovery cut and replaced is dropped",
          "[log][cache]") {
  log_test::Scratch scratch;
  lg::SegmentedLog mine(scratch.path(), "c", {1 << 20, 64, Sync::none});
  const std::string kept = mine.put(Json{{"n", 1}}).id;
  const auto active = mine.directory() / "segments" / mine.manifest().active.file;
  const auto cut_at = std::filesystem::file_size(active);
  const std::string lost = mine.put(Json{{"n", 2}}).id;  // cached at cut_at
  // Another process cuts the file back (as its recovery would) and appends there.
  std::filesystem::resize_file(active, cut_at);
  lg::SegmentedLog other(scratch.path(), "c", {1 << 20, 64, Sync::none});
  const std::string replaced = other.put(Json{{"n", 3}}).id;  // also at cut_at
  mine.recover();
  CHECK_FALSE(mine.get(lost));
  REQUIRE(mine.get(replaced));
  CHECK(mine.get(replaced)->data == Json{{"n", 3}});
  const auto records = mine.stream().to_vector();
  REQUIRE(records.size() == 2);
  CHECK(records[0].id == kept);
  CHECK(records[1].id == replaced);
}

TEST_CASE("log cache: a file cut below the cached prefix is read from disk by a stream",
          "[log][cache]") {
  log_test::Scratch scratch;
  lg::SegmentedLog mine(scratch.path(), "c", {1 << 20, 64, Sync::none});
  mine.put(Json{{"n", 1}});
  const auto active = mine.directory() / "segments" / mine.manifest().active.file;
  const auto cut_at = std::filesystem::file_size(active);
  mine.put(Json{{"n", 2}});
  std::filesystem::resize_file(active, cut_at);
  // Without a recover the state still names the cut record; the stream must not invent it.
  CHECK(mine.stream().to_vector().size() == 1);
}
