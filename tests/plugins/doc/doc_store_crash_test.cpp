// Crash tests (engine-spec.md 4.8, 10.1 W5): a writer process dies at each step of the write
// path (single and batched) or at a random moment; a reopen finds every record old or
// new, never torn, and no temp file left behind.
#include <csignal>
#include <random>

#include "common/bench/bench_row.h"
#include "doc/record_writer.h"
#include "doc_test_util.h"

using namespace doc_test;
using storh::engines::BulkSync;
using storh::engines::doc::WriteStep;
using storh::test::read_text;
using storh::test::ScratchDir;

namespace {

WriteStep g_crash_step = WriteStep::temp_created;
int g_countdown = 0;

void crash_at_step(WriteStep step) {
  if (step == g_crash_step && --g_countdown == 0) ::_exit(9);
}

// Enough for two batches of 20 (which BulkSync::filesystem makes durable with syncfs)
// and a third that a crash never reaches.
constexpr int kRecords = 48;

std::vector<std::string> seed(const fs::path& root) {
  DocStore store(root, "docs");
  std::vector<std::string> ids;
  ids.reserve(kRecords);
  for (int i = 0; i < kRecords; ++i) {
    ids.push_back(store.put(Json{{"version", "old"}, {"slot", i}}).id);
  }
  return ids;
}

// Every record is readable and either the old or the new version; returns how many are new.
int check_old_or_new(const fs::path& root, const std::vector<std::string>& ids) {
  DocStore reopened(root, "docs");  // the dead writer's marker triggers the sweep
  CHECK(temp_files(root).empty());
  CHECK(reopened.verify().ok);
  int fresh = 0;
  for (int i = 0; i < kRecords; ++i) {
    auto record = reopened.get(ids[static_cast<std::size_t>(i)]);
    REQUIRE(record);
    CHECK(record->data["slot"] == i);
    const std::string version = record->data["version"];
    CHECK((version == "old" || version == "new"));
    fresh += version == "new" ? 1 : 0;
  }
  CHECK(reopened.count() == static_cast<std::size_t>(kRecords));
  return fresh;
}

}  // namespace

TEST_CASE("crash: a writer killed at each step of put leaves the old or the new record",
          "[doc][crash]") {
  const auto step =
      GENERATE(WriteStep::temp_created, WriteStep::temp_written, WriteStep::temp_synced,
               WriteStep::renamed, WriteStep::directory_synced);
  const int nth = GENERATE(1, 5);
  ScratchDir dir;
  const auto ids = seed(dir.path());
  const pid_t child = fork_child([&] {
    g_crash_step = step;
    g_countdown = nth;
    storh::engines::doc::set_write_step_hook(&crash_at_step);
    DocStore writer(dir.path(), "docs");
    for (int i = 0; i < kRecords; ++i) {
      writer.put(Json{{"version", "new"}, {"slot", i}}, ids[static_cast<std::size_t>(i)]);
    }
  });
  REQUIRE(wait_child(child) == 9);
  const int fresh = check_old_or_new(dir.path(), ids);
  // Puts before the crashing one completed; the crashing one is new only after its rename.
  const bool renamed = step == WriteStep::renamed || step == WriteStep::directory_synced;
  CHECK(fresh == nth - 1 + (renamed ? 1 : 0));
}

TEST_CASE(
    "crash: a writer killed at each step of a batched put_stream leaves each record old "
    "or new",
    "[doc][crash][bulk]") {
  const auto step =
      GENERATE(WriteStep::temp_created, WriteStep::temp_written, WriteStep::temp_synced,
               WriteStep::renamed, WriteStep::directory_synced);
  // Batches of 5 fsync each file; batches of 20 (at least kFilesystemSyncMinFiles)
  // syncfs the filesystem, unless told to fsync each file.
  const auto choice = GENERATE(table<BulkSync, int>(
      {{BulkSync::filesystem, 5}, {BulkSync::filesystem, 20}, {BulkSync::files, 20}}));
  const BulkSync bulk_sync = std::get<0>(choice);
  const int batch = std::get<1>(choice);
  REQUIRE(storh::engines::syncs_filesystem(storh::engines::Sync::durable, bulk_sync,
                                           static_cast<std::size_t>(batch)) ==
          (bulk_sync == BulkSync::filesystem && batch == 20));
  ScratchDir dir;
  const auto ids = seed(dir.path());
  const pid_t child = fork_child([&] {
    g_crash_step = step;
    // The first batch completes; the crash comes mid-way through the second.
    g_countdown = step == WriteStep::directory_synced ? 1 : batch + 2;
    storh::engines::doc::set_write_step_hook(&crash_at_step);
    DocStoreOptions options;
    options.batch_size = static_cast<std::size_t>(batch);
    options.bulk_sync = bulk_sync;
    DocStore writer(dir.path(), "docs", options);
    std::vector<Json> rows;
    rows.reserve(kRecords);
    for (int i = 0; i < kRecords; ++i) {
      rows.push_back(Json{{"id", ids[static_cast<std::size_t>(i)]},
                          {"data", {{"version", "new"}, {"slot", i}}}});
    }
    writer.put_stream(std::move(rows));
  });
  REQUIRE(wait_child(child) == 9);
  const int fresh = check_old_or_new(dir.path(), ids);
  switch (step) {
    case WriteStep::temp_created:
    case WriteStep::temp_written:
    case WriteStep::temp_synced:
      CHECK(fresh == batch);  // the first batch completed, the second never renamed
      break;
    case WriteStep::renamed:
      CHECK(fresh == batch + 2);  // renames happen in order
      break;
    case WriteStep::directory_synced:
      CHECK(fresh == batch);
      break;
  }
}

TEST_CASE("crash: writers killed at random moments never leave torn records",
          "[doc][crash][random]") {
  ScratchDir dir;
  const auto ids = seed(dir.path());
  std::mt19937 random(12345);
  for (int round = 0; round < 6; ++round) {
    const pid_t child = fork_child([&] {
      DocStore writer(dir.path(), "docs");
      for (int pass = 0;; ++pass) {
        for (int i = 0; i < kRecords; ++i) {
          writer.put(Json{{"version", pass % 2 == 0 ? "new" : "old"},
                          {"slot", i},
                          {"padding", std::string(static_cast<std::size_t>(pass % 7) * 40, 'p')}},
                     ids[static_cast<std::size_t>(i)]);
        }
        if (pass % 3 == 2) {
          writer.put_stream({Json{{"id", ids[0]}, {"data", {{"version", "new"}, {"slot", 0}}}}});
        }
      }
    });
    ::usleep(static_cast<useconds_t>(2000 + random() % 20000));
    ::kill(child, SIGKILL);
    CHECK(wait_child(child) == 128 + SIGKILL);
    check_old_or_new(dir.path(), ids);
  }
}
