// The run history as a library: the SQLite store (versions, refusals that leave the
// file as it was, concurrent writers), runs built from result files, series per
// environment, and change points found where a slowdown was injected.
#include <sqlite3.h>

#include <thread>

#include <catch2/catch.hpp>

#include "history/record.h"
#include "history/render.h"
#include "history/series.h"
#include "history/store.h"
#include "scratch_dir.h"
#include "stepped_results.h"
#include "util/files.h"

using namespace storh;
using history::HistoryStore;
using storh::test::ScratchDir;

namespace {

const std::filesystem::path base_file =
    std::filesystem::path(STORH_TEST_SOURCE_DIR) / "tests/fixtures/html/compare-base.json";

history::NewRun run_of(const result::ResultFile& result, const history::RunSource& source = {}) {
  Expected<history::NewRun> run =
      history::new_run(result, "r.json", source, "2026-12-02T00:00:00Z");
  REQUIRE(run.ok());
  return std::move(*run);
}

std::unique_ptr<HistoryStore> open(const std::filesystem::path& file) {
  Expected<std::unique_ptr<HistoryStore>> store =
      HistoryStore::open(file, HistoryStore::Mode::create);
  INFO((store ? "" : store.error()));
  REQUIRE(store.ok());
  return std::move(*store);
}

std::int64_t add(HistoryStore& store, const result::ResultFile& result) {
  const history::NewRun run = run_of(result);
  Expected<std::int64_t> id = store.add(run.run, run.points, run.result_json);
  INFO((id ? "" : id.error()));
  REQUIRE(id.ok());
  return *id;
}

std::string hash_of(const std::filesystem::path& file) {
  Expected<std::string> hash = storh::file_hash(file);
  REQUIRE(hash.ok());
  return *hash;
}

// Runs SQL on a database file with the plain SQLite API, as another program would.
void sql(const std::filesystem::path& file, const std::string& text) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(file.string().c_str(), &db) == SQLITE_OK);
  char* error = nullptr;
  const int rc = sqlite3_exec(db, text.c_str(), nullptr, nullptr, &error);
  INFO((error ? error : ""));
  sqlite3_free(error);
  sqlite3_close(db);
  REQUIRE(rc == SQLITE_OK);
}

test::SteppedSeries series_spec() {
  test::SteppedSeries spec;
  spec.base = base_file;
  return spec;
}

}  // namespace

TEST_CASE("history: a new database is created at the current schema and keeps runs", "[history]") {
  ScratchDir dir;
  const auto results = test::stepped_results(series_spec());
  {
    std::unique_ptr<HistoryStore> store = open(dir / "sub/h.db");  // parent directories are created
    CHECK(add(*store, results[0]) == 1);
    CHECK(add(*store, results[1]) == 2);
  }
  Expected<std::unique_ptr<HistoryStore>> again =
      HistoryStore::open(dir / "sub/h.db", HistoryStore::Mode::existing);
  REQUIRE(again.ok());
  const auto runs = (*again)->runs();
  REQUIRE(runs.ok());
  REQUIRE(runs->size() == 2);
  CHECK((*runs)[0].commit == test::stepped_commit(1));
  CHECK((*runs)[0].run_time == "2026-11-01T10:00:00Z");
  CHECK((*runs)[0].suite == "uuid-filter");
  CHECK((*runs)[0].environment == history::environment_key(results[0]));
  const auto points = (*again)->points();
  REQUIRE(points.ok());
  CHECK(points->size() == 2 * results[0].metrics.size());
  // The stored result is the file itself: it reads back to the same metrics.
  const auto stored = (*again)->result_json(1);
  REQUIRE(stored.ok());
  CHECK(*stored == result::to_json_text(results[0]));
}

TEST_CASE("history: a stored metric with an unknown direction is refused when read", "[history]") {
  // Regression: the direction column was compared with "higher_is_better" wherever it
  // was used, so any other text was silently a time.
  ScratchDir dir;
  const auto results = test::stepped_results(series_spec());
  add(*open(dir / "h.db"), results[0]);
  sql(dir / "h.db", "UPDATE metrics SET direction = 'sideways' WHERE rowid = 1");
  const auto points = open(dir / "h.db")->points();
  REQUIRE_FALSE(points.ok());
  CHECK_THAT(points.error(), Catch::Contains("h.db: run 1, metric ") &&
                                 Catch::Contains(": direction \"sideways\" is neither "
                                                 "lower_is_better nor higher_is_better"));
}

