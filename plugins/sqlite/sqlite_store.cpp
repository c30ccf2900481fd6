// sqlite_store.cpp: SqliteStore and SqliteConnection over the SQLite3 C API
// (sqlite_store.h).
#include "sqlite/sqlite_store.h"

#include <sqlite3.h>

#include <algorithm>
#include <array>
#include <limits>
#include <stdexcept>
#include <utility>

#include "common/sqlite_stats.h"
#include "common/store_error.h"

namespace storh::engines::sqlite_kv {

namespace {

constexpr std::string_view kCreateTable =
    "CREATE TABLE IF NOT EXISTS usertable (key BLOB PRIMARY KEY, value BLOB NOT NULL) "
    "WITHOUT ROWID";
constexpr std::string_view kGet = "SELECT value FROM usertable WHERE key = ?1";
// An upsert updates the row in place; INSERT OR REPLACE would delete and insert it.
constexpr std::string_view kPut =
    "INSERT INTO usertable (key, value) VALUES (?1, ?2) "
    "ON CONFLICT (key) DO UPDATE SET value = excluded.value";
constexpr std::string_view kErase = "DELETE FROM usertable WHERE key = ?1";
constexpr std::string_view kScan =
    "SELECT key, value FROM usertable WHERE key >= ?1 ORDER BY key LIMIT ?2";

constexpr std::array<std::string_view, 6> kJournalModes{"delete", "truncate", "persist",
                                                        "memory", "wal",      "off"};

const char* synchronous_name(Synchronous level) {
  switch (level) {
    case Synchronous::off:
      return "OFF";
    case Synchronous::normal:
      return "NORMAL";
    case Synchronous::full:
      return "FULL";
    case Synchronous::extra:
      return "EXTRA";
  }
  return "FULL";
}

// Binds without a copy (SQLITE_STATIC): every statement runs within the call that
// bound it. A null pointer would bind NULL, not an empty BLOB.
int bind_blob(sqlite3_stmt* stmt, int index, std::string_view bytes) {
  return sqlite3_bind_blob64(stmt, index, bytes.empty() ? "" : bytes.data(), bytes.size(),
                             SQLITE_STATIC);
}

std::string_view column_blob(sqlite3_stmt* stmt, int column) {
  // sqlite3_column_bytes after sqlite3_column_blob, as SQLite asks: the pointer stays valid.
  const void* data = sqlite3_column_blob(stmt, column);
  const int size = sqlite3_column_bytes(stmt, column);
  return data == nullptr ? std::string_view{}
                         : std::string_view(static_cast<const char*>(data), size);
}

// Resets a statement however the call ends, so it holds no read transaction (which
// would keep writers waiting in rollback-journal modes) and no bound pointers.
struct ResetGuard {
  sqlite3_stmt* stmt;
  ~ResetGuard() {
    sqlite3_reset(stmt);
    sqlite3_clear_bindings(stmt);
  }
};

}  // namespace

SqliteConnection::SqliteConnection(const std::filesystem::path& file, const SqliteOptions& options,
                                   bool create_table)
    : file_(file) {
  const int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
  if (sqlite3_open_v2(file.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
    const std::string message = db_ != nullptr ? sqlite3_errmsg(db_) : "out of memory";
    release();
    throw StoreError("sqlite open " + file.string() + ": " + message);
  }
  try {
    // SQLite serializes writers: a connection waits this long for the write lock
    // instead of failing at once with SQLITE_BUSY.
    sqlite3_busy_timeout(db_, options.busy_timeout_ms);
    // The journal mode is per connection except wal, which persists in the file.
    sqlite3_stmt* mode = prepare("PRAGMA journal_mode = " + options.journal_mode);
    std::string got;
    if (sqlite3_step(mode) == SQLITE_ROW && sqlite3_column_text(mode, 0) != nullptr) {
      got = reinterpret_cast<const char*>(sqlite3_column_text(mode, 0));
    }
    sqlite3_finalize(mode);
    if (got != options.journal_mode) {
      throw StoreError("sqlite journal_mode " + file.string() + ": asked for " +
                       options.journal_mode + ", SQLite answered \"" + got + "\"" +
                       (got.empty() ? std::string(": ") + sqlite3_errmsg(db_) : ""));
    }
    exec("synchronous",
         std::string("PRAGMA synchronous = ") + synchronous_name(options.synchronous));
    exec("cache_size", "PRAGMA cache_size = " + std::to_string(options.cache_size));
    if (create_table) exec("create table", std::string(kCreateTable));
    get_ = prepare(kGet);
    put_ = prepare(kPut);
    erase_ = prepare(kErase);
    scan_ = prepare(kScan);
  } catch (...) {
    release();
    throw;
  }
}

SqliteConnection::SqliteConnection(SqliteConnection&& other) noexcept
    : file_(std::move(other.file_)),
      db_(std::exchange(other.db_, nullptr)),
      get_(std::exchange(other.get_, nullptr)),
      put_(std::exchange(other.put_, nullptr)),
      erase_(std::exchange(other.erase_, nullptr)),
      scan_(std::exchange(other.scan_, nullptr)) {}

SqliteConnection::~SqliteConnection() {
  release();
}

void SqliteConnection::release() noexcept {
  for (sqlite3_stmt** stmt : {&get_, &put_, &erase_, &scan_}) {
    sqlite3_finalize(std::exchange(*stmt, nullptr));
  }
  sqlite3_close_v2(std::exchange(db_, nullptr));
}

sqlite3_stmt* SqliteConnection::prepare(std::string_view sql) {
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v3(db_, sql.data(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT,
                         &stmt, nullptr) != SQLITE_OK) {
    throw StoreError("sqlite prepare " + file_.string() + ": " + sqlite3_errmsg(db_) + " (" +
                     std::string(sql) + ")");
  }
  return stmt;
}

void SqliteConnection::exec(std::string_view operation, const std::string& sql) {
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) fail(operation);
}

void SqliteConnection::fail(std::string_view operation) const {
  throw StoreError("sqlite " + std::string(operation) + " " + file_.string() + ": " +
                   sqlite3_errmsg(db_));
}

std::optional<std::string> SqliteConnection::get(std::string_view key) {
  const ResetGuard reset{get_};
  if (bind_blob(get_, 1, key) != SQLITE_OK) fail("get");
  const int rc = sqlite3_step(get_);
  if (rc == SQLITE_ROW) return std::string(column_blob(get_, 0));
  if (rc != SQLITE_DONE) fail("get");
  return std::nullopt;
}

void SqliteConnection::put(std::string_view key, std::string_view value) {
  const ResetGuard reset{put_};
  if (bind_blob(put_, 1, key) != SQLITE_OK || bind_blob(put_, 2, value) != SQLITE_OK) fail("put");
  if (sqlite3_step(put_) != SQLITE_DONE) fail("put");
}

bool SqliteConnection::erase(std::string_view key) {
  const ResetGuard reset{erase_};
  if (bind_blob(erase_, 1, key) != SQLITE_OK) fail("erase");
  if (sqlite3_step(erase_) != SQLITE_DONE) fail("erase");
  return sqlite3_changes(db_) > 0;
}

void SqliteConnection::scan(std::string_view start, std::size_t count, const ScanRow& row) {
  if (count == 0) return;
  const ResetGuard reset{scan_};
  // LIMIT -1 is no limit.
  const auto limit = count > static_cast<std::size_t>(std::numeric_limits<std::int64_t>::max())
                         ? std::int64_t{-1}
                         : static_cast<std::int64_t>(count);
  if (bind_blob(scan_, 1, start) != SQLITE_OK || sqlite3_bind_int64(scan_, 2, limit) != SQLITE_OK) {
    fail("scan");
  }
  int rc;
  while ((rc = sqlite3_step(scan_)) == SQLITE_ROW)
    row(column_blob(scan_, 0), column_blob(scan_, 1));
  if (rc != SQLITE_DONE) fail("scan");
}

std::vector<EngineCount> SqliteConnection::take_counts() noexcept {
  std::vector<EngineCount> counts;
  try {
    append_counts(counts, "sqlite", take_cache_counts(db_));
    const std::pair<const char*, sqlite3_stmt*> statements[] = {
        {"get", get_}, {"put", put_}, {"erase", erase_}, {"scan", scan_}};
    for (const auto& [role, stmt] : statements) {
      append_counts(counts, "sqlite", role, take_statement_counts(stmt));
    }
  } catch (...) {
    // Out of memory while naming a count: the step reports none rather than fail.
    counts.clear();
  }
  return counts;
}

SqliteStore::SqliteStore(const std::filesystem::path& directory, SqliteOptions options)
    : file_(directory / "kv.sqlite"), options_(std::move(options)) {
  if (std::find(kJournalModes.begin(), kJournalModes.end(), options_.journal_mode) ==
      kJournalModes.end()) {
    throw std::invalid_argument("sqlite journal_mode \"" + options_.journal_mode +
                                "\" (valid: delete, truncate, persist, memory, wal, off)");
  }
  std::error_code ec;
  std::filesystem::create_directories(file_.parent_path(), ec);
  if (ec) throw StoreError("sqlite open " + file_.parent_path().string() + ": " + ec.message());
  // Alone at this point, so a change of journal mode out of wal cannot meet a reader.
  connection_.emplace(SqliteConnection(file_, options_, true));
}

SqliteConnection SqliteStore::connect() const {
  return SqliteConnection(file_, options_, false);
}

SqliteConnection& SqliteStore::own() {
  if (!connection_) throw StoreError("sqlite " + file_.string() + ": store is closed");
  return *connection_;
}

std::optional<std::string> SqliteStore::get(std::string_view key) {
  const std::lock_guard lock(mutex_);
  return own().get(key);
}

void SqliteStore::put(std::string_view key, std::string_view value) {
  const std::lock_guard lock(mutex_);
  own().put(key, value);
}

bool SqliteStore::erase(std::string_view key) {
  const std::lock_guard lock(mutex_);
  return own().erase(key);
}

void SqliteStore::scan(std::string_view start, std::size_t count, const ScanRow& row) {
  const std::lock_guard lock(mutex_);
  own().scan(start, count, row);
}

void SqliteStore::close() {
  const std::lock_guard lock(mutex_);
  if (!connection_) return;
  for (sqlite3_stmt** stmt :
       {&connection_->get_, &connection_->put_, &connection_->erase_, &connection_->scan_}) {
    sqlite3_finalize(std::exchange(*stmt, nullptr));
  }
  const int rc = sqlite3_close(connection_->db_);
  if (rc != SQLITE_OK) {
    const std::string message = sqlite3_errstr(rc);
    connection_.reset();  // sqlite3_close_v2: freed once whatever holds it lets go
    throw StoreError("sqlite close " + file_.string() + ": " + message);
  }
  connection_->db_ = nullptr;
  connection_.reset();
}

}  // namespace storh::engines::sqlite_kv
