// pg_stats.h: PostgreSQL's own statistics over a stretch of work, read before and after
// it on a connection that is not part of the work (docs/counters.md lists them).
//
// Three views: pg_stat_wal (PostgreSQL 14+), pg_stat_database's row for the cell's
// database, and pg_stat_bgwriter's checkpoint and buffer counts (up to PostgreSQL 16,
// whose successor splits them). A backend reports its counts when it exits (or at most
// once a second while it runs), so read_server_stats first waits until no other client
// backend is connected to the cell's database: call it after the work's connections
// are closed. Throws PgError, naming the view, when a read fails or the backends do not
// go within 10 seconds.
#pragma once

#include <string>
#include <vector>

#include "pg/bench_database.h"
#include "pg/statement_stats.h"

namespace storh::engines::pg {

// One statistic: "pg.wal_bytes", "bytes", and whether it repeats exactly for the same
// workload and seed at one client (measured: docs/counters.md).
struct ServerStatInfo {
  const char* name;
  const char* unit;
  bool repeats;
};

// Every statistic, in the order of a ServerStats.
const std::vector<ServerStatInfo>& server_stat_infos();

// The values of server_stat_infos() at one instant; `present[i]` is false for a
// statistic this server does not have (an older or newer version).
struct ServerStats {
  std::vector<double> values;
  std::vector<bool> present;
};

// Waits for the cell database's other client backends to exit, then reads the views
// on `conn` (a connection to another database: BenchDatabase::connect_elsewhere).
ServerStats read_server_stats(Connection& conn, const std::string& database);

// One statistic over the work: after - before.
struct ServerStatDelta {
  std::string name;
  std::string unit;
  double total = 0;
  bool repeats = false;
};

// after - before for every statistic both readings have.
std::vector<ServerStatDelta> stats_difference(const ServerStats& before, const ServerStats& after);

// Both kinds of reading around one stretch of work in a cell's database: the server's
// statistics above, and pg_stat_statements per statement (statement_stats.h) when the
// database has it. Call begin() and end() with no connection to the cell's database
// open (read_server_stats waits for them to close); begin() first closes the ones the
// database keeps (BenchDatabase::keep_open) and reads on new ones, whose backends have
// nothing left to report. end() keeps its two open for the checks and the drop that
// follow. The per-statement readings are on the cell's database, so they
// come before and after the server's: their own transactions stay out of the
// database's counts.
class WorkStats {
 public:
  void begin(const BenchDatabase& database);
  // The differences since begin(): the server's, then the statements'.
  std::vector<ServerStatDelta> end(const BenchDatabase& database) const;

 private:
  ServerStats server_;
  StatementStats statements_;
};

}  // namespace storh::engines::pg
