// The pg engine as a plain library, against real servers the tests start: pgbench's
// tables and scripts, its random draws, the consistency check, and what faults give.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <tuple>
#include <vector>

#include "pg/pgbench_script.h"
#include "pg/pgbench_tables.h"
#include "pg_server_fixture.h"

namespace pg = storh::engines::pg;
using storh::test::PgServer;

namespace storh::test {

bool process_gone(pid_t pid) {
  if (::kill(pid, 0) != 0) return errno == ESRCH;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string pid_field, name, state;
  return !(stat >> pid_field >> name >> state) || state == "Z";
}

}  // namespace storh::test

namespace {

using History = std::vector<std::tuple<std::int64_t, std::int64_t, std::int64_t, std::int64_t>>;

History read_history(pg::Connection& conn) {
  const pg::Result rows =
      conn.exec("SELECT tid, bid, aid, delta FROM pgbench_history ORDER BY ctid");
  History history;
  for (int row = 0; row < rows.rows(); ++row) {
    history.emplace_back(rows.integer(row, 0, "tid"), rows.integer(row, 1, "bid"),
                         rows.integer(row, 2, "aid"), rows.integer(row, 3, "delta"));
  }
  return history;
}

}  // namespace

TEST_CASE("pg: init at scale 1 loads pgbench's rows, and again at scale 2", "[pg]") {
  PgServer server;
  pg::Connection conn = server.connect();
  pg::init_tables(conn, 1, 100);
  CHECK(pg::count_rows(conn) == pg::TableCounts{1, 10, 100000, 0});
  CHECK(pg::init_rows(1) == 100011);
  // Primary keys exist, as pgbench -i makes them.
  const pg::Result keys = conn.exec(
      "SELECT count(*) FROM pg_indexes WHERE indexname IN ('pgbench_accounts_pkey', "
      "'pgbench_branches_pkey', 'pgbench_tellers_pkey')");
  CHECK(keys.integer(0, 0, "keys") == 3);
  pg::init_tables(conn, 2, 90);  // drops and reloads
  CHECK(pg::count_rows(conn) == pg::TableCounts{2, 20, 200000, 0});
  // Every row is pgbench's: ids 1..n (the keys make them distinct), each in its branch,
  // across the digit carries (9 -> 10, 99999 -> 100000) and the branch boundary.
  const pg::Result rows = conn.exec(
      "SELECT (SELECT min(aid) = 1 AND max(aid) = 200000 AND bool_and(bid = (aid - 1) / 100000 + 1 "
      "AND abalance = 0 AND filler = '') FROM pgbench_accounts), "
      "(SELECT min(tid) = 1 AND max(tid) = 20 AND bool_and(bid = (tid - 1) / 10 + 1 "
      "AND tbalance = 0 AND filler IS NULL) FROM pgbench_tellers), "
      "(SELECT min(bid) = 1 AND max(bid) = 2 AND bool_and(bbalance = 0) FROM pgbench_branches)");
  CHECK(rows.text(0, 0) == "t");
  CHECK(rows.text(0, 1) == "t");
  CHECK(rows.text(0, 2) == "t");
  const pg::Result options =
      conn.exec("SELECT reloptions::text FROM pg_class WHERE relname = 'pgbench_accounts'");
  CHECK(options.text(0, 0) == "{fillfactor=90}");
  CHECK_THROWS_WITH(pg::init_tables(conn, 0, 100), Catch::Contains("scale 0"));
}

TEST_CASE("pg: the scripts send pgbench's statements", "[pg]") {
  const pg::Draw draw{17, 1, 3, -42};
  const std::string insert =
      "INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (3, 1, 17, -42, "
      "CURRENT_TIMESTAMP);";
  CHECK(pg::script_sql(pg::Script::tpcb_like, draw) ==
        std::vector<std::string>{
            "BEGIN;", "UPDATE pgbench_accounts SET abalance = abalance + -42 WHERE aid = 17;",
            "SELECT abalance FROM pgbench_accounts WHERE aid = 17;",
            "UPDATE pgbench_tellers SET tbalance = tbalance + -42 WHERE tid = 3;",
            "UPDATE pgbench_branches SET bbalance = bbalance + -42 WHERE bid = 1;", insert,
            "END;"});
  CHECK(pg::script_sql(pg::Script::simple_update, draw).size() == 5);
  CHECK(pg::script_sql(pg::Script::select_only, draw) ==
        std::vector<std::string>{"SELECT abalance FROM pgbench_accounts WHERE aid = 17;"});
  CHECK(pg::script_from_name("select_only") == pg::Script::select_only);
  CHECK_FALSE(pg::script_from_name("tpcb"));
}

