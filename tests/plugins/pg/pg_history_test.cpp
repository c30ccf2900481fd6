// The run history on a real PostgreSQL server (history/pg_store.h): the schema and its
// version, duplicates, refusals that leave the database as it was (another
// application's tables, a newer schema, a wrong password, a connection lost in the
// middle of an add), 8 writer processes at once, and copies between SQLite and
// PostgreSQL that lose nothing. One server serves every test case, each in a database
// of its own: initdb costs seconds.
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <cstdlib>
#include <set>
#include <thread>

#include "history/record.h"
#include "history/series.h"
#include "history/store.h"
#include "pg_server_fixture.h"
#include "process/child_process.h"
#include "stepped_results.h"
#include "test_support.h"

namespace pg = storh::engines::pg;
namespace history = storh::history;
using history::HistoryStore;
using storh::Error;
using storh::Expected;
using storh::test::cli;
using storh::test::contains;

namespace {

namespace fs = std::filesystem;

storh::test::PgServer& shared_server() {
  static storh::test::PgServer server;
  return server;
}

// What a libpq URI's query may hold of `text` as is; the rest is %XX.
std::string percent_encoded(const std::string& text) {
  std::string out;
  for (const unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += fmt::format("%{:02X}", c);
    }
  }
  return out;
}

// The URI of `database` on the shared server's socket, as `user` (with `password`).
std::string uri_of(const std::string& database, const std::string& user = pg::kSuperuser,
                   const std::string& password = "") {
  return fmt::format("postgresql://{}{}@/{}?host={}&port={}", user,
                     password.empty() ? "" : ":" + password, database,
                     percent_encoded(shared_server().server->socket_host()), pg::kSocketPort);
}

// A new, empty database on the shared server; returns its URI.
std::string fresh_database(const std::string& name) {
  pg::Connection admin = shared_server().connect();
  admin.exec("DROP DATABASE IF EXISTS " + name);
  admin.exec("CREATE DATABASE " + name);
  return uri_of(name);
}

// One value that `sql` selects in `database`, as text.
std::string select_one(const std::string& database, const std::string& sql) {
  pg::Connection connection = shared_server().connect(database);
  pg::Result result = connection.exec(sql);
  REQUIRE(result.rows() == 1);
  return std::string(result.text(0, 0));
}

storh::test::SteppedSeries series_spec() {
  storh::test::SteppedSeries spec;
  spec.base = fs::path(STORH_TEST_SOURCE_DIR) / "tests/fixtures/html/compare-base.json";
  return spec;
}

history::NewRun run_of(const storh::result::ResultFile& result) {
  Expected<history::NewRun> run = history::new_run(result, "r.json", {}, "2026-12-02T00:00:00Z");
  REQUIRE(run.ok());
  return std::move(*run);
}

std::unique_ptr<HistoryStore> open(const std::string& uri,
                                   HistoryStore::Mode mode = HistoryStore::Mode::create) {
  Expected<std::unique_ptr<HistoryStore>> store = HistoryStore::open(uri, mode);
  INFO((store ? "" : store.error()));
  REQUIRE(store.ok());
  return std::move(*store);
}

std::int64_t add(HistoryStore& store, const storh::result::ResultFile& result) {
  const history::NewRun run = run_of(result);
  Expected<std::int64_t> id = store.add(run.run, run.points, run.result_json);
  INFO((id ? "" : id.error()));
  REQUIRE(id.ok());
  return *id;
}

std::string refusal(const std::string& uri) {
  Expected<std::unique_ptr<HistoryStore>> store =
      HistoryStore::open(uri, HistoryStore::Mode::create);
  REQUIRE_FALSE(store.ok());
  return store.error();
}

}  // namespace

TEST_CASE("pg history: a new database gets the schema, keeps runs and refuses a duplicate",
          "[pg][history]") {
  const std::string uri = fresh_database("h_basic");
  Expected<std::unique_ptr<HistoryStore>> none =
      HistoryStore::open(uri, HistoryStore::Mode::existing);
  REQUIRE_FALSE(none.ok());
  CHECK_THAT(none.error(), Catch::Contains("no history there"));
  CHECK(select_one("h_basic", "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'") == "0");

  const auto results = storh::test::stepped_results(series_spec());
  {
    std::unique_ptr<HistoryStore> store = open(uri);
    CHECK(add(*store, results[0]) == 1);
    CHECK(add(*store, results[1]) == 2);
    const history::NewRun again = run_of(results[0]);
    Expected<std::int64_t> id = store->add(again.run, again.points, again.result_json);
    REQUIRE_FALSE(id.ok());
    CHECK_THAT(id.error(), Catch::Contains("already in the history as run 1 (added "
                                           "2026-12-02T00:00:00Z, commit c0ffee010000); nothing "
                                           "was added"));
  }
  CHECK(select_one("h_basic",
                   "SELECT application || ' ' || schema_version FROM "
                   "storh_history_meta") == "storh-host history 1");
  std::unique_ptr<HistoryStore> store = open(uri, HistoryStore::Mode::existing);
  const auto runs = store->runs();
  REQUIRE(runs->size() == 2);
  CHECK((*runs)[0].commit == storh::test::stepped_commit(1));
  CHECK((*runs)[1].run_time == "2026-11-02T10:00:00Z");
  const auto points = store->points();
  REQUIRE(points->size() == 2 * results[0].metrics.size());
  const history::NewRun first = run_of(results[0]);
  CHECK((*points)[0].median == first.points[0].median);  // doubles round-trip exactly
  CHECK(*store->result_json(1) == first.result_json);
}