TEST_CASE("history: the read commands need an existing database", "[history]") {
  ScratchDir dir;
  Expected<std::unique_ptr<HistoryStore>> store =
      HistoryStore::open(dir / "none.db", HistoryStore::Mode::existing);
  REQUIRE_FALSE(store.ok());
  CHECK_THAT(store.error(), Catch::Contains("none.db: no history there"));
  CHECK_FALSE(std::filesystem::exists(dir / "none.db"));
}

TEST_CASE("history: an empty file and a schema-0 database are migrated forward", "[history]") {
  ScratchDir dir;
  test::write_text(dir / "empty.db", "");
  sql(dir / "zero.db", "PRAGMA user_version = 0");
  for (const char* name : {"empty.db", "zero.db"}) {
    std::unique_ptr<HistoryStore> store = open(dir / name);
    add(*store, test::stepped_results(series_spec())[0]);
  }
  // Reopening does not migrate again, and the version is the current one.
  std::unique_ptr<HistoryStore> store = open(dir / "zero.db");
  CHECK(store->runs()->size() == 1);
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open((dir / "zero.db").string().c_str(), &db) == SQLITE_OK);
  sqlite3_stmt* statement = nullptr;
  sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &statement, nullptr);
  REQUIRE(sqlite3_step(statement) == SQLITE_ROW);
  CHECK(sqlite3_column_int(statement, 0) == history::kHistorySchema);
  sqlite3_finalize(statement);
  sqlite3_close(db);
}

TEST_CASE("history: a database it cannot use is refused and left as it was", "[history]") {
  ScratchDir dir;
  const auto results = test::stepped_results(series_spec());
  const std::filesystem::path file = dir / "h.db";
  {
    std::unique_ptr<HistoryStore> store = open(file);
    add(*store, results[0]);
  }
  SECTION("a newer schema") {
    sql(file, "PRAGMA user_version = 99");
    const std::string before = hash_of(file);
    Expected<std::unique_ptr<HistoryStore>> store =
        HistoryStore::open(file, HistoryStore::Mode::create);
    REQUIRE_FALSE(store.ok());
    CHECK_THAT(store.error(), Catch::Contains("h.db: history schema 99 is newer than this "
                                              "storh-host knows (1)"));
    CHECK(hash_of(file) == before);
  }
  SECTION("another program's SQLite database") {
    const std::filesystem::path other = dir / "other.db";
    sql(other, "CREATE TABLE accounts (id INTEGER); CREATE TABLE orders (id INTEGER)");
    const std::string before = hash_of(other);
    Expected<std::unique_ptr<HistoryStore>> store =
        HistoryStore::open(other, HistoryStore::Mode::create);
    REQUIRE_FALSE(store.ok());
    CHECK_THAT(store.error(), Catch::Contains("not a storh-host history (it has tables "
                                              "accounts, orders)"));
    CHECK(hash_of(other) == before);
  }
  SECTION("a file that is not SQLite") {
    test::write_text(file, "{\"schema_version\": 1}\n");
    Expected<std::unique_ptr<HistoryStore>> store =
        HistoryStore::open(file, HistoryStore::Mode::create);
    REQUIRE_FALSE(store.ok());
    CHECK_THAT(store.error(), Catch::Contains("h.db: not a usable history database (file is "
                                              "not a database)"));
    CHECK(test::read_text(file) == "{\"schema_version\": 1}\n");
  }
  SECTION("a corrupt database") {
    // Garbage over the second page (the runs table's b-tree).
    std::string bytes = test::read_text(file);
    REQUIRE(bytes.size() > 8192);
    for (std::size_t i = 4096; i < 8192; ++i) bytes[i] = static_cast<char>(0xA5);
    test::write_text(file, bytes);
    const std::string before = hash_of(file);
    Expected<std::unique_ptr<HistoryStore>> store =
        HistoryStore::open(file, HistoryStore::Mode::create);
    REQUIRE_FALSE(store.ok());
    CHECK_THAT(store.error(), Catch::Contains("h.db: not a usable history database ("));
    CHECK(hash_of(file) == before);
  }
  SECTION("a directory") {
    Expected<std::unique_ptr<HistoryStore>> store =
        HistoryStore::open(dir.path(), HistoryStore::Mode::create);
    REQUIRE_FALSE(store.ok());
    CHECK_THAT(store.error(), Catch::Contains("not a regular file"));
  }
}

