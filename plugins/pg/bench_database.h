// bench_database.h: the database a benchmark cell works in, on a server started for it
// or on the user's.
//
//   local  a LocalServer in <dir> (local_server.h); the cell uses its `postgres`
//          database and the settings are the server's own (-c at start). The server
//          preloads pg_stat_statements when the installation has it (and `settings`
//          does not name shared_preload_libraries), and has a database storh_stats
//          (made from template0) for the statistics readings.
//   dsn    an existing server reached by a libpq connection string or URI (empty: the
//          PG* environment). The cell creates the database storh_bench_<16 hex>, works
//          only there and drops it when done; no other database is read or changed.
//          Per-session settings (synchronous_commit, `settings` entries a session may
//          set) travel in each connection's options; server-wide ones (fsync,
//          shared_buffers, wal_level, max_connections) cannot be changed from a client,
//          so a chosen value that differs from the server's is an error.
//
// Made and destroyed on one thread, by the process that owns the cell; a copy in a
// forked client process neither stops the server nor drops the database.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "pg/connection.h"
#include "pg/local_server.h"
#include "pg/server_settings.h"
#include "pg/statement_stats.h"

namespace storh::engines::pg {

struct ServerOptions {
  std::string server = "local";  // "local" or "dsn"
  std::string dsn;               // server = "dsn": connection string or URI
  std::string bindir;            // server = "local": the installation ("" = find one)
  ServerSettings settings;
};

// What the server allows, read once it is up.
struct ServerLimits {
  std::int64_t max_connections = 0;
  std::int64_t reserved_connections = 0;  // superuser_reserved_connections
  std::string version;                    // server_version
  bool superuser = false;                 // the cell's role may use the reserved slots
};

// Throws PgError when `settings` asks for a server-wide value (max_connections, fsync,
// shared_buffers, wal_level, or a server-wide entry of pg.settings) that the server
// behind `admin` does not have: storh-host never changes a server it did not start.
// The message says how to leave the setting to the server.
void check_server_wide_settings(Connection& admin, const ServerSettings& settings);

// Whether `installation` has pg_stat_statements (its library beside the binaries).
bool has_statement_stats(const Installation& installation);

// For server = "dsn" before any cell runs: connects and checks the server-wide
// settings as above, and returns a note for each database a crashed run left behind
// (left_behind_notes). A server it cannot reach is left to the cell, which reports
// libpq's message; nothing is checked for server = "local". A note also says when the
// cells will have no per-statement counters: the server does not load
// pg_stat_statements, or the role is not a superuser (who alone can create the
// extension in a cell's database; a template1 that has it lends it). Changes nothing.
std::vector<std::string> check_dsn_server(const ServerOptions& options);

// A cell's database on a DSN server is named storh_bench_<16 hex> and carries a
// comment naming its owner: "storh-host bench database of pid P on host H (boot B)".
// A crashed worker (killed by its timeout or a signal) cannot drop it. Returns one
// note per such database on the server behind `admin`: its owner is provably gone
// (this host and boot, no process P; or this host, another boot), or it has no owner
// comment (an older storh-host's). Each note names the database and the SQL that
// drops it. A database whose owner may still run (another host, or P alive) is not
// named: it may be a shard of a run going on now. Nothing is dropped: the server is
// the user's, and the user may want to look at what was left.
std::vector<std::string> left_behind_notes(Connection& admin);

class BenchDatabase {
 public:
  // Starts the local server in `dir` (which must not exist) or creates the database on
  // the DSN server. Throws PgError: binaries missing, initdb or start failed, the DSN
  // unreachable or its authentication failed (libpq's message), a server-wide setting
  // that differs on a DSN server.
  BenchDatabase(const ServerOptions& options, const std::filesystem::path& dir);
  BenchDatabase(const BenchDatabase&) = delete;
  BenchDatabase& operator=(const BenchDatabase&) = delete;
  // Drops the database (dsn) or stops the server and removes `dir` (local); errors are
  // ignored here (close() reports them).
  ~BenchDatabase();

  // Ends the cell's use of the server: the same as the destructor, but throws PgError
  // when the local server had crashed before it was asked to stop.
  void close();

  // A connection to the cell's database with the cell's session settings: the one a
  // set-up step kept open (keep_open), else a new one. Thread-safe.
  Connection connect() const;
  const ServerLimits& limits() const noexcept { return limits_; }
  // The cell's database, and a connection to another database of the same server (a
  // local server's storh_stats, a DSN's own): statistics read on it are not counted in
  // the cell's database. Never template1, which a CREATE DATABASE needs unused.
  const std::string& database() const noexcept { return database_; }
  Connection connect_elsewhere() const;
  // Keeps `conn`, which connect() (`elsewhere` false) or connect_elsewhere() returned,
  // open for the next call of the same: steps in a row share a connection instead of
  // each opening one (making the database and the load; the last statistics reading,
  // the checks and the drop), as pgbench's set-up uses one. A kept connection replaces
  // one kept before. Never across a statistics reading's start: a backend reports
  // its counts late, up to when it ends. Call close_kept() before the clients open: a
  // client process forked while one is open would share its socket.
  void keep_open(Connection conn, bool elsewhere) const;
  void close_kept() const noexcept;
  // Whether the cell's database gives per-statement counts (statement_stats.h), found
  // out once when the database was made; the extension is created then if it can be.
  const StatementStatsSupport& statement_stats() const noexcept { return statement_stats_; }
  // Empty while the server is (as far as can be told) up; else why it is not: the
  // local postmaster's exit ("the server (postmaster pid 123) was killed by signal 9").
  // Pings a local server that has not been seen to exit and waits a moment when it does
  // not answer (LocalServer::down_reason): call it after a failure or at the end of a
  // cell, not per statement. Thread-safe.
  std::string server_gone() const;
  // The message of a failed step, with why the server is down in front when it is
  // ("the server crashed: the server (postmaster pid 12) was killed by signal 9
  // (Killed); <message>"); else `message` as it is. Calls server_gone().
  std::string failure_message(const std::string& message) const;
  // The most clients can connect at once: max_connections, less the reserved slots
  // unless the cell's role is a superuser (as on a local server).
  std::int64_t client_slots() const noexcept {
    return limits_.max_connections - (limits_.superuser ? 0 : limits_.reserved_connections);
  }

 private:
  void drop_database() noexcept;

  ServerOptions options_;
  pid_t owner_ = 0;
  std::unique_ptr<LocalServer> local_;
  std::string conninfo_;      // base: the local socket, or the DSN
  std::string database_;      // the cell's database
  std::string options_text_;  // libpq options for the session settings
  ServerLimits limits_;
  StatementStatsSupport statement_stats_;
  mutable std::mutex kept_mutex_;
  mutable std::optional<Connection> kept_;            // to the cell's database
  mutable std::optional<Connection> kept_elsewhere_;  // as connect_elsewhere()
};

// Throws PgError("N clients need N connections, but ...: raise pg.max_connections")
// unless `clients` connections fit in the server's client_slots().
void check_client_slots(const BenchDatabase& database, std::uint32_t clients);

}  // namespace storh::engines::pg
