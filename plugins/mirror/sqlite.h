// sqlite.h: a small RAII layer over the SQLite3 C API for the mirror: a connection
// (Database), prepared statements (Statement) and explicit transactions (Transaction).
//
// Every SQL value travels as a bound parameter; SQL text is built only from validated
// identifiers (table_layout.h), never from record data.
//
// Failure: every call that SQLite can fail throws StoreError
//   "SQL mirror statement failed: <sqlite3_errmsg> (<the statement's SQL>)"
// so the message carries SQLite's own reason and says which statement it was. A
// statement that failed is reset, so it can be reused.
//
// Thread safety: none beyond SQLite's own. A Database and its Statements belong to one
// thread at a time. Statements must be destroyed before their Database.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/engine_count.h"

struct sqlite3;
struct sqlite3_stmt;

namespace storh::engines::mirror {

// The statistics of a Database's statements, by role (sqlite.cpp).
struct StatementTally;

// The column types sqlite3_column_type() reports.
enum class SqlType { integer, floating, text, blob, null };

class Statement {
 public:
  Statement() noexcept = default;
  ~Statement();
  Statement(Statement&& other) noexcept;
  Statement& operator=(Statement&& other) noexcept;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  // Parameters are 1-based, as in SQLite. Text is bound without a copy (SQLITE_STATIC):
  // the bytes must stay alive and unchanged until the next step(), reset() or bind of
  // the same parameter.
  void bind_text(int index, std::string_view text);
  void bind_int64(int index, std::int64_t value);
  void bind_double(int index, double value);
  void bind_null(int index);
  void clear_bindings() noexcept;

  // One step: true when a row is ready (read it with the column accessors), false when
  // the statement is done. Throws on any other outcome, after resetting the statement.
  bool step();
  // Steps to completion (for statements that return no rows) and resets.
  void run();
  // Makes the statement ready to run again; bindings are kept.
  void reset() noexcept;

  // Columns are 0-based. A text view is valid until the next step/reset/column call
  // on the same column.
  SqlType column_type(int index) const noexcept;
  std::int64_t column_int64(int index) const noexcept;
  double column_double(int index) const noexcept;
  std::string_view column_text(int index) const noexcept;

  const char* sql() const noexcept;
  sqlite3_stmt* handle() const noexcept { return stmt_; }

 private:
  friend class Database;
  Statement(sqlite3_stmt* stmt, StatementTally* tally, const char* role) noexcept
      : stmt_(stmt), tally_(tally), role_(role) {}
  [[noreturn]] void fail(int rc);
  // Adds the statement's statistics to its role's, then finalizes it.
  void finalize() noexcept;

  sqlite3_stmt* stmt_ = nullptr;
  StatementTally* tally_ = nullptr;  // the Database's; null for a statement without a role
  const char* role_ = nullptr;
};

// The page cache of every mirror connection, and of the benchmark's bare-handle
// references (query_direct, push_direct, flush_direct), so each pair does the same work:
// 64 MiB instead of SQLite's 2 MB. A count over a table and its indexes at 10,000
// records touches more pages than 2 MB hold, and each count then read them from the OS
// again. Memory only: journal mode and synchronous stay as set, and a commit promises
// what it did before.
inline constexpr const char* kPageCacheSql = "PRAGMA cache_size = -65536";

// Closes a bare handle, for std::unique_ptr<sqlite3, CloseDb> (the benchmark's
// references and DirectTable, which use SQLite without Database).
struct CloseDb {
  void operator()(sqlite3* db) const noexcept;  // sqlite3_close
};

class Database {
 public:
  // Opens (creating if missing) the database file at `path`, read-write, with SQLite's
  // defaults (rollback journal DELETE, synchronous FULL) and a busy timeout of 60 s, as
  // PHP's PDO gives. Throws StoreError naming the path.
  explicit Database(const std::filesystem::path& path);
  ~Database();
  Database(Database&& other) noexcept;
  Database& operator=(Database&& other) noexcept;
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  // Runs one or more statements that take no parameters (DDL, BEGIN, PRAGMA).
  void exec(std::string_view sql);
  // Prepares one statement. `persistent` hints SQLite that it will be reused many times.
  // `role` (a string literal, or nullptr) names the statement's job in the mirror
  // ("insert"): its statistics join that role's in take_counts() when it is destroyed.
  Statement prepare(std::string_view sql, bool persistent = false, const char* role = nullptr);
  // The single integer a query returns (first column of its first row); throws when it
  // returns no row.
  std::int64_t query_int64(std::string_view sql);

  // "delete" | "wal" | ... : sets PRAGMA journal_mode and returns the mode SQLite
  // reports afterwards (lower case).
  std::string set_journal_mode(std::string_view mode);
  std::string journal_mode();

  // Rows changed by the last INSERT/UPDATE/DELETE.
  std::int64_t changes() const noexcept;
  bool in_transaction() const noexcept;
  sqlite3* handle() const noexcept { return db_; }
  const std::filesystem::path& path() const noexcept { return path_; }

  // SQLite's statistics since the previous call, which resets them (common/sqlite_stats.h):
  // the connection's page cache ("mirror.cache_hits", "cache_misses", "cache_writes")
  // and, per role that ran, its statements destroyed since ("mirror.<role>.fullscan_steps",
  // "sorts", "vm_steps"). A statement still alive counts in the call after its end.
  std::vector<EngineCount> take_counts();

 private:
  sqlite3* db_ = nullptr;
  std::filesystem::path path_;
  std::unique_ptr<StatementTally> tally_;  // a pointer, so a move leaves Statements' valid
};

// An explicit transaction: BEGIN (IMMEDIATE when `immediate`, taking the write lock at
// once) in the constructor; commit() ends it; the destructor rolls back one that was
// not committed (errors of that rollback are swallowed: the exception in flight is the
// one that matters, and SQLite has already rolled back on the failure paths that make
// ROLLBACK fail).
class Transaction {
 public:
  explicit Transaction(Database& db, bool immediate = true);
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;

  void commit();
  void rollback();

 private:
  Database& db_;
  bool active_ = false;
};

}  // namespace storh::engines::mirror
