// sqlite_store.h: a byte key-value store over SQLite 3: the file <directory>/kv.sqlite
// with one table,
//
//   CREATE TABLE usertable (key BLOB PRIMARY KEY, value BLOB NOT NULL) WITHOUT ROWID
//
// keys ordered bytewise (SQLite compares BLOBs with memcmp).
//
// Durability is SQLite's own: the journal mode and PRAGMA synchronous (SqliteOptions),
// set on every connection. Each put and erase is one autocommit statement, durable as
// the pair promises when it returns.
//
// Threading: SqliteStore is thread-safe; its own get/put/erase/scan share one
// connection under a mutex. For concurrency, give each thread a SqliteConnection
// (connect()): its own sqlite3 handle (SQLITE_OPEN_NOMUTEX) and prepared statements,
// used from one thread at a time. SQLite serializes writers: a connection that finds
// the database locked waits up to busy_timeout_ms, then fails with SQLITE_BUSY.
//
// Failure: every call throws StoreError "sqlite <operation> <file>: <SQLite's message>";
// bad options throw std::invalid_argument naming the valid choices.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/engine_count.h"

struct sqlite3;
struct sqlite3_stmt;

namespace storh::engines::sqlite_kv {

// PRAGMA synchronous.
enum class Synchronous { off, normal, full, extra };

struct SqliteOptions {
  // PRAGMA journal_mode: delete, truncate, persist, memory, wal or off.
  std::string journal_mode = "wal";
  Synchronous synchronous = Synchronous::full;
  // PRAGMA cache_size: pages when positive, KiB when negative (SQLite's default -2000).
  std::int64_t cache_size = -2000;
  // How long a connection waits for another's write lock before failing.
  int busy_timeout_ms = 60'000;
};

using ScanRow = std::function<void(std::string_view key, std::string_view value)>;

// One thread's connection. Must be destroyed before its store is closed.
class SqliteConnection {
 public:
  SqliteConnection(SqliteConnection&& other) noexcept;
  SqliteConnection& operator=(SqliteConnection&&) = delete;
  SqliteConnection(const SqliteConnection&) = delete;
  SqliteConnection& operator=(const SqliteConnection&) = delete;
  ~SqliteConnection();

  // The value of `key`, or nullopt.
  std::optional<std::string> get(std::string_view key);
  // Stores `value` under `key`, replacing any.
  void put(std::string_view key, std::string_view value);
  // Removes `key`; false when it was absent.
  bool erase(std::string_view key);
  // Calls `row` for up to `count` entries in key order from the first key >= `start`,
  // in one read transaction. The views are valid during the call only.
  void scan(std::string_view start, std::size_t count, const ScanRow& row);

  // SQLite's statistics of this connection since the previous call (which resets
  // them): "sqlite.cache_hits", "cache_misses", "cache_writes", and per statement that
  // ran, "sqlite.<get|put|erase|scan>.fullscan_steps", "sorts", "vm_steps"
  // (common/sqlite_stats.h). Cheap; call it between operations, not during a scan.
  std::vector<EngineCount> take_counts() noexcept;

 private:
  friend class SqliteStore;
  SqliteConnection(const std::filesystem::path& file, const SqliteOptions& options,
                   bool create_table);
  void release() noexcept;
  [[noreturn]] void fail(std::string_view operation) const;
  sqlite3_stmt* prepare(std::string_view sql);
  void exec(std::string_view operation, const std::string& sql);

  std::filesystem::path file_;
  sqlite3* db_ = nullptr;
  sqlite3_stmt* get_ = nullptr;
  sqlite3_stmt* put_ = nullptr;
  sqlite3_stmt* erase_ = nullptr;
  sqlite3_stmt* scan_ = nullptr;
};

class SqliteStore {
 public:
  // Opens (creating) <directory>/kv.sqlite, the directory made if missing, sets the
  // journal mode (which persists in the file for wal) and creates the table.
  SqliteStore(const std::filesystem::path& directory, SqliteOptions options);
  // Closes; call close() to see errors.
  ~SqliteStore() = default;
  SqliteStore(const SqliteStore&) = delete;
  SqliteStore& operator=(const SqliteStore&) = delete;

  // A new connection with the store's options. Thread-safe.
  SqliteConnection connect() const;

  std::optional<std::string> get(std::string_view key);
  void put(std::string_view key, std::string_view value);
  bool erase(std::string_view key);
  void scan(std::string_view start, std::size_t count, const ScanRow& row);

  // Closes the store's own connection (in WAL mode the last connection to close
  // checkpoints the log into the file). Every other connection must be gone.
  void close();

  const std::filesystem::path& file() const noexcept { return file_; }
  const SqliteOptions& options() const noexcept { return options_; }

 private:
  SqliteConnection& own();

  std::filesystem::path file_;
  SqliteOptions options_;
  std::mutex mutex_;
  std::optional<SqliteConnection> connection_;
};

}  // namespace storh::engines::sqlite_kv
