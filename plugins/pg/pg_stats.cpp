#include "pg/pg_stats.h"

#include <chrono>
#include <cstdlib>
#include <memory>
#include <string_view>
#include <thread>

#include <fmt/format.h>

namespace storh::engines::pg {
namespace {

struct View {
  const char* table;  // the view, with its WHERE for pg_stat_database
  int min_version;    // PQserverVersion from which the columns exist
  int max_version;    // and up to which (exclusive); 0: no bound
  std::size_t first;  // index into server_stat_infos()
  std::size_t count;
};

// Columns in server_stat_infos() order: a column's name is its statistic's without "pg.".
constexpr std::size_t kWal = 0, kDatabase = 6, kBgwriter = 19, kAll = 24;

std::string literal(Connection& conn, const std::string& text) {
  std::unique_ptr<char, decltype(&PQfreemem)> quoted(
      PQescapeLiteral(conn.handle(), text.data(), text.size()), &PQfreemem);
  if (!quoted) throw PgError("quote " + text + ": " + PQerrorMessage(conn.handle()));
  return quoted.get();
}

// Until no other client backend is connected to `database`: their counts reach the
// statistics when they exit.
void wait_for_backends(Connection& conn, const std::string& database) {
  const std::string sql = fmt::format(
      "SELECT count(*) FROM pg_stat_activity WHERE datname = {} AND pid <> pg_backend_pid() "
      "AND backend_type = 'client backend'",
      literal(conn, database));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  for (;;) {
    const std::int64_t left = conn.exec(sql).integer(0, 0, "pg_stat_activity count");
    if (left == 0) return;
    if (std::chrono::steady_clock::now() > deadline) {
      throw PgError(
          fmt::format("server statistics: {} backend(s) of database {} still connected after 10 s",
                      left, database));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

}  // namespace

const std::vector<ServerStatInfo>& server_stat_infos() {
  // `repeats`: equal in two runs of one seed at 1 client (docs/counters.md has the
  // table) and not driven by a timer; checkpoints, the background and WAL writers run
  // on timers, and full-page images (so WAL bytes) follow the checkpoints. Which block
  // accesses hit shared buffers depends on what those timers evicted, so blocks read
  // and blocks hit each move by a block or so between runs (their sum does not).
  // NOLINTNEXTLINE(readability-identifier-naming): a constant, if not constexpr
  static const std::vector<ServerStatInfo> kInfos = {
      {"pg.wal_records", "records", true},
      {"pg.wal_fpi", "full-page images", false},
      {"pg.wal_bytes", "bytes", false},
      {"pg.wal_buffers_full", "times", false},
      {"pg.wal_write", "writes", false},
      {"pg.wal_sync", "syncs", false},
      {"pg.blks_read", "blocks", false},
      {"pg.blks_hit", "blocks", false},
      {"pg.tup_returned", "rows", true},
      {"pg.tup_fetched", "rows", true},
      {"pg.tup_inserted", "rows", true},
      {"pg.tup_updated", "rows", true},
      {"pg.tup_deleted", "rows", true},
      {"pg.xact_commit", "commits", true},
      {"pg.xact_rollback", "rollbacks", true},
      {"pg.temp_files", "files", true},
      {"pg.temp_bytes", "bytes", true},
      {"pg.deadlocks", "deadlocks", true},
      {"pg.conflicts", "conflicts", true},
      {"pg.checkpoints_timed", "checkpoints", false},
      {"pg.checkpoints_req", "checkpoints", false},
      {"pg.buffers_checkpoint", "buffers", false},
      {"pg.buffers_clean", "buffers", false},
      {"pg.buffers_backend", "buffers", false},
  };
  return kInfos;
}

ServerStats read_server_stats(Connection& conn, const std::string& database) {
  wait_for_backends(conn, database);
  // A statistics snapshot taken earlier in this session would be read again.
  conn.exec("SELECT pg_stat_clear_snapshot()");
  const std::vector<ServerStatInfo>& infos = server_stat_infos();
  const std::string where = "pg_stat_database WHERE datname = " + literal(conn, database);
  const View views[] = {{"pg_stat_wal", 140000, 0, kWal, kDatabase - kWal},
                        {where.c_str(), 0, 0, kDatabase, kBgwriter - kDatabase},
                        {"pg_stat_bgwriter", 0, 170000, kBgwriter, kAll - kBgwriter}};
  const int version = PQserverVersion(conn.handle());
  ServerStats stats{std::vector<double>(infos.size(), 0.0), std::vector<bool>(infos.size(), false)};
  for (const View& view : views) {
    if (version < view.min_version || (view.max_version != 0 && version >= view.max_version)) {
      continue;
    }
    std::string columns;
    for (std::size_t i = view.first; i < view.first + view.count; ++i) {
      columns += fmt::format("{}{}::float8", columns.empty() ? "" : ", ",
                             std::string_view(infos[i].name).substr(3));
    }
    const Result row = conn.exec(fmt::format("SELECT {} FROM {}", columns, view.table));
    if (row.rows() != 1) {
      throw PgError(
          fmt::format("server statistics: {} has {} rows, not 1", view.table, row.rows()));
    }
    for (std::size_t i = 0; i < view.count; ++i) {
      const int column = static_cast<int>(i);
      if (row.is_null(0, column)) continue;
      stats.values[view.first + i] = std::strtod(std::string(row.text(0, column)).c_str(), nullptr);
      stats.present[view.first + i] = true;
    }
  }
  return stats;
}

std::vector<ServerStatDelta> stats_difference(const ServerStats& before, const ServerStats& after) {
  const std::vector<ServerStatInfo>& infos = server_stat_infos();
  std::vector<ServerStatDelta> deltas;
  for (std::size_t i = 0; i < infos.size() && i < before.values.size() && i < after.values.size();
       ++i) {
    if (!before.present[i] || !after.present[i]) continue;
    deltas.push_back(
        {infos[i].name, infos[i].unit, after.values[i] - before.values[i], infos[i].repeats});
  }
  return deltas;
}

void WorkStats::begin(const BenchDatabase& database) {
  // New connections: a kept one may hold counts its backend has not yet reported.
  database.close_kept();
  if (database.statement_stats().missing.empty()) {
    Connection conn = database.connect();
    statements_ = read_statement_stats(conn);
  }
  Connection conn = database.connect_elsewhere();
  server_ = read_server_stats(conn, database.database());
}

std::vector<ServerStatDelta> WorkStats::end(const BenchDatabase& database) const {
  std::vector<ServerStatDelta> deltas;
  // Both connections stay open for what follows the clients: the checks, the drop.
  {
    Connection conn = database.connect_elsewhere();
    deltas = stats_difference(server_, read_server_stats(conn, database.database()));
    database.keep_open(std::move(conn), true);
  }
  const StatementStatsSupport& support = database.statement_stats();
  if (!support.missing.empty()) return deltas;
  Connection conn = database.connect();
  for (StatementCounter& c :
       statement_difference(statements_, read_statement_stats(conn), support.plan_time)) {
    deltas.push_back({std::move(c.name), std::move(c.unit), c.total, c.repeats});
  }
  database.keep_open(std::move(conn), false);
  return deltas;
}

}  // namespace storh::engines::pg
