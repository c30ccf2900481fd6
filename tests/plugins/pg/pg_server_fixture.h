// A throwaway PostgreSQL server for the pg tests: the engine's own LocalServer (initdb
// and the postmaster on a Unix socket in a scratch directory, no TCP), stopped and
// removed when the fixture ends. Never a mock: every test talks to a real server.
#pragma once

#include <catch2/catch.hpp>
#include <memory>
#include <string>

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

  ScratchDir scratch{server_scratch_base()};
  std::unique_ptr<engines::pg::LocalServer> server;
};

// No process has `pid` (kill(pid, 0) fails with ESRCH), or it is a zombie of ours.
bool process_gone(pid_t pid);

}  // namespace storh::test