TEST_CASE("pg history: 8 writer processes at once each get their runs in once",
          "[pg][history][concurrency]") {
  // A fresh database: the 8 also race to create the schema. Each adds run 1 (one
  // wins, 7 are refused as duplicates) and its share of runs 2..20.
  const std::string uri = fresh_database("h_writers");
  storh::test::ScratchDir dir;
  const std::vector<fs::path> files =
      storh::test::write_stepped_results(series_spec(), dir / "runs");
  constexpr int kWriters = 8;
  std::vector<storh::process::ProcessOutcome> outcomes(kWriters);
  std::vector<std::thread> writers;
  for (int writer = 0; writer < kWriters; ++writer) {
    std::vector<std::string> argv = {STORH_TEST_HOST, "history", "add", "--db=" + uri,
                                     files[0].string()};
    for (std::size_t i = 1 + static_cast<std::size_t>(writer); i < files.size(); i += kWriters) {
      argv.push_back(files[i].string());
    }
    writers.emplace_back([&outcomes, writer, argv] {
      storh::process::ProcessOptions options;
      options.argv = argv;
      options.capture_stdout = true;
      outcomes[static_cast<std::size_t>(writer)] = storh::process::run_process(options);
    });
  }
  for (std::thread& writer : writers) writer.join();

  int first_added = 0;
  int first_refused = 0;
  for (const storh::process::ProcessOutcome& outcome : outcomes) {
    INFO(outcome.stdout_text << outcome.stderr_tail);
    REQUIRE(outcome.exit_code.has_value());
    if (contains(outcome.stdout_text, "run-01.json as run")) ++first_added;
    if (contains(outcome.stderr_tail, "already in the history as run")) ++first_refused;
    CHECK(*outcome.exit_code == (contains(outcome.stdout_text, "run-01.json as run") ? 0 : 2));
  }
  CHECK(first_added == 1);
  CHECK(first_refused == kWriters - 1);

  std::unique_ptr<HistoryStore> store = open(uri, HistoryStore::Mode::existing);
  Expected<history::HistoryView> view = history::read_view(*store, {});
  REQUIRE(view.ok());
  std::multiset<std::string> commits;
  for (const history::HistoryRun& run : view->runs) commits.insert(run.commit);
  REQUIRE(view->runs.size() == files.size());
  for (int run = 1; run <= static_cast<int>(files.size()); ++run) {
    CHECK(commits.count(storh::test::stepped_commit(run)) == 1);
  }
  // In run order whatever the order of adding: one change point, at run 11.
  REQUIRE(view->changes.size() == 1);
  CHECK(view->changes[0].series->metric == "uuid.monotonic");
  CHECK(view->changes[0].run->commit == storh::test::stepped_commit(11));
  CHECK(view->changes[0].worse());
}

TEST_CASE("pg history: a database it cannot use is refused and left as it was", "[pg][history]") {
  SECTION("another application's tables") {
    const std::string uri = fresh_database("h_foreign");
    shared_server().connect("h_foreign").exec("CREATE TABLE accounts (id INTEGER)");
    CHECK_THAT(refusal(uri), Catch::Contains("h_foreign") &&
                                 Catch::Contains("a PostgreSQL database that is not a storh-host "
                                                 "history (it has table accounts); nothing was "
                                                 "changed"));
    CHECK(select_one("h_foreign",
                     "SELECT string_agg(tablename, ',') FROM pg_tables WHERE "
                     "schemaname = 'public'") == "accounts");
  }
  SECTION("a newer schema, and another application's marker") {
    const std::string uri = fresh_database("h_newer");
    add(*open(uri), storh::test::stepped_results(series_spec())[0]);
    shared_server().connect("h_newer").exec("UPDATE storh_history_meta SET schema_version = 99");
    CHECK_THAT(refusal(uri), Catch::Contains("history schema 99 is newer than this storh-host "
                                             "knows (1); use a newer storh-host"));
    CHECK(select_one("h_newer", "SELECT schema_version FROM storh_history_meta") == "99");
    shared_server().connect("h_newer").exec(
        "UPDATE storh_history_meta SET application = 'other', schema_version = 1");
    CHECK_THAT(refusal(uri), Catch::Contains("of another application (storh_history_meta says "
                                             "\"other\")"));
    CHECK(select_one("h_newer", "SELECT count(*) FROM runs") == "1");
  }
  SECTION("a wrong password: libpq's message, and the password never shown") {
    fresh_database("h_password");
    shared_server().require_password("historian", "right-secret");
    const std::string error = refusal(uri_of("h_password", "historian", "wrong-secret"));
    CHECK_THAT(error, Catch::Contains("postgresql://historian:***@/h_password") &&
                          Catch::Contains("cannot connect:") &&
                          Catch::Contains("password authentication failed for user "
                                          "\"historian\""));
    CHECK_FALSE(contains(error, "wrong-secret"));
    CHECK(select_one("h_password",
                     "SELECT count(*) FROM pg_tables WHERE schemaname = "
                     "'public'") == "0");
    // The right password gets in; messages mask it too.
    storh::test::ScratchDir dir;
    const std::vector<fs::path> files =
        storh::test::write_stepped_results(series_spec(), dir.path());
    const storh::test::CliResult added =
        cli({"history", "add", files[0].string(),
             "--db=" + uri_of("h_password", "historian", "right-secret")});
    INFO(added.err);
    CHECK(added.code == 0);
    CHECK(contains(added.out, "to postgresql://historian:***@/h_password"));
    CHECK_FALSE(contains(added.out + added.err, "right-secret"));
  }
}