TEST_CASE("pg: scripts run in both query modes and keep the balances consistent", "[pg]") {
  PgServer server;
  pg::Connection admin = server.connect();
  pg::init_tables(admin, 1, 100);
  const auto mode = GENERATE(pg::QueryMode::simple, pg::QueryMode::prepared);
  pg::ScriptClient client(server.connect(), mode, 1, 7);
  for (int i = 0; i < 30; ++i) client.run(pg::Script::tpcb_like);
  CHECK(pg::count_rows(admin).history == 30);
  CHECK(pg::check_balances(pg::sum_balances(admin), false).empty());
  for (int i = 0; i < 20; ++i) client.run(pg::Script::select_only);
  CHECK(pg::count_rows(admin).history == 30);
  for (int i = 0; i < 10; ++i) client.run(pg::Script::simple_update);
  CHECK(pg::count_rows(admin).history == 40);
  const pg::Balances sums = pg::sum_balances(admin);
  CHECK(pg::check_balances(sums, true).empty());
  // Branches no longer match accounts once simple_update ran: the rule knows it.
  if (sums.accounts != sums.branches) CHECK_FALSE(pg::check_balances(sums, false).empty());
  CHECK(client.last_draw().aid >= 1);
  CHECK(client.last_draw().aid <= 100000);
}

TEST_CASE("pg: the consistency check fails on a wrong balance", "[pg]") {
  PgServer server;
  pg::Connection admin = server.connect();
  pg::init_tables(admin, 1, 100);
  pg::ScriptClient client(server.connect(), pg::QueryMode::prepared, 1, 3);
  for (int i = 0; i < 5; ++i) client.run(pg::Script::tpcb_like);
  admin.exec("UPDATE pgbench_branches SET bbalance = bbalance + 1");
  CHECK_THAT(pg::check_balances(pg::sum_balances(admin), false),
             Catch::Contains("tellers' balances do not match the branches'"));
  admin.exec("UPDATE pgbench_tellers SET tbalance = tbalance + 1 WHERE tid = 1");
  admin.exec("UPDATE pgbench_accounts SET abalance = abalance + 7 WHERE aid = 1");
  CHECK_THAT(pg::check_balances(pg::sum_balances(admin), false),
             Catch::Contains("accounts' balances do not match the history's"));
}

TEST_CASE("pg: a missing row is a wrong answer, not a fast transaction", "[pg]") {
  PgServer server;
  pg::Connection admin = server.connect();
  pg::init_tables(admin, 1, 100);
  admin.exec("DELETE FROM pgbench_accounts");
  pg::ScriptClient client(server.connect(), pg::QueryMode::simple, 1, 1);
  CHECK_THROWS_WITH(client.run(pg::Script::tpcb_like),
                    Catch::Contains("changed 0 rows, expected 1"));
  // The failed transaction was rolled back: the connection takes the next one.
  CHECK_THROWS_WITH(client.run(pg::Script::select_only), Catch::Contains("returned 0 rows"));
  CHECK(pg::count_rows(admin).history == 0);
}

TEST_CASE("pg: client k draws what pgbench's client k draws for the same seed", "[pg]") {
  PgServer server;
  pg::Connection admin = server.connect();
  pg::init_tables(admin, 1, 100);
  const pg::Installation installation = pg::find_installation("");
  const std::string command = "'" + (installation.bindir / "pgbench").string() +
                              "' -n -c 1 -t 25 --random-seed=42 -h '" +
                              server.server->socket_host() + "' -U storh postgres > /dev/null 2>&1";
  REQUIRE(std::system(command.c_str()) == 0);
  const History theirs = read_history(admin);
  REQUIRE(theirs.size() == 25);
  admin.exec("TRUNCATE pgbench_history");
  pg::ScriptClient client(server.connect(), pg::QueryMode::simple, 1, pg::client_seed(42, 0));
  for (int i = 0; i < 25; ++i) client.run(pg::Script::tpcb_like);
  CHECK(read_history(admin) == theirs);
}

