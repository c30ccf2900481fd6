// pgbench_tables.h: pgbench's four tables, loaded as `pgbench -i` loads them, and the
// checks that tell a correct run from a wrong one.
//
// Per unit of scale: 1 branch, 10 tellers, 100,000 accounts; pgbench_history starts
// empty. Every balance starts at 0, so after any number of committed TPC-B-like
// transactions the balances of accounts, tellers and branches and the deltas in the
// history all sum to the same value.
#pragma once

#include <cstdint>
#include <string>

#include "pg/connection.h"

namespace storh::engines::pg {

inline constexpr std::int64_t kBranchesPerScale = 1;
inline constexpr std::int64_t kTellersPerScale = 10;
inline constexpr std::int64_t kAccountsPerScale = 100000;

struct TableCounts {
  std::int64_t branches = 0;
  std::int64_t tellers = 0;
  std::int64_t accounts = 0;
  std::int64_t history = 0;
  bool operator==(const TableCounts&) const = default;
};

// The rows `pgbench -i -s scale` loads.
TableCounts expected_counts(std::int64_t scale);
// Rows loaded by init: branches + tellers + accounts.
std::int64_t init_rows(std::int64_t scale);

// pgbench -i's default steps "dtgvp": drop the tables, create them (fillfactor on
// branches, tellers and accounts), generate the data client-side with COPY in one
// transaction (accounts WITH FREEZE, as pgbench 14+), VACUUM ANALYZE, add the primary
// keys. `fillfactor` is 10..100. Throws PgError naming the statement that failed.
void init_tables(Connection& conn, std::int64_t scale, std::int64_t fillfactor);

TableCounts count_rows(Connection& conn);

// VACUUM ANALYZE of the four tables, one statement each (pgbench's "v" step).
void vacuum_analyze(Connection& conn);

struct Balances {
  std::int64_t accounts = 0;  // sum(abalance)
  std::int64_t tellers = 0;   // sum(tbalance)
  std::int64_t branches = 0;  // sum(bbalance)
  std::int64_t history = 0;   // sum(delta)
};

Balances sum_balances(Connection& conn);

// pgbench's consistency rule for what ran: accounts and history always agree (every
// writing script updates one account and logs the delta); tellers and branches always
// agree (tpcb_like updates both); and when only tpcb_like wrote (`simple_update_ran`
// false) all four agree. Returns "" when they do, else what differs.
std::string check_balances(const Balances& sums, bool simple_update_ran);

}  // namespace storh::engines::pg
