// Invariants L1-L7 of engine-spec.md section 10.4, torn tails at every byte of the last
// line, and the multi-process append promise of section 5.11.
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "common/uuid_v7.h"
#include "log/segmented_log.h"
#include "log_test_support.h"

namespace lg = storh::engines::log;
namespace uuid_v7 = storh::engines::uuid_v7;
using storh::engines::Json;
using storh::engines::Record;
using storh::engines::RecordQuery;
using storh::engines::Sync;

namespace {

using log_test::small;

using log_test::ids_of;

std::size_t files_named(const std::filesystem::path& dir, const std::string& prefix) {
  std::size_t count = 0;
  for (const auto& item : std::filesystem::directory_iterator(dir)) {
    if (item.path().filename().string().rfind(prefix, 0) == 0) ++count;
  }
  return count;
}

}  // namespace

TEST_CASE("log L1: another writer's line is invisible until repair", "[log][L1]") {
  log_test::Scratch scratch;
  lg::SegmentedLog reader(scratch.path(), "c", small());
  lg::SegmentedLog writer(scratch.path(), "c", small());
  const std::string id = writer.put(Json{{"x", 1}}).id;
  CHECK(writer.get(id));
  CHECK_FALSE(reader.get(id));
  const lg::VerifyReport report = reader.verify();
  CHECK_FALSE(report.ok);
  CHECK(std::find(report.errors.begin(), report.errors.end(), "Segmented log state index drift.") !=
        report.errors.end());
  reader.repair();
  REQUIRE(reader.get(id));
  CHECK(reader.get(id)->data == Json{{"x", 1}});
  CHECK(reader.verify().ok);
}

TEST_CASE("log L2: compaction output written before the manifest swap is deleted on reopen",
          "[log][L2]") {
  log_test::Scratch scratch;
  std::vector<std::string> ids;
  {
    lg::SegmentedLog log(scratch.path(), "c", small());
    for (int i = 0; i < 20; ++i) ids.push_back(log.put(Json{{"i", i}}).id);
  }
  const auto segments = scratch.path() / "c" / "segments";
  log_test::write_text(segments / "compact-deadbeef-000001.ndjson", "half written");
  log_test::write_text(segments / "compact-deadbeef-000001.idx.jsonc", "{");
  std::filesystem::create_directories(scratch.path() / "c" / "segments.compact-1234");
  lg::SegmentedLog log(scratch.path(), "c", small());
  CHECK(files_named(segments, "compact-") == 0);
  CHECK_FALSE(std::filesystem::exists(scratch.path() / "c" / "segments.compact-1234"));
  for (const std::string& id : ids) CHECK(log.get(id));
  CHECK(log.count() == 20);
}

TEST_CASE("log L3: a torn trailing line is cut on reopen and the committed record survives",
          "[log][L3]") {
  log_test::Scratch scratch;
  std::string id;
  std::filesystem::path active;
  {
    lg::SegmentedLog log(scratch.path(), "c", {1 << 20, 64, Sync::durable});
    id = log.put(Json{{"kept", true}}).id;
    active = log.directory() / "segments" / log.manifest().active.file;
  }
  const auto good = std::filesystem::file_size(active);
  log_test::append_text(active, "99\tbad\t{\"op\":\"put\"\n");
  std::filesystem::create_directories(scratch.path() / "c" / "segments.compact-x");
  lg::SegmentedLog log(scratch.path(), "c", {1 << 20, 64, Sync::durable});
  CHECK(std::filesystem::file_size(active) == good);
  REQUIRE(log.get(id));
  CHECK(log.get(id)->data == Json{{"kept", true}});
  CHECK_FALSE(std::filesystem::exists(scratch.path() / "c" / "segments.compact-x"));
  // The next append lands on a clean line boundary.
  const std::string next = log.put(Json{{"after", 1}}).id;
  lg::SegmentedLog reopened(scratch.path(), "c");
  CHECK(reopened.get(next));
  CHECK(reopened.count() == 2);
}

