// PostgreSQL's own statistics as engine counters (pg/pg_stats.h, docs/counters.md),
// against one real server the test starts and every cell reaches as a DSN (each cell
// gets a database of its own): what a select-only cell reports, which counters repeat
// between two runs with one seed, and a gate that fails on blocks read per transaction
// when the head side drops pgbench_accounts' primary key. The server does not load
// pg_stat_statements: the cells run without per-statement counters and say so.
#include <fmt/format.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "pg/pgbench_tables.h"
#include "pg_server_fixture.h"
#include "pg_suite_run.h"
#include "test_support.h"

using storh::test::cli;
using storh::test::contains;
using storh::test::ScratchDir;

namespace {

constexpr const char* kSelectOnlyKey = "pg.select_only[clients=1,transactions=200]";
constexpr int kSelectOnlyTransactions = 200;

// One server for every test here: small shared buffers (2MB), so that a sequential
// scan of pgbench_accounts (1640 blocks at scale 1) reads through a ring of buffers
// and its blocks are read from the kernel, where an index lookup hits the cache.
storh::test::PgServer& stats_server() {
  static auto shared = [] {
    storh::engines::pg::ServerSettings settings;
    settings.shared_buffers = "2MB";
    return std::make_unique<storh::test::PgServer>(settings);
  }();
  return *shared;
}

// NOLINTNEXTLINE(bugprone-exception-escape): a test's aggregate; a throw fails the test
struct SelectOnlyRun {
  storh::test::CliResult cli;
  std::string file;
  nlohmann::json metric;
};

// select_only at 1 client, seed 7, on the shared server; `after_load` runs after
// pgbench -i. The result file stays in `dir`.
SelectOnlyRun run_select_only(const ScratchDir& dir, const std::string& after_load) {
  const auto suite = dir / "pg.toml";
  const nlohmann::json dsn = stats_server().server->conninfo("postgres");
  const nlohmann::json sql = after_load;
  storh::test::write_text(
      suite, fmt::format("name = \"pg-counters\"\ntimeout = \"120s\"\n[load]\nprogress = 0\n"
                         "clients = 1\ntransactions = {}\n[engines.pg]\n"
                         "operations = [\"select_only\"]\nparams = {{ server = \"dsn\", dsn = {}, "
                         "random_seed = 7, after_load = {} }}\n",
                         kSelectOnlyTransactions, dsn.dump(), sql.dump()));
  SelectOnlyRun run;
  run.file = (dir / "pg.json").string();
  run.cli = cli({suite.string(), std::string("--plugin-path=") + STORH_TEST_PLUGIN_DIR,
                 "--output=" + run.file, "--work-dir=" + (dir / "work").string()});
  if (run.cli.code == 0) {
    run.metric = storh::test::metric(nlohmann::json::parse(storh::test::read_text(run.file)),
                                     kSelectOnlyKey);
  }
  return run;
}

double stat_per_transaction(const SelectOnlyRun& run, const std::string& counter) {
  const nlohmann::json& engine = run.metric["engine_counters"];
  INFO(counter << " in " << engine.dump());
  REQUIRE(engine.contains(counter));
  return engine[counter]["per_item"].get<double>();
}

// The base runs, once for the file's tests: two runs of one seed with the index.
struct SelectOnlyBaseRuns {
  ScratchDir first_dir{storh::test::server_scratch_base()};
  ScratchDir second_dir{storh::test::server_scratch_base()};
  SelectOnlyRun first = run_select_only(first_dir, "");
  SelectOnlyRun second = run_select_only(second_dir, "");
};

const SelectOnlyBaseRuns& select_only_base_runs() {
  static const auto runs = std::make_unique<SelectOnlyBaseRuns>();
  return *runs;
}

// xact_commit, tup_fetched and tup_returned of a database, once its other backends
// have gone (a backend reports its counts as it exits).
struct ServerCounts {
  double xact_commit = 0;
  double tup_fetched = 0;
  double tup_returned = 0;
};

ServerCounts database_counts(storh::engines::pg::Connection& conn, const std::string& database) {
  for (int attempt = 0; attempt < 2000; ++attempt) {
    if (conn.exec("SELECT count(*) FROM pg_stat_activity WHERE datname = '" + database + "'")
            .integer(0, 0, "backends") == 0) {
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  conn.exec("SELECT pg_stat_clear_snapshot()");
  const auto row = conn.exec(
      "SELECT xact_commit, tup_fetched, tup_returned FROM pg_stat_database WHERE datname = '" +
      database + "'");
  return {static_cast<double>(row.integer(0, 0, "xact_commit")),
          static_cast<double>(row.integer(0, 1, "tup_fetched")),
          static_cast<double>(row.integer(0, 2, "tup_returned"))};
}

// pgbench -S's statement 200 times on one connection to a new database loaded as the
// cell's is, between two readings of its counts; the database is dropped afterwards.
ServerCounts select_by_hand() {
  namespace pg = storh::engines::pg;
  const std::string database = "counters_by_hand";
  pg::Connection admin = stats_server().connect("postgres");
  admin.exec("CREATE DATABASE " + database);
  {
    pg::Connection loader = stats_server().connect(database);
    pg::init_tables(loader, 1, 100);
  }
  const ServerCounts before = database_counts(admin, database);
  {
    pg::Connection client = stats_server().connect(database);
    for (int i = 0; i < kSelectOnlyTransactions; ++i) {
      client.exec(fmt::format("SELECT abalance FROM pgbench_accounts WHERE aid = {}", 1 + i * 487));
    }
  }
  const ServerCounts after = database_counts(admin, database);
  admin.exec("DROP DATABASE " + database);
  return {after.xact_commit - before.xact_commit, after.tup_fetched - before.tup_fetched,
          after.tup_returned - before.tup_returned};
}

}  // namespace

TEST_CASE("pg counters: a select-only cell's counters are what the server counted",
          "[pg][engine-counters]") {
  const SelectOnlyRun& run = select_only_base_runs().first;
  INFO(run.cli.out << run.cli.err);
  REQUIRE(run.cli.code == 0);
  // The same work by hand on a database of its own: one new connection (pgbench -C
  // would make one per transaction), 200 primary-key selects, then the server's counts.
  const ServerCounts by_hand = select_by_hand();
  const double n = kSelectOnlyTransactions;
  CHECK(stat_per_transaction(run, "pg.xact_commit") * n == Approx(by_hand.xact_commit));
  CHECK(stat_per_transaction(run, "pg.tup_fetched") * n == Approx(by_hand.tup_fetched));
  CHECK(stat_per_transaction(run, "pg.tup_returned") * n == Approx(by_hand.tup_returned));
  // One commit per transaction, and the connection's start commits one more.
  CHECK(by_hand.xact_commit == kSelectOnlyTransactions + 1);
  CHECK(stat_per_transaction(run, "pg.xact_rollback") == 0);
  CHECK(stat_per_transaction(run, "pg.tup_inserted") == 0);
  CHECK(stat_per_transaction(run, "pg.tup_updated") == 0);
  CHECK(stat_per_transaction(run, "pg.tup_deleted") == 0);
  // An index lookup: the root, a leaf and the heap page, at least.
  CHECK(stat_per_transaction(run, "pg.blks_hit") + stat_per_transaction(run, "pg.blks_read") >= 3);
  // A read-only workload writes no WAL records of its own.
  CHECK(stat_per_transaction(run, "pg.wal_records") == 0);
  // Shown in the text report as the engine's, beside the host's column.
  CHECK(contains(run.cli.out, "engine's counters per item"));
  CHECK(contains(run.cli.out, "pg.xact_commit 1.005 commits"));
}

TEST_CASE("pg counters: a DSN server without pg_stat_statements runs the cell and says so",
          "[pg][engine-counters][statements]") {
  const SelectOnlyRun& run = select_only_base_runs().first;
  INFO(run.cli.out << run.cli.err);
  REQUIRE(run.cli.code == 0);
  CHECK(contains(run.cli.err, "does not load pg_stat_statements"));
  CHECK(contains(run.cli.err, "no per-statement counters (pg.stmt.*)"));
  // The server's own counters are there; per-statement ones are not.
  CHECK(run.metric["engine_counters"].contains("pg.xact_commit"));
  for (const auto& [name, value] : run.metric["engine_counters"].items()) {
    INFO(name);
    CHECK(name.rfind("pg.stmt.", 0) != 0);
  }
}

TEST_CASE("pg counters: two runs with one seed give equal counts for every repeating counter",
          "[pg][engine-counters]") {
  const SelectOnlyBaseRuns& runs = select_only_base_runs();
  REQUIRE(runs.first.cli.code == 0);
  REQUIRE(runs.second.cli.code == 0);
  const nlohmann::json& first = runs.first.metric["engine_counters"];
  const nlohmann::json& second = runs.second.metric["engine_counters"];
  storh::test::check_repeating_equal(first, second, 8);
}

TEST_CASE("pg counters: the gate fails on blocks read per transaction when the index is dropped",
          "[pg][engine-counters][gate]") {
  const SelectOnlyBaseRuns& runs = select_only_base_runs();
  REQUIRE(runs.first.cli.code == 0);
  ScratchDir head_dir(storh::test::server_scratch_base());
  const SelectOnlyRun head = run_select_only(
      head_dir, "ALTER TABLE pgbench_accounts DROP CONSTRAINT pgbench_accounts_pkey");
  INFO(head.cli.out << head.cli.err);
  REQUIRE(head.cli.code == 0);
  CHECK(stat_per_transaction(head, "pg.blks_read") >
        100 * stat_per_transaction(runs.first, "pg.blks_read"));

  // tps is left to its noise (any threshold passes); blocks read decide.
  const auto same = cli({"gate", runs.first.file, runs.second.file, "--threshold=100000",
                         "--counter=pg.blks_read=10"});
  INFO(same.out << same.err);
  CHECK(same.code == 0);
  const auto dropped =
      cli({"gate", runs.first.file, head.file, "--threshold=100000", "--counter=pg.blks_read=10"});
  INFO(dropped.out << dropped.err);
  CHECK(dropped.code == 1);
  CHECK(contains(dropped.out, "pg.blks_read"));
}

TEST_CASE("pg counters: ab explains synchronous_commit = off by WAL syncs per transaction",
          "[pg][engine-counters][ab]") {
  ScratchDir dir(storh::test::server_scratch_base());
  const auto suite = dir / "pg.toml";
  const nlohmann::json dsn = stats_server().server->conninfo("postgres");
  storh::test::write_text(
      suite, fmt::format("name = \"pg-ab\"\ntimeout = \"120s\"\n[load]\nprogress = 0\n"
                         "clients = 1\ntransactions = 100\n[engines.pg]\n"
                         "operations = [\"tpcb_like\"]\nparams = {{ server = \"dsn\", dsn = {}, "
                         "random_seed = 7 }}\n",
                         dsn.dump()));
  const auto ab =
      cli({"ab", suite.string(), std::string("--plugin-path=") + STORH_TEST_PLUGIN_DIR,
           "--base-set", "pg.synchronous_commit=on", "--head-set", "pg.synchronous_commit=off",
           "--pairs=4", "--lenient", "--threshold=100000", "--output=" + (dir / "ab.json").string(),
           "--work-dir=" + (dir / "work").string()});
  INFO(ab.out << ab.err);
  const std::string marker = "pg.wal_sync per transaction 1 -> ";
  const std::size_t at = ab.out.find(marker);
  REQUIRE(at != std::string::npos);
  CHECK(contains(ab.out, "engine counters that changed with it:"));
  // Committing no longer waits for the WAL to reach the disk: the WAL writer syncs now
  // and then, far less than once per transaction.
  CHECK(std::stod(ab.out.substr(at + marker.size())) < 0.5);
}