TEST_CASE("pg: settings parse as name=value pairs, and a bad one is named", "[pg]") {
  CHECK(pg::parse_settings(" work_mem = 4MB ; jit=off;") ==
        std::vector<pg::Setting>{{"work_mem", "4MB"}, {"jit", "off"}});
  CHECK(pg::parse_settings("").empty());
  CHECK_THROWS_WITH(pg::parse_settings("work_mem"),
                    Catch::Contains("\"work_mem\" is not name=value"));
  pg::ServerSettings settings;
  settings.wal_level = "minimal";
  settings.extra = {{"work_mem", "8MB"}};
  CHECK(settings.all() == std::vector<pg::Setting>{{"wal_level", "minimal"},
                                                   {"max_wal_senders", "0"},
                                                   {"work_mem", "8MB"}});
  CHECK(pg::session_options({{"a", "x y"}}) == "-c a=x\\ y");
}

TEST_CASE("pg: a local server takes its settings and leaves nothing behind", "[pg]") {
  storh::test::ScratchDir scratch(storh::test::server_scratch_base());
  const auto dir = scratch.path() / "pg";
  pid_t pid = 0;
  {
    pg::ServerOptions options;
    options.settings.synchronous_commit = "off";
    options.settings.max_connections = 7;
    options.settings.extra = {{"work_mem", "8MB"}};
    pg::BenchDatabase database(options, dir);
    pg::Connection conn = database.connect();
    CHECK(conn.show("synchronous_commit") == "off");
    CHECK(conn.show("work_mem") == "8MB");
    CHECK(conn.show("listen_addresses").empty());  // no TCP port
    CHECK(database.limits().max_connections == 7);
    CHECK(database.server_gone().empty());
    CHECK_THROWS_WITH(pg::check_client_slots(database, 8),
                      Catch::Contains("raise pg.max_connections to at least 8"));
    CHECK_NOTHROW(pg::check_client_slots(database, 7));
    std::ifstream pid_file(dir / "data" / "postmaster.pid");
    pid_file >> pid;
    REQUIRE(pid > 0);
  }
  CHECK(storh::test::process_gone(pid));
  CHECK_FALSE(std::filesystem::exists(dir));
}

TEST_CASE("pg: a killed postmaster is reported as a crash and cleaned up", "[pg]") {
  storh::test::ScratchDir scratch(storh::test::server_scratch_base());
  const auto dir = scratch.path() / "pg";
  pid_t pid = 0;
  {
    pg::BenchDatabase database(pg::ServerOptions{}, dir);
    pg::Connection admin = database.connect();
    pg::init_tables(admin, 1, 100);
    pg::ScriptClient client(database.connect(), pg::QueryMode::prepared, 1, 5);
    client.run(pg::Script::tpcb_like);
    std::ifstream pid_file(dir / "data" / "postmaster.pid");
    pid_file >> pid;
    REQUIRE(::kill(pid, SIGKILL) == 0);
    // The signal and the backends' notice of their postmaster's death take a moment.
    for (int i = 0; i < 500 && database.server_gone().empty(); ++i) ::usleep(10000);
    CHECK_THAT(database.server_gone(), Catch::Contains("killed by signal 9"));
    bool failed = false;
    for (int i = 0; i < 500 && !failed; ++i) {
      try {
        client.run(pg::Script::tpcb_like);
        ::usleep(10000);
      } catch (const pg::PgError&) {
        failed = true;
      }
    }
    CHECK(failed);
    CHECK_THROWS_WITH(database.close(), Catch::Contains("the server crashed"));
  }
  CHECK(storh::test::process_gone(pid));
  CHECK_FALSE(std::filesystem::exists(dir));
}

TEST_CASE("pg: a process that dies takes its server with it", "[pg]") {
  storh::test::ScratchDir scratch(storh::test::server_scratch_base());
  const auto dir = scratch.path() / "pg";
  int pipe_fds[2];
  REQUIRE(::pipe(pipe_fds) == 0);
  const pid_t child = ::fork();
  if (child == 0) {
    try {
      pg::BenchDatabase database(pg::ServerOptions{}, dir);
      std::ifstream pid_file(dir / "data" / "postmaster.pid");
      pid_t server = 0;
      pid_file >> server;
      static_cast<void>(::write(pipe_fds[1], &server, sizeof server));
      ::pause();
    } catch (...) {
    }
    ::_exit(1);
  }
  ::close(pipe_fds[1]);  // so a child that failed before writing ends the read
  pid_t server = 0;
  const ssize_t got = ::read(pipe_fds[0], &server, sizeof server);
  ::close(pipe_fds[0]);
  if (got != sizeof server) {
    ::kill(child, SIGKILL);
    ::waitpid(child, nullptr, 0);
  }
  REQUIRE(got == sizeof server);
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  // SIGQUIT from the kernel: the postmaster's immediate shutdown.
  for (int i = 0; i < 500 && !storh::test::process_gone(server); ++i) ::usleep(10000);
  CHECK(storh::test::process_gone(server));
  CHECK_FALSE(std::filesystem::exists(dir / ".s.PGSQL.5432"));
}

