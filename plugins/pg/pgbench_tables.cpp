#include "pg/pgbench_tables.h"

#include <fmt/format.h>

#include <array>

namespace storh::engines::pg {
namespace {

constexpr std::array<const char*, 4> kTables = {"pgbench_accounts", "pgbench_branches",
                                                "pgbench_history", "pgbench_tellers"};

// COPY text sent in pieces of about this size.
constexpr std::size_t kCopyChunk = 256 * 1024;

// Sends `rows` lines made by `line(i, buffer)` (i from 0) through COPY.
template <typename Line>
void copy_rows(Connection& conn, const std::string& copy_sql, std::int64_t rows, Line&& line) {
  conn.copy_in(copy_sql, [&](auto&& send) {
    std::string buffer;
    buffer.reserve(kCopyChunk + 128);
    for (std::int64_t i = 0; i < rows; ++i) {
      line(i, buffer);
      if (buffer.size() >= kCopyChunk) {
        send(buffer);
        buffer.clear();
      }
    }
    if (!buffer.empty()) send(buffer);
  });
}

}  // namespace

TableCounts expected_counts(std::int64_t scale) {
  return {kBranchesPerScale * scale, kTellersPerScale * scale, kAccountsPerScale * scale, 0};
}

std::int64_t init_rows(std::int64_t scale) {
  const TableCounts counts = expected_counts(scale);
  return counts.branches + counts.tellers + counts.accounts;
}

void init_tables(Connection& conn, std::int64_t scale, std::int64_t fillfactor) {
  if (scale < 1 || fillfactor < 10 || fillfactor > 100) {
    throw PgError(
        fmt::format("init: scale {} must be >= 1 and fillfactor {} in 10..100", scale, fillfactor));
  }
  // d: drop
  conn.exec(fmt::format("DROP TABLE IF EXISTS {}, {}, {}, {}", kTables[0], kTables[1], kTables[2],
                        kTables[3]));
  // t: create, in pgbench's order and with its column types
  conn.exec(
      "CREATE TABLE pgbench_history(tid int, bid int, aid int, delta int, mtime timestamp, "
      "filler char(22))");
  conn.exec(fmt::format(
      "CREATE TABLE pgbench_tellers(tid int not null, bid int, tbalance int, filler char(84)) "
      "WITH (fillfactor={})",
      fillfactor));
  conn.exec(fmt::format(
      "CREATE TABLE pgbench_accounts(aid int not null, bid int, abalance int, filler char(84)) "
      "WITH (fillfactor={})",
      fillfactor));
  conn.exec(
      fmt::format("CREATE TABLE pgbench_branches(bid int not null, bbalance int, filler char(88)) "
                  "WITH (fillfactor={})",
                  fillfactor));
  // g: generate client-side, one transaction; branches, tellers, accounts in that order
  const TableCounts counts = expected_counts(scale);
  conn.exec("BEGIN");
  conn.exec(
      fmt::format("TRUNCATE TABLE {}, {}, {}, {}", kTables[0], kTables[1], kTables[2], kTables[3]));
  copy_rows(conn, "COPY pgbench_branches(bid, bbalance) FROM STDIN", counts.branches,
            [](std::int64_t i, std::string& out) {
              fmt::format_to(std::back_inserter(out), "{}\t0\n", i + 1);
            });
  copy_rows(conn, "COPY pgbench_tellers(tid, bid, tbalance) FROM STDIN", counts.tellers,
            [](std::int64_t i, std::string& out) {
              fmt::format_to(std::back_inserter(out), "{}\t{}\t0\n", i + 1,
                             i / kTellersPerScale + 1);
            });
  // The filler is an empty string, not NULL, as pgbench writes it.
  copy_rows(conn, "COPY pgbench_accounts FROM STDIN WITH (FREEZE ON)", counts.accounts,
            [](std::int64_t i, std::string& out) {
              fmt::format_to(std::back_inserter(out), "{}\t{}\t0\t\n", i + 1,
                             i / kAccountsPerScale + 1);
            });
  conn.exec("COMMIT");
  // v: vacuum
  vacuum_analyze(conn);
  // p: primary keys
  conn.exec("ALTER TABLE pgbench_branches ADD PRIMARY KEY (bid)");
  conn.exec("ALTER TABLE pgbench_tellers ADD PRIMARY KEY (tid)");
  conn.exec("ALTER TABLE pgbench_accounts ADD PRIMARY KEY (aid)");
}

TableCounts count_rows(Connection& conn) {
  const Result result = conn.exec(
      "SELECT (SELECT count(*) FROM pgbench_branches), (SELECT count(*) FROM pgbench_tellers), "
      "(SELECT count(*) FROM pgbench_accounts), (SELECT count(*) FROM pgbench_history)");
  return {result.integer(0, 0, "count pgbench_branches"),
          result.integer(0, 1, "count pgbench_tellers"),
          result.integer(0, 2, "count pgbench_accounts"),
          result.integer(0, 3, "count pgbench_history")};
}

void vacuum_analyze(Connection& conn) {
  conn.exec("VACUUM ANALYZE pgbench_branches");
  conn.exec("VACUUM ANALYZE pgbench_tellers");
  conn.exec("VACUUM ANALYZE pgbench_accounts");
  conn.exec("VACUUM ANALYZE pgbench_history");
}

Balances sum_balances(Connection& conn) {
  const Result result = conn.exec(
      "SELECT (SELECT coalesce(sum(abalance), 0) FROM pgbench_accounts), "
      "(SELECT coalesce(sum(tbalance), 0) FROM pgbench_tellers), "
      "(SELECT coalesce(sum(bbalance), 0) FROM pgbench_branches), "
      "(SELECT coalesce(sum(delta), 0) FROM pgbench_history)");
  return {result.integer(0, 0, "sum(abalance)"), result.integer(0, 1, "sum(tbalance)"),
          result.integer(0, 2, "sum(bbalance)"), result.integer(0, 3, "sum(delta)")};
}

std::string check_balances(const Balances& sums, bool simple_update_ran) {
  const std::string all =
      fmt::format("sum(abalance) {}, sum(tbalance) {}, sum(bbalance) {}, sum(delta) {}",
                  sums.accounts, sums.tellers, sums.branches, sums.history);
  if (sums.accounts != sums.history) {
    return "inconsistent: the accounts' balances do not match the history's deltas: " + all;
  }
  if (sums.tellers != sums.branches) {
    return "inconsistent: the tellers' balances do not match the branches': " + all;
  }
  if (!simple_update_ran && sums.accounts != sums.branches) {
    return "inconsistent: the accounts' balances do not match the branches': " + all;
  }
  return {};
}

}  // namespace storh::engines::pg
