// A throwaway PostgreSQL server for the pg tests: the engine's own LocalServer (initdb
// and the postmaster on a Unix socket in a scratch directory, no TCP), stopped and
// removed when the fixture ends. Never a mock: every test talks to a real server.
#pragma once

#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <chrono>
#include <fstream>
#include <memory>
#include <string>
#include <thread>

#include "pg/bench_database.h"
#include "pg/local_server.h"
#include "scratch_dir.h"

namespace storh::test {

// Where the pg tests keep servers: the system temp directory, not $STORH_TEST_TMP. Run
// as root, the server runs as the `postgres` user, which must be able to reach its
// directory; $STORH_TEST_TMP is inside the checkout, whose parents may be private.
inline std::filesystem::path server_scratch_base() {
  return std::filesystem::temp_directory_path();
}

struct PgServer {
  explicit PgServer(engines::pg::ServerSettings settings = {})
      : server(std::make_unique<engines::pg::LocalServer>(engines::pg::find_installation(""),
                                                          scratch.path() / "pg", settings)) {}

  engines::pg::Connection connect(const std::string& database = "postgres") const {
    return engines::pg::Connection(server->conninfo(database));
  }

  // Makes `role` a superuser that logs in with `password` (scram-sha-256), as every role
  // but kSuperuser then must; kSuperuser keeps trust. For the tests of a wrong password:
  // initdb's trust lets any password in. Returns once the server has loaded the rule.
  void require_password(const std::string& role, const std::string& password) const {
    connect().exec(fmt::format("CREATE ROLE {} LOGIN SUPERUSER PASSWORD '{}'", role, password));
    std::ofstream(server->dir() / "data" / "pg_hba.conf", std::ios::trunc)
        << "local all " << engines::pg::kSuperuser << " trust\nlocal all all scram-sha-256\n";
    connect().exec("SELECT pg_reload_conf()");
    // The postmaster reloads on SIGHUP, after pg_reload_conf returns.
    const std::string without = fmt::format("host={} port={} user={} dbname=postgres",
                                            server->socket_host(), engines::pg::kSocketPort, role);
    for (int attempt = 0; attempt < 3000; ++attempt) {
      try {
        engines::pg::Connection trusted(without);
      } catch (const engines::pg::PgError&) {
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    FAIL("the server did not load the password rule");
  }

  ScratchDir scratch{server_scratch_base()};
  std::unique_ptr<engines::pg::LocalServer> server;
};

// No process has `pid` (kill(pid, 0) fails with ESRCH), or it is a zombie of ours.
bool process_gone(pid_t pid);

}  // namespace storh::test