TEST_CASE("history: a duplicate run is refused and nothing is added", "[history]") {
  ScratchDir dir;
  std::unique_ptr<HistoryStore> store = open(dir / "h.db");
  const auto results = test::stepped_results(series_spec());
  add(*store, results[0]);
  const history::NewRun again = run_of(results[0], {std::string("another"), {}, {}});
  Expected<std::int64_t> id = store->add(again.run, again.points, again.result_json);
  REQUIRE_FALSE(id.ok());
  CHECK_THAT(id.error(), Catch::Contains("already in the history as run 1"));
  CHECK(store->runs()->size() == 1);
  CHECK(store->points()->size() == results[0].metrics.size());
  // A run whose metrics cannot all be stored is not stored at all (one transaction).
  history::NewRun doubled = run_of(results[1]);
  doubled.points.push_back(doubled.points.front());  // the same metric twice
  id = store->add(doubled.run, doubled.points, doubled.result_json);
  REQUIRE_FALSE(id.ok());
  CHECK_THAT(id.error(), Catch::Contains("cannot store metric"));
  CHECK(store->runs()->size() == 1);
  CHECK(store->points()->size() == results[0].metrics.size());
}

TEST_CASE("history: runs that are not a whole, finished run are refused", "[history]") {
  result::ResultFile result = test::stepped_results(series_spec())[0];
  SECTION("interrupted") {
    result.interrupted = true;
    CHECK_THAT(history::new_run(result, "r.json", {}, "t").error(),
               Catch::Contains("r.json: the run was interrupted"));
  }
  SECTION("one shard") {
    result.experiment.shard = result::ShardRecord{2, 3, 4, 12};
    CHECK_THAT(history::new_run(result, "r.json", {}, "t").error(),
               Catch::Contains("shard 2 of 3 of a sharded run; join the shards first"));
  }
  SECTION("a time that is not ISO-8601 UTC") {
    CHECK_THAT(history::new_run(result, "r.json", {{}, {}, std::string("yesterday")}, "t").error(),
               Catch::Contains("run time \"yesterday\" is not ISO-8601 UTC"));
  }
  SECTION("no metric") {
    result.metrics.clear();
    CHECK_THAT(history::new_run(result, "r.json", {}, "t").error(),
               Catch::Contains("the result has no metric"));
  }
}

TEST_CASE("history: the flags override the commit and time the result records", "[history]") {
  const result::ResultFile result = test::stepped_results(series_spec())[0];
  const history::NewRun run = run_of(
      result, {std::string("abc"), std::string("topic"), std::string("2026-12-01T09:00:00Z")});
  CHECK(run.run.commit == "abc");
  CHECK(run.run.branch == "topic");
  CHECK(run.run.run_time == "2026-12-01T09:00:00Z");
  CHECK(run_of(result).run.commit == test::stepped_commit(1));
}

TEST_CASE("history: two writers at once both get their runs in", "[history][concurrency]") {
  ScratchDir dir;
  const auto results = test::stepped_results(series_spec());
  open(dir / "h.db");  // created and migrated once, then shared
  std::vector<std::string> errors(2);
  auto writer = [&](std::size_t which) {
    Expected<std::unique_ptr<HistoryStore>> store =
        HistoryStore::open(dir / "h.db", HistoryStore::Mode::create);
    if (!store) {
      errors[which] = store.error();
      return;
    }
    for (std::size_t i = which; i < results.size(); i += 2) {
      Expected<history::NewRun> run = history::new_run(results[i], "r", {}, "2026-12-02T00:00:00Z");
      if (!run) {
        errors[which] = run.error();
        return;
      }
      Expected<std::int64_t> id = (*store)->add(run->run, run->points, run->result_json);
      if (!id) errors[which] = id.error();
    }
  };
  std::thread a(writer, 0), b(writer, 1);
  a.join();
  b.join();
  CHECK(errors[0].empty());
  CHECK(errors[1].empty());
  CHECK(open(dir / "h.db")->runs()->size() == results.size());
}

TEST_CASE("history: 20 runs with a 20% slowdown from run 11 have one change point, there",
          "[history][change-points]") {
  ScratchDir dir;
  std::unique_ptr<HistoryStore> store = open(dir / "h.db");
  for (const auto& result : test::stepped_results(series_spec())) add(*store, result);
  Expected<history::HistoryView> view = history::read_view(*store, {});
  REQUIRE(view.ok());
  CHECK(view->series.size() == 7);  // one per metric, one environment
  REQUIRE(view->changes.size() == 1);
  const history::SeriesChange& change = view->changes[0];
  CHECK(change.series->metric == "uuid.monotonic");
  CHECK(change.run->commit == test::stepped_commit(11));
  CHECK(change.previous->commit == test::stepped_commit(10));
  CHECK(change.ratio() == Approx(1.2).epsilon(0.05));
  CHECK(change.worse());
  CHECK_FALSE(change.plan_changed);
  CHECK(change.point.p_value < 0.001);

  const std::string text = history::changes_text(view->changes, {});
  CHECK_THAT(text, Catch::Contains("Change points (E-divisive means, Welch t-test p < 0.001, at "
                                   "least 3 runs each side): 1"));
  CHECK_THAT(text, Catch::Contains("uuid.monotonic  E1"));
  CHECK_THAT(text, Catch::Contains(test::stepped_commit(11).substr(0, 12)));
}