TEST_CASE(
    "log: a torn tail at every byte offset of the last line is cut, a missing LF alone is not",
    "[log][L3][torn]") {
  log_test::Scratch scratch;
  std::vector<std::string> ids;
  std::filesystem::path active;
  {
    lg::SegmentedLog log(scratch.path(), "c", {1 << 20, 64, Sync::none});
    for (int i = 0; i < 3; ++i) ids.push_back(log.put(Json{{"i", i}, {"s", "x"}}).id);
    active = log.directory() / "segments" / log.manifest().active.file;
  }
  const std::string full = log_test::read_text(active);
  const std::size_t last = full.rfind('\n', full.size() - 2) + 1;  // start of the last line
  for (std::size_t cut = last; cut <= full.size(); ++cut) {
    INFO("file cut at byte " << cut << " of " << full.size());
    log_test::write_text(active, full.substr(0, cut));
    lg::SegmentedLog log(scratch.path(), "c", {1 << 20, 64, Sync::none});
    // Without only its LF the line's frame is intact: a record (engine-spec.md 13.1).
    const bool complete = cut >= full.size() - 1;
    CHECK(log.count() == (complete ? 3u : 2u));
    CHECK(std::filesystem::file_size(active) == (complete ? cut : last));
    CHECK(log.get(ids[0]));
    CHECK(log.get(ids[1]));
    CHECK(static_cast<bool>(log.get(ids[2])) == complete);
  }
}

TEST_CASE("log L4: corrupt lines fail a stream unless errors are collected", "[log][L4]") {
  log_test::Scratch scratch;
  lg::SegmentedLog log(scratch.path(), "c", {1 << 20, 64, Sync::none});
  const std::string id = log.put(Json{{"ok", 1}}).id;
  log_test::append_text(log.directory() / "segments" / log.manifest().active.file, "garbage\n");
  CHECK_THROWS_WITH(log.stream().to_vector(), Catch::Contains("Malformed segmented log line"));
  std::vector<std::string> errors;
  lg::StreamOptions options;
  options.on_error = [&](std::string_view location, std::string_view error) {
    errors.push_back(std::string(location) + " " + std::string(error));
  };
  const auto records = log.stream(RecordQuery::all(), options).to_vector();
  CHECK(errors.size() == 1);
  REQUIRE(records.size() == 1);
  CHECK(records[0].id == id);
}

TEST_CASE("log L4: a missing sealed segment fails a stream with Could not open segment",
          "[log][L4]") {
  log_test::Scratch scratch;
  lg::SegmentedLog log(scratch.path(), "c", small());
  for (int i = 0; i < 10; ++i) log.put(Json{{"i", i}});
  const lg::Manifest manifest = log.manifest();
  REQUIRE(manifest.sealed.size() >= 2);
  std::filesystem::remove(log.directory() / "segments" / manifest.sealed[0].file);
  CHECK_THROWS_WITH(log.stream().to_vector(), Catch::Contains("Could not open segment"));
}

TEST_CASE("log L5: compaction during a paused stream keeps the reader and the data intact",
          "[log][L5]") {
  log_test::Scratch scratch;
  lg::SegmentedLog log(scratch.path(), "c", small());
  std::vector<std::string> ids;
  ids.reserve(40);
  for (int i = 0; i < 40; ++i) ids.push_back(log.put(Json{{"i", i}}).id);
  lg::LogStream reader = log.stream();
  std::vector<std::string> seen;
  Record record;
  for (int i = 0; i < 10 && reader.next(record); ++i) seen.push_back(record.id);
  const lg::Manifest before = log.manifest();
  log.compact();
  while (reader.next(record)) seen.push_back(record.id);
  CHECK(seen == ids);
  for (const auto& entry : before.sealed) {
    CHECK(std::filesystem::exists(log.directory() / "segments" / entry.file));
  }
  const lg::Manifest after = log.manifest();
  REQUIRE_FALSE(after.sealed.empty());
  for (const auto& entry : after.sealed) {
    CHECK(entry.file.rfind("compact-", 0) == 0);
    CHECK(entry.compacted);
  }
  CHECK(ids_of(log.stream().to_vector()) == ids);
  CHECK(log.verify().ok);
}

TEST_CASE("log L6: deletes survive compaction and reopen", "[log][L6]") {
  log_test::Scratch scratch;
  const std::int64_t start = 1700000000000;
  std::vector<std::string> ids;
  std::set<std::string> deleted;
  {
    lg::SegmentedLog log(scratch.path(), "c", small());
    for (int i = 0; i < 50; ++i) {
      ids.push_back(log.put(Json{{"i", i}}, uuid_v7::generate(start + i)).id);
    }
    for (int i = 0; i < 50; i += 3) {
      log.remove(ids[static_cast<std::size_t>(i)]);
      deleted.insert(ids[static_cast<std::size_t>(i)]);
    }
    log.compact();
  }
  lg::SegmentedLog log(scratch.path(), "c", small());
  for (const std::string& id : ids) CHECK(static_cast<bool>(log.get(id)) == !deleted.count(id));
  CHECK(log.count() == ids.size() - deleted.size());
  CHECK(log.stats().deleted == 0);  // no tombstone survives compaction
  const auto window =
      log.stream(RecordQuery::all().time_range_ms(start + 10, start + 19)).to_vector();
  std::vector<std::string> want;
  for (int i = 10; i <= 19; ++i) {
    if (i % 3 != 0) want.push_back(ids[static_cast<std::size_t>(i)]);
  }
  CHECK(ids_of(window) == want);
  CHECK(log.verify().ok);
}

