// No password reaches a file or an output: a run on a server that requires one, with
// the password in a URI, in a keyword/value string and in PGPASSWORD, then every
// report, export and history command on its result. Every file they wrote and
// everything they printed is searched for the password.
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <catch2/catch.hpp>

#include "pg_server_fixture.h"
#include "test_support.h"

using storh::test::cli;
using storh::test::CliResult;
using storh::test::ScratchDir;

namespace {

namespace fs = std::filesystem;

constexpr const char* kPassword = "hunter2secret";

// Every file under `dir` whose bytes or name hold the password, but the suite the test
// wrote itself.
std::vector<std::string> files_with_password(const fs::path& dir) {
  std::vector<std::string> found;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.path().filename() == "secret.toml") continue;
    if (entry.path().string().find(kPassword) != std::string::npos) {
      found.push_back(entry.path().string());
    }
    if (!entry.is_regular_file()) continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream bytes;
    bytes << in.rdbuf();
    if (bytes.str().find(kPassword) != std::string::npos) found.push_back(entry.path().string());
  }
  return found;
}

// Runs `args` and checks that neither output shows the password.
CliResult run_clean(const std::vector<std::string>& args) {
  CliResult run = cli(args);
  INFO(fmt::format("{}\n{}", run.out, run.err));
  CHECK(run.out.find(kPassword) == std::string::npos);
  CHECK(run.err.find(kPassword) == std::string::npos);
  return run;
}

// A dsn-mode run of select_only with `dsn`, then reports, exports and history on its
// result, all inside `dir`.
void run_and_read_back(const fs::path& dir, const std::string& dsn) {
  const fs::path suite = dir / "secret.toml";
  storh::test::write_text(suite,
                          fmt::format("name = \"secret\"\ntimeout = \"120s\"\ndatasets = [1]\n"
                                      "[load]\nclients = [1]\ntransactions = [5]\nprogress = 0\n"
                                      "[engines.pg]\noperations = [\"select_only\"]\n"
                                      "[engines.pg.params]\nserver = \"dsn\"\ndsn = \"{}\"\n",
                                      dsn));
  const std::string result = (dir / "result.json").string();
  const CliResult run = run_clean(
      {suite.string(), std::string("--plugin-path=") + STORH_TEST_PLUGIN_DIR, "--output=" + result,
       "--work-dir=" + (dir / "work").string(), "--set", "pg.dsn=" + dsn});
  REQUIRE(run.code == 0);
  run_clean({"validate", suite.string(), std::string("--plugin-path=") + STORH_TEST_PLUGIN_DIR});
  for (const char* format : {"text", "md", "csv", "html", "json", "bmf", "junit"}) {
    run_clean({"report", result, fmt::format("--format={}", format), "-o",
               (dir / fmt::format("report-{}", format)).string()});
  }
  const std::string history = "--db=" + (dir / "history.db").string();
  REQUIRE(run_clean({"history", "add", result, history}).code == 0);
  run_clean({"history", "show", history, "--format=html", "-o", (dir / "history.html").string()});
  run_clean({"history", "export", history, "--results", "-o", (dir / "export.json").string()});
  run_clean({"compare", result, result});
  run_clean({"gate", result, result});
}

}  // namespace

TEST_CASE("pg secrets: no password reaches a file or an output", "[pg][cli][secrets]") {
  storh::test::PgServer server;
  server.require_password("bench", kPassword);
  const std::string host = server.server->socket_host();
  const int port = storh::engines::pg::kSocketPort;

  SECTION("in a URI") {
    ScratchDir dir(storh::test::server_scratch_base());
    run_and_read_back(dir.path(), fmt::format("postgresql://bench:{}@/postgres?host={}&port={}",
                                              kPassword, host, port));
    CHECK(files_with_password(dir.path()) == std::vector<std::string>{});
  }
  SECTION("in a keyword/value string") {
    ScratchDir dir(storh::test::server_scratch_base());
    run_and_read_back(dir.path(),
                      fmt::format("host={} port={} user=bench password={} dbname=postgres", host,
                                  port, kPassword));
    CHECK(files_with_password(dir.path()) == std::vector<std::string>{});
  }
  SECTION("in PGPASSWORD") {
    ScratchDir dir(storh::test::server_scratch_base());
    ::setenv("PGPASSWORD", kPassword, 1);
    run_and_read_back(dir.path(),
                      fmt::format("host={} port={} user=bench dbname=postgres", host, port));
    ::unsetenv("PGPASSWORD");
    CHECK(files_with_password(dir.path()) == std::vector<std::string>{});
  }
  SECTION("a keyword/value history location is a database, not a file name") {
    ScratchDir dir(storh::test::server_scratch_base());
    const std::string db = fmt::format(
        "--db=host={} port={} user=bench password={} dbname=postgres", host, port, kPassword);
    const fs::path cwd = fs::current_path();
    fs::current_path(dir.path());
    run_clean({"history", "show", db});
    fs::current_path(cwd);
    // Not an SQLite file named after the string: nothing was created here.
    CHECK(fs::is_empty(dir.path()));
  }
}
