// sqlite_stats.h: SQLite's own statistics as EngineCounts, for the engines over SQLite
// (sqlite, mirror). Header-only: only a translation unit that links SQLite includes it.
//
// Two sources, both read and reset at once, so a reading covers the work since the
// previous one:
//   - a connection's page cache (sqlite3_db_status): hits, misses and pages written
//     ("<engine>.cache_hits", "cache_misses", "cache_writes", unit "pages");
//   - a statement's counts (sqlite3_stmt_status): full-scan steps, sorts and virtual
//     machine steps ("<engine>.<role>.fullscan_steps", "sorts", "vm_steps"), where the
//     role is the statement's job in the engine ("get", "insert"), so the names stay
//     the same whatever SQL the engine builds.
// All of them repeat exactly for the same workload and seed on one connection used
// by one thread, as the scenarios use them: measured by running the sqlite and mirror
// scenarios twice in several journal modes and cache sizes (docs/counters.md). SQLite's
// own page cache sees the same page accesses in the same order each time; the OS's
// cache below it is not counted.
//
// Threading: as SQLite's handle; read a connection only from the thread that uses it.
#pragma once

#include <sqlite3.h>

#include <string>
#include <string_view>
#include <vector>

#include "common/engine_count.h"

namespace storh::engines {

struct SqliteStatementCounts {
  double fullscan_steps = 0;  // SQLITE_STMTSTATUS_FULLSCAN_STEP
  double sorts = 0;           // SQLITE_STMTSTATUS_SORT
  double vm_steps = 0;        // SQLITE_STMTSTATUS_VM_STEP

  SqliteStatementCounts& operator+=(const SqliteStatementCounts& other) noexcept {
    fullscan_steps += other.fullscan_steps;
    sorts += other.sorts;
    vm_steps += other.vm_steps;
    return *this;
  }
};

// The statement's counts since the last reading, which it resets; zeros for nullptr.
inline SqliteStatementCounts take_statement_counts(sqlite3_stmt* stmt) noexcept {
  if (stmt == nullptr) return {};
  return {static_cast<double>(sqlite3_stmt_status(stmt, SQLITE_STMTSTATUS_FULLSCAN_STEP, 1)),
          static_cast<double>(sqlite3_stmt_status(stmt, SQLITE_STMTSTATUS_SORT, 1)),
          static_cast<double>(sqlite3_stmt_status(stmt, SQLITE_STMTSTATUS_VM_STEP, 1))};
}

struct SqliteCacheCounts {
  double hits = 0;    // SQLITE_DBSTATUS_CACHE_HIT
  double misses = 0;  // SQLITE_DBSTATUS_CACHE_MISS
  double writes = 0;  // SQLITE_DBSTATUS_CACHE_WRITE
};

// The connection's page cache counts since the last reading, which it resets.
inline SqliteCacheCounts take_cache_counts(sqlite3* db) noexcept {
  const auto take = [db](int op) {
    int current = 0;
    int highwater = 0;
    if (db == nullptr || sqlite3_db_status(db, op, &current, &highwater, 1) != SQLITE_OK)
      return 0.0;
    return static_cast<double>(current);
  };
  return {take(SQLITE_DBSTATUS_CACHE_HIT), take(SQLITE_DBSTATUS_CACHE_MISS),
          take(SQLITE_DBSTATUS_CACHE_WRITE)};
}

// Appends the cache counts as "<engine>.cache_hits", "cache_misses", "cache_writes".
inline void append_counts(std::vector<EngineCount>& out, std::string_view engine,
                          const SqliteCacheCounts& cache) {
  const std::string prefix = std::string(engine) + ".";
  out.push_back({prefix + "cache_hits", "pages", cache.hits, true});
  out.push_back({prefix + "cache_misses", "pages", cache.misses, true});
  out.push_back({prefix + "cache_writes", "pages", cache.writes, true});
}

// Appends statement `role`'s counts as "<engine>.<role>.fullscan_steps", "sorts" and
// "vm_steps"; nothing when the statement did not run (no VM step), so a step reports
// only the statements it used.
inline void append_counts(std::vector<EngineCount>& out, std::string_view engine,
                          std::string_view role, const SqliteStatementCounts& counts) {
  if (counts.vm_steps == 0) return;
  const std::string prefix = std::string(engine) + "." + std::string(role) + ".";
  out.push_back({prefix + "fullscan_steps", "steps", counts.fullscan_steps, true});
  out.push_back({prefix + "sorts", "sorts", counts.sorts, true});
  out.push_back({prefix + "vm_steps", "steps", counts.vm_steps, true});
}

}  // namespace storh::engines
