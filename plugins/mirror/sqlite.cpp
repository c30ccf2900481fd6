#include "mirror/sqlite.h"

#include <sqlite3.h>

#include <algorithm>
#include <cctype>
#include <limits>
#include <map>
#include <utility>

#include "common/sqlite_stats.h"
#include "common/store_error.h"

namespace storh::engines::mirror {

struct StatementTally {
  std::map<std::string, SqliteStatementCounts, std::less<>> by_role;
};

namespace {

constexpr int kBusyTimeoutMs = 60000;  // PDO's default timeout

[[noreturn]] void throw_sql(std::string_view reason, std::string_view sql) {
  std::string message("SQL mirror statement failed: ");
  message += reason;
  if (!sql.empty()) {
    message += " (";
    message += sql;
    message += ')';
  }
  throw StoreError(message);
}

int length_of(std::string_view text, std::string_view sql) {
  if (text.size() > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
    throw_sql("value too large to bind", sql);
  }
  return static_cast<int>(text.size());
}

}  // namespace

// ---- Statement -------------------------------------------------------------------

Statement::~Statement() {
  finalize();
}

Statement::Statement(Statement&& other) noexcept
    : stmt_(std::exchange(other.stmt_, nullptr)),
      tally_(std::exchange(other.tally_, nullptr)),
      role_(std::exchange(other.role_, nullptr)) {}

Statement& Statement::operator=(Statement&& other) noexcept {
  if (this != &other) {
    finalize();
    stmt_ = std::exchange(other.stmt_, nullptr);
    tally_ = std::exchange(other.tally_, nullptr);
    role_ = std::exchange(other.role_, nullptr);
  }
  return *this;
}

void Statement::finalize() noexcept {
  if (stmt_ != nullptr && tally_ != nullptr && role_ != nullptr) {
    try {
      tally_->by_role[role_] += take_statement_counts(stmt_);
    } catch (...) {
      // Out of memory for a role's entry: its counts are lost, the statement is not.
    }
  }
  sqlite3_finalize(std::exchange(stmt_, nullptr));
}

void Statement::fail(int rc) {
  sqlite3* db = sqlite3_db_handle(stmt_);
  std::string reason = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
  std::string sql = this->sql();
  sqlite3_reset(stmt_);
  throw_sql(reason, sql);
}

void Statement::bind_text(int index, std::string_view text) {
  // A view of an empty string may have a null data(); SQLite would bind NULL then.
  const char* bytes = text.data() != nullptr ? text.data() : "";
  int rc = sqlite3_bind_text(stmt_, index, bytes, length_of(text, sql()), SQLITE_STATIC);
  if (rc != SQLITE_OK) {
    fail(rc);
  }
}

void Statement::bind_int64(int index, std::int64_t value) {
  int rc = sqlite3_bind_int64(stmt_, index, value);
  if (rc != SQLITE_OK) {
    fail(rc);
  }
}

void Statement::bind_double(int index, double value) {
  int rc = sqlite3_bind_double(stmt_, index, value);
  if (rc != SQLITE_OK) {
    fail(rc);
  }
}

void Statement::bind_null(int index) {
  int rc = sqlite3_bind_null(stmt_, index);
  if (rc != SQLITE_OK) {
    fail(rc);
  }
}

void Statement::clear_bindings() noexcept {
  sqlite3_clear_bindings(stmt_);
}

bool Statement::step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) {
    return true;
  }
  if (rc == SQLITE_DONE) {
    return false;
  }
  fail(rc);
}

void Statement::run() {
  while (step()) {
  }
  sqlite3_reset(stmt_);
}

void Statement::reset() noexcept {
  sqlite3_reset(stmt_);
}

SqlType Statement::column_type(int index) const noexcept {
  switch (sqlite3_column_type(stmt_, index)) {
    case SQLITE_INTEGER:
      return SqlType::integer;
    case SQLITE_FLOAT:
      return SqlType::floating;
    case SQLITE_TEXT:
      return SqlType::text;
    case SQLITE_BLOB:
      return SqlType::blob;
    default:
      return SqlType::null;
  }
}

std::int64_t Statement::column_int64(int index) const noexcept {
  return sqlite3_column_int64(stmt_, index);
}

double Statement::column_double(int index) const noexcept {
  return sqlite3_column_double(stmt_, index);
}

std::string_view Statement::column_text(int index) const noexcept {
  const unsigned char* text = sqlite3_column_text(stmt_, index);
  if (text == nullptr) {
    return {};
  }
  int size = sqlite3_column_bytes(stmt_, index);
  return {reinterpret_cast<const char*>(text), static_cast<std::size_t>(size)};
}