TEST_CASE("log L7: cursor and time-range reads open fewer segments than exist", "[log][L7]") {
  log_test::Scratch scratch;
  const std::int64_t start = 1700000000000;
  lg::SegmentedLog log(scratch.path(), "c", {1024, 4, Sync::none});
  std::vector<std::string> ids;
  ids.reserve(420);
  for (int i = 0; i < 420; ++i)
    ids.push_back(log.put(Json{{"i", i}}, uuid_v7::generate(start + i)).id);
  auto check_reads = [&] {
    const std::uint64_t segments = log.stats().segments;
    REQUIRE(segments > 10);
    std::uint64_t opened = 0;
    lg::StreamOptions options;
    options.on_segment_open = [&](const std::string&) { ++opened; };
    const auto page = log.stream(RecordQuery::all().after(ids[299]).limit(12), options).to_vector();
    REQUIRE(page.size() == 12);
    CHECK(page.front().id == ids[300]);
    CHECK(page.back().id == ids[311]);
    CHECK(opened < segments);
    CHECK(opened <= 2);
    opened = 0;
    const auto window =
        log.stream(RecordQuery::all().time_range_ms(start + 100, start + 119), options).to_vector();
    REQUIRE(window.size() == 20);
    CHECK(window.front().id == ids[100]);
    CHECK(opened < segments);
    CHECK(opened <= 4);  // 20 records of ~100 bytes span at most 4 segments of 1 KiB
  };
  check_reads();
  log.compact();
  check_reads();
}

TEST_CASE("log 5.11: four forked writers x 20 puts give 80 records after reopen",
          "[log][process]") {
  log_test::Scratch scratch;
  { lg::SegmentedLog log(scratch.path(), "c", {512, 4, Sync::durable}); }
  std::vector<pid_t> children;
  for (int w = 0; w < 4; ++w) {
    const pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      int code = 0;
      try {
        lg::SegmentedLog log(scratch.path(), "c", {512, 4, Sync::durable});
        for (int i = 0; i < 20; ++i) log.put(Json{{"writer", w}, {"i", i}});
      } catch (...) {
        code = 1;
      }
      _exit(code);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    REQUIRE(waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
  }
  lg::SegmentedLog log(scratch.path(), "c", {512, 4, Sync::durable});
  CHECK(log.count() == 80);
  CHECK(log.stream().to_vector().size() == 80);
  CHECK(log.verify().ok);
}

TEST_CASE("log: both bulk_sync choices write the same segment files, and they reopen whole",
          "[log][bulk]") {
  // 300 rows over 256-byte segments: each sync pass of append_many holds far more than
  // kFilesystemSyncMinFiles new files, so `filesystem` makes them durable with syncfs and
  // `files` with an fdatasync each; so does the compaction after it.
  std::vector<Json> rows;
  rows.reserve(300);
  for (int i = 0; i < 300; ++i) {
    rows.push_back(Json{{"id", uuid_v7::generate()}, {"data", {{"i", i}}}});
  }
  std::map<std::string, std::string> written[2];
  log_test::Scratch scratch;
  for (const storh::engines::BulkSync mode :
       {storh::engines::BulkSync::filesystem, storh::engines::BulkSync::files}) {
    const bool whole = mode == storh::engines::BulkSync::filesystem;
    lg::LogOptions options = small(Sync::durable);
    options.bulk_sync = mode;
    const std::string name = whole ? "whole" : "each";
    {
      lg::SegmentedLog log(scratch.path(), name, options);
      CHECK(log.append_many(rows).size() == rows.size());
      CHECK(log.manifest().sealed.size() > storh::engines::kFilesystemSyncMinFiles);
    }
    for (const auto& item :
         std::filesystem::directory_iterator(scratch.path() / name / "segments")) {
      written[whole ? 0 : 1][item.path().filename().string()] = log_test::read_text(item.path());
    }
    lg::SegmentedLog reopened(scratch.path(), name, options);
    CHECK(reopened.count() == rows.size());
    CHECK(reopened.verify().ok);
    reopened.compact();
    CHECK(reopened.count() == rows.size());
    CHECK(reopened.verify().ok);
    for (const Json& row : rows) CHECK(reopened.get(row["id"].get<std::string>()));
  }
  CHECK(written[0] == written[1]);
}