TEST_CASE("history: a change point is new when the run that completes it is added",
          "[history][change-points]") {
  ScratchDir dir;
  std::unique_ptr<HistoryStore> store = open(dir / "h.db");
  const auto results = test::stepped_results(series_spec());
  // Runs 1..13: the slowdown at 11 has 3 runs after it, too few for Welch's test to
  // reach p < 0.001 against +-3% noise; the 14th run makes it a change point.
  for (int i = 0; i < 13; ++i) add(*store, results[static_cast<std::size_t>(i)]);
  Expected<history::HistoryView> before = history::read_view(*store, {});
  REQUIRE(before.ok());
  CHECK(before->changes.empty());
  add(*store, results[13]);
  Expected<history::HistoryView> after = history::read_view(*store, {});
  REQUIRE(after.ok());
  const auto added = history::new_changes(before->changes, after->changes, 3);
  REQUIRE(added.size() == 1);
  CHECK(added[0].run->commit == test::stepped_commit(11));
  CHECK_THAT(history::new_changes_text(added),
             Catch::Contains("history: new change point in uuid.monotonic (E1) at commit " +
                             test::stepped_commit(11).substr(0, 12)));
  // Once known, it is no longer new.
  add(*store, results[14]);
  Expected<history::HistoryView> later = history::read_view(*store, {});
  CHECK(history::new_changes(after->changes, later->changes, 3).empty());
  // A known change that the new run moves by a run or two is the same change.
  history::SeriesChange moved = after->changes.at(0);
  moved.point.index += 2;
  CHECK(history::new_changes(after->changes, {moved}, 3).empty());
  moved.point.index += 2;
  CHECK(history::new_changes(after->changes, {moved}, 3).size() == 1);
}

TEST_CASE("history: series of different environments are never mixed", "[history]") {
  ScratchDir dir;
  std::unique_ptr<HistoryStore> store = open(dir / "h.db");
  auto results = test::stepped_results(series_spec());
  // Runs 11..20 on a machine that is 20% slower for uuid.monotonic: with the
  // environments apart, neither series has a change point.
  for (std::size_t i = 10; i < results.size(); ++i) results[i].environment.cpu_model = "Other CPU";
  for (const auto& result : results) add(*store, result);
  Expected<history::HistoryView> view = history::read_view(*store, {});
  REQUIRE(view.ok());
  CHECK(history::environments(view->runs).size() == 2);
  CHECK(view->series.size() == 14);
  CHECK(view->changes.empty());
  for (const history::Series& one : view->series) {
    CHECK(one.runs.size() == 10);
    for (const history::HistoryRun* run : one.runs) CHECK(run->environment == one.environment);
  }
}

TEST_CASE("history: export writes every run and metric as JSON and CSV", "[history]") {
  ScratchDir dir;
  std::unique_ptr<HistoryStore> store = open(dir / "h.db");
  const auto results = test::stepped_results(series_spec());
  add(*store, results[0]);
  add(*store, results[1]);
  const auto runs = *store->runs();
  const auto points = *store->points();
  const auto json = nlohmann::json::parse(history::export_json(runs, points, std::nullopt));
  CHECK(json["history_schema"] == 1);
  REQUIRE(json["runs"].size() == 2);
  CHECK(json["runs"][1]["commit"] == test::stepped_commit(2));
  const auto monotonic =
      std::find_if(results[0].metrics.begin(), results[0].metrics.end(),
                   [](const result::Metric& metric) { return metric.key == "uuid.monotonic"; });
  REQUIRE(monotonic != results[0].metrics.end());
  CHECK(json["runs"][0]["metrics"]["uuid.monotonic"]["median"] == monotonic->seconds.median);
  CHECK_FALSE(json["runs"][0].contains("result"));
  const std::string csv = history::export_csv(runs, points);
  CHECK(std::count(csv.begin(), csv.end(), '\n') == 1 + 2 * 7);
  CHECK(csv.starts_with("run_id,run_time,commit,branch,suite,fingerprint,environment,metric,"));
}
