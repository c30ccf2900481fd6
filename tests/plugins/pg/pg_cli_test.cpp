// The pg plugin end to end through storh-host's CLI: scenario and load suites on the
// throwaway servers the cells start, and what faults give (a killed postmaster, an
// interrupted host, too many clients, an unreachable DSN, missing binaries): the
// failing cell fails, the others run, the result is written, nothing is left behind.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <fstream>
#include <optional>
#include <thread>

#include "pg_server_fixture.h"
#include "process/child_process.h"
#include "test_support.h"

using storh::test::cli;
using storh::test::contains;
using storh::test::metric;
using storh::test::ScratchDir;

namespace {

namespace fs = std::filesystem;

std::string plugin_path_flag() {
  return std::string("--plugin-path=") + STORH_TEST_PLUGIN_DIR;
}

// What a suite run printed, and its result file (null when none was written).
struct SuiteRun {  // NOLINT(bugprone-exception-escape): a test's value, made by run_suite
  storh::test::CliResult cli;
  nlohmann::json result;
};

// Writes a suite with `body` after the name and runs it in-process.
SuiteRun run_suite(const ScratchDir& dir, const std::string& body,
                   const std::vector<std::string>& extra = {}) {
  const auto suite = dir / "pg.toml";
  storh::test::write_text(suite, "name = \"pg\"\ntimeout = \"120s\"\n" + body + "\n");
  const auto output = dir / "pg.json";
  std::vector<std::string> args = {suite.string(), plugin_path_flag(),
                                   "--output=" + output.string(),
                                   "--work-dir=" + (dir / "work").string()};
  args.insert(args.end(), extra.begin(), extra.end());
  SuiteRun run;
  run.cli = cli(args);
  if (fs::exists(output)) run.result = nlohmann::json::parse(storh::test::read_text(output));
  return run;
}

// Every postmaster.pid under `work`: the servers that are (or were) running there.
std::vector<pid_t> postmasters_under(const fs::path& work) {
  std::vector<pid_t> pids;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(work, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().filename() == "postmaster.pid") {
      std::ifstream file(it->path());
      pid_t pid = 0;
      if (file >> pid && pid > 0) pids.push_back(pid);
    }
  }
  return pids;
}

