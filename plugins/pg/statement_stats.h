// statement_stats.h: pg_stat_statements per statement over a stretch of work, read
// before and after it (docs/counters.md, "Per statement").
//
// The extension must be loaded by the server (shared_preload_libraries) and created in
// the cell's database: enable_statement_stats() creates it there when it can and says
// why not when it cannot. A reading covers the cell's database only (its dbid) and
// top-level statements (PostgreSQL 14+), so other databases' statements and the
// statements a function runs are not counted; the readings themselves (any statement
// that names pg_stat_statements) are left out. Statements are keyed by their
// normalized text, so a statement's counters have one name across runs of a build
// although its queryid changes whenever pgbench -i recreates the tables.
// PostgreSQL 13+ (plan and execution time columns). Throws PgError when a read fails.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "pg/connection.h"

namespace storh::engines::pg {

// What pg_stat_statements counted for one statement text, summed over its entries.
struct StatementCounts {
  double calls = 0;
  double rows = 0;
  double blks_hit = 0;   // shared_blks_hit
  double blks_read = 0;  // shared_blks_read
  double plan_ms = 0;    // total_plan_time: 0 unless pg_stat_statements.track_planning
  double exec_ms = 0;    // total_exec_time
};

// By normalized statement text.
using StatementStats = std::map<std::string, StatementCounts>;

// Whether a cell's database can give per-statement counts.
struct StatementStatsSupport {
  // "" when pg_stat_statements can be read there; else why not, in a few words ("the
  // server does not load it (shared_preload_libraries)").
  std::string missing;
  bool plan_time = false;  // pg_stat_statements.track_planning is on
};

// On a connection to the cell's database: creates the extension there when it is
// missing (which takes a superuser: it is not a trusted extension). Never throws for
// a missing library, extension or privilege: the run goes on without it.
StatementStatsSupport enable_statement_stats(Connection& conn);

// On a connection to the cell's database, where enable_statement_stats() found no
// reason against.
StatementStats read_statement_stats(Connection& conn);

// One per-statement counter over the work: "pg.stmt.<slug>.calls".
struct StatementCounter {
  std::string name;
  std::string unit;
  double total = 0;
  bool repeats = false;
};

// after - before for every statement called during the work (calls > 0), in slug
// order, each with calls, rows, blks_hit, blks_read, plan_ms (when `plan_time`) and
// exec_ms. Only calls and rows repeat.
std::vector<StatementCounter> statement_difference(const StatementStats& before,
                                                   const StatementStats& after, bool plan_time);

// The <slug> of a statement's counters: its text lowercased, each run of other
// characters than letters and digits one '_', parameter markers ($1) dropped; a slug
// longer than 56 characters keeps 49 and ends in '_' and 6 hex digits of a hash of the
// whole text. Stable for a text. Two texts with one slug both get the hash.
std::string statement_slug(std::string_view text, bool with_hash = false);

}  // namespace storh::engines::pg