TEST_CASE("pg: a DSN server gets a database of its own, dropped afterwards", "[pg]") {
  PgServer server;
  pg::ServerOptions options;
  options.server = "dsn";
  options.dsn = server.server->conninfo("postgres");
  options.settings.synchronous_commit = "off";
  std::string name;
  {
    pg::BenchDatabase database(options, server.scratch.path() / "unused");
    pg::Connection conn = database.connect();
    name = std::string(conn.exec("SELECT current_database()").text(0, 0));
    CHECK(name.rfind("storh_bench_", 0) == 0);
    CHECK(conn.show("synchronous_commit") == "off");  // a session setting
    pg::init_tables(conn, 1, 100);
  }
  pg::Connection admin = server.connect();
  CHECK(admin.exec("SELECT 1 FROM pg_database WHERE datname = '" + name + "'").rows() == 0);
  // A server-wide setting cannot be changed from a client: refused, naming both values.
  options.settings.fsync = "off";
  CHECK_THROWS_WITH(
      pg::BenchDatabase(options, server.scratch.path() / "unused"),
      Catch::Contains("pg.fsync=off needs server = \"local\"") && Catch::Contains("has on"));
  CHECK(admin.exec("SELECT 1 FROM pg_database WHERE datname LIKE 'storh_bench_%'").rows() == 0);
}

TEST_CASE("pg: an unreachable DSN fails with libpq's message", "[pg]") {
  storh::test::ScratchDir scratch(storh::test::server_scratch_base());
  pg::ServerOptions options;
  options.server = "dsn";
  options.dsn = "host=" + (scratch.path() / "nowhere").string() + " port=1 connect_timeout=2";
  CHECK_THROWS_WITH(pg::BenchDatabase(options, scratch.path() / "pg"),
                    Catch::Contains("connect:") && Catch::Contains("No such file or directory"));
}

TEST_CASE("pg: missing server binaries name the package to install", "[pg]") {
  CHECK_THROWS_WITH(pg::find_installation("/nonexistent/bin"),
                    Catch::Contains("postgresql-15") && Catch::Contains("/nonexistent/bin"));
  CHECK_FALSE(pg::find_installation("").bindir.empty());
}

TEST_CASE("pg: a directory too deep for a socket path gets an abstract socket", "[pg]") {
  storh::test::ScratchDir scratch(storh::test::server_scratch_base());
  const auto deep = scratch.path() / std::string(100, 'd');
  std::filesystem::create_directories(deep);
  {
    pg::LocalServer server(pg::find_installation(""), deep / "pg", pg::ServerSettings{});
    CHECK(server.socket_host().rfind("@storh-pg-", 0) == 0);
    pg::Connection conn(server.conninfo("postgres"));
    CHECK(conn.exec("SELECT 1").rows() == 1);
    CHECK_FALSE(std::filesystem::exists(deep / "pg" / ".s.PGSQL.5432"));
  }
  CHECK_FALSE(std::filesystem::exists(deep / "pg"));
}

TEST_CASE("pg: as root, a directory the postgres user cannot reach is named", "[pg]") {
  if (::geteuid() != 0) return;  // only root hands the server to another user
  storh::test::ScratchDir scratch(storh::test::server_scratch_base());
  const auto hidden = scratch.path() / "private";
  std::filesystem::create_directories(hidden);
  std::filesystem::permissions(hidden, std::filesystem::perms::owner_all);
  CHECK_THROWS_WITH(pg::LocalServer(pg::find_installation(""), hidden / "pg", pg::ServerSettings{}),
                    Catch::Contains("cannot reach") && Catch::Contains("mode 0700") &&
                        Catch::Contains("--work-dir"));
  CHECK_FALSE(std::filesystem::exists(hidden / "pg"));
}