bool all_gone(const std::vector<pid_t>& pids) {
  for (int i = 0; i < 1000; ++i) {
    bool gone = true;
    for (const pid_t pid : pids) gone = gone && storh::test::process_gone(pid);
    if (gone) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

// A directory holds nothing but, possibly, empty work roots' lock files.
bool no_server_files(const fs::path& work) {
  std::error_code ec;
  for (fs::recursive_directory_iterator it(work, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name == "pg" || name == "data" || name.rfind(".s.PGSQL", 0) == 0) return false;
  }
  return true;
}

// Runs the host as a process on `suite` and calls `during(work)` from another thread
// while it runs, until `during` returns true or the host ends.
storh::process::ProcessOutcome run_host_while(const ScratchDir& dir, const fs::path& suite,
                                              const std::function<bool(const fs::path&)>& during,
                                              std::atomic<bool>* cancel) {
  const fs::path work = dir / "work";
  storh::process::ProcessOptions options;
  options.argv = {STORH_TEST_HOST, suite.string(), plugin_path_flag(),
                  "--output=" + (dir / "pg.json").string(), "--work-dir=" + work.string()};
  options.cancel = cancel;
  options.capture_stdout = true;
  options.timeout_seconds = 300;    // a safety net for a broken build, not a measurement
  options.kill_grace_seconds = 60;  // the host needs time to write its partial result
  std::atomic<bool> finished{false};
  std::thread watcher([&] {
    while (!finished.load() && !during(work)) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  });
  storh::process::ProcessOutcome outcome = storh::process::run_process(options);
  finished.store(true);
  watcher.join();
  return outcome;
}

}  // namespace

TEST_CASE("pg cli: a scenario suite times init, each script and vacuum", "[pg][cli]") {
  ScratchDir dir(storh::test::server_scratch_base());
  const SuiteRun run = run_suite(dir,
                                 "datasets = [20]\n[engines.pg.params]\nquery_mode = "
                                 "[\"simple\", \"prepared\"]\nsynchronous_commit = \"off\"\n");
  INFO(run.cli.err);
  REQUIRE(run.cli.code == 0);
  for (const std::string mode : {"simple", "prepared"}) {
    for (const std::string op :
         {"init", "tpcb_like", "simple_update", "select_only", "vacuum_analyze"}) {
      const nlohmann::json& m = metric(run.result, fmt::format("pg.{}[query_mode={}]", op, mode));
      CHECK(m["samples"].size() == 1);
    }
  }
  CHECK(run.result["failures"].empty());
  CHECK(no_server_files(dir / "work"));
}

TEST_CASE("pg cli: load cells run pgbench's scripts with threads and processes", "[pg][cli]") {
  ScratchDir dir(storh::test::server_scratch_base());
  const std::string mode = GENERATE("threads", "processes");
  const SuiteRun run = run_suite(
      dir,
      "datasets = [1]\n[load]\nclients = [3]\ntransactions = [15]\nwarmup = 2\nprogress = "
      "0\nmode = \"" +
          mode +
          "\"\n[engines.pg]\noperations = [\"tpcb_like\", "
          "\"select_only\"]\n[engines.pg.params]\nquery_mode = \"prepared\"\n");
  INFO(run.cli.err);
  REQUIRE(run.cli.code == 0);
  for (const std::string op : {"tpcb_like", "select_only"}) {
    const nlohmann::json& m =
        metric(run.result, fmt::format("pg.{}[clients=3,transactions=15]", op));
    CHECK(m["load"]["processed"] == 45);
    CHECK(m["load"]["failed"] == 0);
  }
  CHECK(no_server_files(dir / "work"));
}

TEST_CASE("pg cli: clients above max_connections fail the cell with the setting to raise",
          "[pg][cli]") {
  ScratchDir dir(storh::test::server_scratch_base());
  const SuiteRun run =
      run_suite(dir,
                "datasets = [1]\n[load]\nclients = [6, 2]\ntransactions = [3]\nprogress = 0\n"
                "[engines.pg]\noperations = [\"select_only\"]\n[engines.pg.params]\n"
                "max_connections = 5\n");
  CHECK(run.cli.code == 3);
  REQUIRE(run.result["failures"].size() >= 1);
  CHECK(contains(run.result["failures"][0]["message"], "raise pg.max_connections to at least 6"));
  // The other cell ran.
  const nlohmann::json& other = metric(run.result, "pg.select_only[clients=2,transactions=3]");
  CHECK(other["load"]["processed"] == 6);
}

TEST_CASE("pg cli: an unreachable DSN fails its cell with libpq's message, and the rest runs",
          "[pg][cli]") {
  ScratchDir dir(storh::test::server_scratch_base());
  const SuiteRun run = run_suite(
      dir,
      "datasets = [5]\n[engines.pg]\noperations = [\"select_only\"]\n[engines.pg.params]\n"
      "server = [\"dsn\", \"local\"]\ndsn = \"host=" +
          (dir / "nowhere").string() + " connect_timeout=2\"\n");
  CHECK(run.cli.code == 3);
  REQUIRE(run.result["failures"].size() == 1);
  CHECK(contains(run.result["failures"][0]["message"], "connect:"));
  CHECK(contains(run.result["failures"][0]["message"], "No such file or directory"));
  metric(run.result, "pg.select_only[server=local]");  // fails the test when it is missing
}

TEST_CASE("pg cli: missing server binaries are bad input before any cell runs", "[pg][cli]") {
  ScratchDir dir(storh::test::server_scratch_base());
  const SuiteRun run =
      run_suite(dir, "datasets = [5]\n[engines.pg]\n", {"--set", "pg.bindir=/nonexistent"});
  CHECK(run.cli.code == 2);
  CHECK(contains(run.cli.err, "postgresql-15"));
  CHECK_FALSE((fs::exists(dir / "work") && !fs::is_empty(dir / "work")));
}

TEST_CASE("pg cli: a postmaster killed mid-cell fails that cell, and the next one runs",
          "[pg][cli]") {
  ScratchDir dir(storh::test::server_scratch_base());
  const auto suite = dir / "pg.toml";
  storh::test::write_text(
      suite,
      "name = \"pg\"\ndatasets = [1]\ntimeout = \"120s\"\n[load]\nclients = [2, 1]\n"
      "duration = [\"4s\"]\nprogress = 0\n[engines.pg]\noperations = [\"select_only\"]\n");
  std::vector<pid_t> killed;
  const storh::process::ProcessOutcome outcome = run_host_while(
      dir, suite,
      [&](const fs::path& work) {
        const std::vector<pid_t> pids = postmasters_under(work);
        if (pids.empty()) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(500));  // into the timed phase
        killed = pids;
        for (const pid_t pid : pids) ::kill(pid, SIGKILL);
        return true;
      },
      nullptr);
  INFO(outcome.stderr_tail);
  REQUIRE(outcome.exit_code.has_value());
  CHECK(*outcome.exit_code == 3);
  const nlohmann::json result = nlohmann::json::parse(storh::test::read_text(dir / "pg.json"));
  REQUIRE(result["failures"].size() == 1);
  INFO(result["failures"][0].dump());
  CHECK(contains(result["failures"][0]["message"], "server crashed"));
  const nlohmann::json& other = metric(result, "pg.select_only[clients=1,duration=4s]");
  CHECK(other["load"]["processed"] > 0);
  CHECK(all_gone(killed));
  CHECK(no_server_files(dir / "work"));
}