TEST_CASE("pg history: an add whose connection is lost half way stores nothing", "[pg][history]") {
  const std::string uri = fresh_database("h_lost");
  const auto results = storh::test::stepped_results(series_spec());
  std::unique_ptr<HistoryStore> store = open(uri);
  add(*store, results[0]);
  // Holding metrics locked stops the add after it stored its run row; then its
  // backend is terminated, as when the server goes away.
  pg::Connection blocker = shared_server().connect("h_lost");
  blocker.exec("BEGIN; LOCK TABLE metrics IN ACCESS EXCLUSIVE MODE");
  const history::NewRun second = run_of(results[1]);
  Expected<std::int64_t> added = Error{"not run"};
  std::thread writer([&] { added = store->add(second.run, second.points, second.result_json); });
  bool terminated = false;
  for (int attempt = 0; attempt < 6000 && !terminated; ++attempt) {
    pg::Result waiting = blocker.exec(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = 'h_lost' AND "
        "wait_event_type = 'Lock'");
    terminated = waiting.rows() == 1;
    if (!terminated) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  writer.join();
  blocker.exec("ROLLBACK");
  REQUIRE(terminated);
  REQUIRE_FALSE(added.ok());
  CHECK_THAT(added.error(), Catch::StartsWith("postgresql://storh@/h_lost?") &&
                                Catch::Contains(": cannot store metric"));
  CHECK(select_one("h_lost", "SELECT count(*) FROM runs") == "1");
  CHECK(select_one("h_lost", "SELECT count(DISTINCT run_id) FROM metrics") == "1");
  // The history takes the run on a new connection.
  CHECK(add(*open(uri), results[1]) > 1);
}

TEST_CASE("pg history: copy from SQLite into PostgreSQL and back loses nothing", "[pg][history]") {
  const std::string uri = fresh_database("h_copy");
  storh::test::ScratchDir dir;
  const std::vector<fs::path> files =
      storh::test::write_stepped_results(series_spec(), dir / "runs");
  const std::string first_db = (dir / "first.db").string();
  std::vector<std::string> add_args = {"history", "add", "--db=" + first_db};
  for (const fs::path& file : files) add_args.push_back(file.string());
  REQUIRE(cli(add_args).code == 0);

  storh::test::CliResult there = cli({"history", "copy", "--from=" + first_db, "--to=" + uri});
  INFO(there.err);
  REQUIRE(there.code == 0);
  CHECK(contains(there.out, "history: copied 20 run(s) from "));
  // Again: everything is there already.
  CHECK(contains(cli({"history", "copy", "--from=" + first_db, "--to=" + uri}).out,
                 "copied 0 run(s)"));
  const std::string back_db = (dir / "back.db").string();
  REQUIRE(cli({"history", "copy", "--from=" + uri, "--to=" + back_db}).code == 0);

  // $STORH_HISTORY may hold the URI.
  ::setenv("STORH_HISTORY", uri.c_str(), 1);
  const storh::test::CliResult from_variable = cli({"history", "export", "--results"});
  const storh::test::CliResult changes_pg = cli({"history", "changes"});
  ::unsetenv("STORH_HISTORY");
  REQUIRE(from_variable.code == 0);
  const storh::test::CliResult first_export =
      cli({"history", "export", "--results", "--db=" + first_db});
  const storh::test::CliResult back_export =
      cli({"history", "export", "--results", "--db=" + back_db});
  REQUIRE(first_export.code == 0);
  CHECK(back_export.out == first_export.out);
  CHECK(from_variable.out == first_export.out);
  CHECK(changes_pg.out == cli({"history", "changes", "--db=" + first_db}).out);
  CHECK(contains(changes_pg.out, storh::test::stepped_commit(11).substr(0, 12)));
}