const char* Statement::sql() const noexcept {
  const char* text = stmt_ != nullptr ? sqlite3_sql(stmt_) : nullptr;
  return text != nullptr ? text : "";
}

// ---- Database --------------------------------------------------------------------

Database::Database(const std::filesystem::path& path)
    : path_(path), tally_(std::make_unique<StatementTally>()) {
  int rc =
      sqlite3_open_v2(path.c_str(), &db_,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    std::string reason = db_ != nullptr ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
    sqlite3_close(db_);
    db_ = nullptr;
    std::string message("open SQLite database ");
    message += path.string();
    message += ": ";
    message += reason;
    throw StoreError(message);
  }
  sqlite3_extended_result_codes(db_, 1);
  sqlite3_busy_timeout(db_, kBusyTimeoutMs);
  exec(kPageCacheSql);
}

void CloseDb::operator()(sqlite3* db) const noexcept {
  sqlite3_close(db);
}

Database::~Database() {
  sqlite3_close_v2(db_);
}

Database::Database(Database&& other) noexcept
    : db_(std::exchange(other.db_, nullptr)),
      path_(std::move(other.path_)),
      tally_(std::move(other.tally_)) {}

Database& Database::operator=(Database&& other) noexcept {
  if (this != &other) {
    sqlite3_close_v2(db_);
    db_ = std::exchange(other.db_, nullptr);
    path_ = std::move(other.path_);
    tally_ = std::move(other.tally_);
  }
  return *this;
}

void Database::exec(std::string_view sql) {
  std::string text(sql);
  char* error = nullptr;
  int rc = sqlite3_exec(db_, text.c_str(), nullptr, nullptr, &error);
  if (rc != SQLITE_OK) {
    std::string reason = error != nullptr ? error : sqlite3_errstr(rc);
    sqlite3_free(error);
    throw_sql(reason, sql);
  }
}

Statement Database::prepare(std::string_view sql, bool persistent, const char* role) {
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v3(db_, sql.data(), length_of(sql, sql),
                              persistent ? SQLITE_PREPARE_PERSISTENT : 0, &stmt, nullptr);
  if (rc != SQLITE_OK) {
    throw_sql(sqlite3_errmsg(db_), sql);
  }
  if (stmt == nullptr) {
    throw_sql("empty statement", sql);
  }
  return Statement(stmt, role != nullptr ? tally_.get() : nullptr, role);
}

std::vector<EngineCount> Database::take_counts() {
  std::vector<EngineCount> counts;
  append_counts(counts, "mirror", take_cache_counts(db_));
  if (tally_) {
    for (const auto& [role, tallied] : tally_->by_role) {
      append_counts(counts, "mirror", role, tallied);
    }
    tally_->by_role.clear();
  }
  return counts;
}

std::int64_t Database::query_int64(std::string_view sql) {
  Statement stmt = prepare(sql);
  if (!stmt.step()) {
    throw_sql("query returned no row", sql);
  }
  return stmt.column_int64(0);
}

std::string Database::set_journal_mode(std::string_view mode) {
  std::string sql("PRAGMA journal_mode = ");
  sql += mode;  // a keyword; the caller passes a validated choice
  Statement stmt = prepare(sql);
  std::string result;
  if (stmt.step()) {
    result = stmt.column_text(0);
  }
  std::transform(result.begin(), result.end(), result.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return result;
}

std::string Database::journal_mode() {
  Statement stmt = prepare("PRAGMA journal_mode");
  return stmt.step() ? std::string(stmt.column_text(0)) : std::string();
}

std::int64_t Database::changes() const noexcept {
  return sqlite3_changes64(db_);
}

bool Database::in_transaction() const noexcept {
  return sqlite3_get_autocommit(db_) == 0;
}

// ---- Transaction -----------------------------------------------------------------

Transaction::Transaction(Database& db, bool immediate) : db_(db) {
  db_.exec(immediate ? "BEGIN IMMEDIATE" : "BEGIN");
  active_ = true;
}

Transaction::~Transaction() {
  if (active_ && db_.in_transaction()) {
    sqlite3_exec(db_.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
  }
}

void Transaction::commit() {
  db_.exec("COMMIT");
  active_ = false;
}

void Transaction::rollback() {
  active_ = false;
  if (db_.in_transaction()) {
    db_.exec("ROLLBACK");
  }
}

}  // namespace storh::engines::mirror