TEST_CASE("pg cli: an interrupted host leaves no server, socket or data behind", "[pg][cli]") {
  ScratchDir dir(storh::test::server_scratch_base());
  const auto suite = dir / "pg.toml";
  storh::test::write_text(
      suite,
      "name = \"pg\"\ndatasets = [1]\ntimeout = \"120s\"\n[load]\nclients = [2]\n"
      "duration = [\"60s\"]\nprogress = 0\n[engines.pg]\noperations = [\"select_only\"]\n");
  std::atomic<bool> cancel{false};
  std::vector<pid_t> servers;
  const storh::process::ProcessOutcome outcome = run_host_while(
      dir, suite,
      [&](const fs::path& work) {
        servers = postmasters_under(work);
        if (servers.empty()) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
        cancel.store(true);  // SIGTERM, handled as Ctrl-C
        return true;
      },
      &cancel);
  INFO(outcome.stderr_tail);
  REQUIRE(outcome.exit_code.has_value());
  CHECK(*outcome.exit_code == 130);
  REQUIRE_FALSE(servers.empty());
  CHECK(all_gone(servers));
  CHECK(no_server_files(dir / "work"));
}

TEST_CASE("pg cli: an A/A ab of suites/pgbench.toml with settings as sides passes",
          "[pg][cli][ab]") {
  // Regression: every load metric was reported "missing" (no pairs), and the gate failed.
  ScratchDir dir(storh::test::server_scratch_base());
  const auto output = dir / "aa.json";
  const storh::test::CliResult run = cli(
      {"ab", std::string(STORH_TEST_SOURCE_DIR) + "/suites/pgbench.toml", plugin_path_flag(),
       "--base-set", "pg.synchronous_commit=on", "--head-set", "pg.synchronous_commit=on",
       "--clients=2", "--transactions=20", "--operation=tpcb_like", "--pairs=6", "--alpha=0.05",
       "--threshold=100", "--output=" + output.string(), "--work-dir=" + (dir / "work").string()});
  INFO(run.out << run.err);
  CHECK(run.code == 0);
  const nlohmann::json file = storh::test::read_json(output);
  REQUIRE(file["ab"]["metrics"].size() == 1);
  CHECK(file["ab"]["metrics"][0]["pairs"].size() == 6);
  CHECK(no_server_files(dir / "work"));
}

TEST_CASE("pg cli: a DSN server without the suite's server-wide settings is named before any cell",
          "[pg][cli]") {
  // Regression: suites/pgbench.toml with --set pg.server=dsn passed validate, then
  // failed every cell (max_connections=110 needs server = "local").
  storh::test::PgServer server;
  ScratchDir dir(storh::test::server_scratch_base());
  const std::string dsn =
      fmt::format("host={} port={} user={} dbname=postgres", server.server->socket_host(),
                  storh::engines::pg::kSocketPort, storh::engines::pg::kSuperuser);
  for (const std::string command : {"validate", "run"}) {
    const storh::test::CliResult run =
        cli({command, std::string(STORH_TEST_SOURCE_DIR) + "/suites/pgbench.toml",
             plugin_path_flag(), "--set", "pg.server=dsn", "--set", "pg.dsn=" + dsn,
             "--output=" + (dir / "x.json").string(), "--work-dir=" + (dir / "work").string()});
    INFO(command << ": " << run.out << run.err);
    CHECK(run.code == 2);
    CHECK(contains(run.err, "pg.max_connections=110 needs server = \"local\""));
    CHECK(contains(run.err, "--set pg.max_connections=0"));
  }
  CHECK_FALSE(fs::exists(dir / "x.json"));
}

TEST_CASE("pg cli: a database a crashed run left on a DSN server is named at the next run",
          "[pg][cli]") {
  // Regression: a worker killed in a DSN cell (its timeout, a signal) never dropped its
  // storh_bench_ database, and no later run said so.
  storh::test::PgServer server;
  ScratchDir dir(storh::test::server_scratch_base());
  const std::string dsn =
      fmt::format("host={} port={} user={} dbname=postgres", server.server->socket_host(),
                  storh::engines::pg::kSocketPort, storh::engines::pg::kSuperuser);
  storh::engines::pg::ServerOptions options;
  options.server = "dsn";
  options.dsn = dsn;
  // A worker that dies in its cell: it makes its database and ends without a word.
  const pid_t crashed = ::fork();
  REQUIRE(crashed >= 0);
  if (crashed == 0) {
    try {
      const storh::engines::pg::BenchDatabase database(options, dir.path() / "unused");
      std::_Exit(0);  // no destructor: the database stays
    } catch (...) {
      std::_Exit(1);
    }
  }
  int status = 0;
  ::waitpid(crashed, &status, 0);
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);
  storh::engines::pg::Connection admin = server.connect();
  const storh::engines::pg::Result left =
      admin.exec("SELECT datname FROM pg_database WHERE datname LIKE 'storh\\_bench\\_%'");
  REQUIRE(left.rows() == 1);
  const std::string name(left.text(0, 0));
  // A cell running now (this process, alive) is not named: it is not left behind.
  const storh::engines::pg::BenchDatabase running(options, dir.path() / "unused");

  // Two cells, two combinations: the note is the server's, said once.
  storh::test::write_text(dir / "dsn.toml",
                          "name = \"dsn\"\ndatasets = [5]\nrepeat = 1\n[engines.pg]\n"
                          "operations = [\"select_only\"]\n[engines.pg.params]\n"
                          "server = \"dsn\"\nsynchronous_commit = [\"on\", \"off\"]\n");
  for (const std::string command : {"validate", "run"}) {
    const storh::test::CliResult run =
        cli({command, (dir / "dsn.toml").string(), plugin_path_flag(), "--set", "pg.dsn=" + dsn,
             "--output=" + (dir / "x.json").string(), "--work-dir=" + (dir / "work").string()});
    INFO(command << ": " << run.out << run.err);
    CHECK(run.code == 0);
    CHECK(contains(run.err, "storh-host: pg: database " + name +
                                " on this DSN server was left behind by a run that ended without "
                                "dropping it (its process " +
                                std::to_string(crashed) + " on this host is gone)"));
    CHECK(contains(run.err, "drop it with DROP DATABASE \"" + name + "\" WITH (FORCE);"));
    // Said once, not once per cell or combination.
    CHECK(run.err.find("left behind") == run.err.rfind("left behind"));
  }
  // Named, not dropped: the server is the user's.
  CHECK(admin.exec("SELECT 1 FROM pg_database WHERE datname = '" + name + "'").rows() == 1);
}
