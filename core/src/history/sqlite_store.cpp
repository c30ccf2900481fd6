// history/sqlite_store.cpp: the run history in an SQLite file.
//
// Versioning: PRAGMA user_version is the history schema (kHistorySchema), and
// PRAGMA application_id marks the file as a storh-host history. A file that is not
// SQLite or a corrupt one (PRAGMA quick_check) is refused as well, and left as it is.
// Writers take the database's write lock for the whole of add(), so concurrent `ci`
// jobs adding runs to one file wait their turn (up to kBusyTimeout) instead of failing.
#include "history/sqlite_store.h"

#include <sqlite3.h>

#include <system_error>
#include <utility>

#include <fmt/format.h>

#include "history/schema.h"
#include "history/sqlite_statement.h"
#include "result/engine_values.h"

namespace storh::history {
namespace {

using sqlite::exec;
using sqlite::sqlite_error;
using sqlite::Statement;

Expected<std::int64_t> pragma_integer(sqlite3* db, const char* sql) {
  Statement statement(db, sql);
  if (!statement.prepared() || statement.step() != SQLITE_ROW) return Error{sqlite_error(db)};
  return statement.integer(0);
}

// The names of the tables in the database, for the "not ours" message.
std::vector<std::string> table_names(sqlite3* db) {
  std::vector<std::string> names;
  Statement statement(db, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name");
  while (statement.prepared() && statement.step() == SQLITE_ROW) names.push_back(statement.text(0));
  return names;
}

// quick_check (the cheap half of integrity_check: every page and b-tree is sound),
// which also fails first on a file that is not SQLite at all.
std::string check_database(sqlite3* db) {
  Statement statement(db, "PRAGMA quick_check(1)");
  if (!statement.prepared()) return sqlite_error(db);
  const int rc = statement.step();
  if (rc != SQLITE_ROW) return sqlite_error(db);
  const std::string verdict = statement.text(0);
  return verdict == "ok" ? std::string() : verdict;
}

// Brings the database from its user_version to kHistorySchema. Each step re-reads the
// version inside its write transaction, so two hosts migrating at once do each step once.
std::string migrate(sqlite3* db) {
  for (;;) {
    if (!exec(db, "BEGIN IMMEDIATE")) return sqlite_error(db);
    Expected<std::int64_t> version = pragma_integer(db, "PRAGMA user_version");
    if (!version || *version >= kHistorySchema) {
      exec(db, "ROLLBACK");
      return version ? std::string() : version.error();
    }
    const std::string step =
        fmt::format("{}\nPRAGMA user_version = {};\nPRAGMA application_id = {};",
                    migration_step(*version, kSqliteTypes), *version + 1, kApplicationId);
    if (!exec(db, step.c_str()) || !exec(db, "COMMIT")) {
      std::string error = sqlite_error(db);
      exec(db, "ROLLBACK");
      return fmt::format("migrating from history schema {} to {}: {}", *version, *version + 1,
                         error);
    }
  }
}

// Refuses what is not a history this host can use; migrates an older one. Empty on success.
std::string prepare_database(sqlite3* db) {
  if (std::string problem = check_database(db); !problem.empty()) {
    return fmt::format("not a usable history database ({}); nothing was changed", problem);
  }
  Expected<std::int64_t> version = pragma_integer(db, "PRAGMA user_version");
  Expected<std::int64_t> application = pragma_integer(db, "PRAGMA application_id");
  if (!version || !application) return version ? application.error() : version.error();
  if (*version == 0 && *application == 0) {
    const std::vector<std::string> tables = table_names(db);
    if (!tables.empty()) {
      return fmt::format(
          "an SQLite database that is not a storh-host history (it has table{} {}); nothing "
          "was changed",
          tables.size() == 1 ? "" : "s", fmt::join(tables, ", "));
    }
  } else if (*application != kApplicationId) {
    return fmt::format(
        "an SQLite database of another application (application_id {}); nothing was changed",
        *application);
  }
  if (*version > kHistorySchema) {
    return fmt::format(
        "history schema {} is newer than this storh-host knows ({}); use a newer storh-host. "
        "Nothing was changed",
        *version, kHistorySchema);
  }
  // Only an older schema takes the write lock: reading a current history never
  // waits for a writer, and works on a read-only file.
  return *version < kHistorySchema ? migrate(db) : std::string();
}

// One open SQLite history: the connection, closed with the store.
class SqliteStore final : public HistoryStore {
 public:
  SqliteStore(std::string file, sqlite3* db) : file_(std::move(file)), db_(db) {}
  SqliteStore(const SqliteStore&) = delete;
  SqliteStore& operator=(const SqliteStore&) = delete;
  ~SqliteStore() override { sqlite3_close(db_); }

  Expected<std::int64_t> add(const HistoryRun& run, const std::vector<HistoryPoint>& points,
                             const std::string& result_json) override;
  Expected<std::vector<HistoryRun>> runs() const override;
  Expected<std::vector<HistoryPoint>> points() const override;
  Expected<std::string> result_json(std::int64_t run_id) const override;
  const std::string& location() const override { return file_; }

 private:
  std::string file_;
  sqlite3* db_ = nullptr;
};

}  // namespace

Expected<std::unique_ptr<HistoryStore>> open_sqlite_store(const std::filesystem::path& file,
                                                          HistoryStore::Mode mode) {
  using Mode = HistoryStore::Mode;
  const std::string name = file.string();
  std::error_code ec;
  const auto status = std::filesystem::status(file, ec);
  if (std::filesystem::exists(status)) {
    if (!std::filesystem::is_regular_file(status)) {
      return Error{fmt::format("{}: not a regular file; a history is an SQLite file", name)};
    }
  } else if (mode == Mode::existing) {
    return Error{
        fmt::format("{}: no history there (storh-host history add RESULT.json --db={} creates it)",
                    name, name)};
  } else if (file.has_parent_path()) {
    std::filesystem::create_directories(file.parent_path(), ec);
    if (ec) return Error{fmt::format("{}: cannot create its directory: {}", name, ec.message())};
  }
  sqlite3* db = nullptr;
  const int flags = SQLITE_OPEN_READWRITE | (mode == Mode::create ? SQLITE_OPEN_CREATE : 0);
  if (sqlite3_open_v2(name.c_str(), &db, flags, nullptr) != SQLITE_OK) {
    const std::string error = sqlite_error(db);
    sqlite3_close(db);
    return Error{fmt::format("{}: cannot open: {}", name, error)};
  }
  auto store = std::make_unique<SqliteStore>(name, db);
  sqlite3_busy_timeout(db, static_cast<int>(kBusyTimeout.count()));
  exec(db, "PRAGMA foreign_keys = ON");
  if (std::string problem = prepare_database(db); !problem.empty()) {
    return Error{fmt::format("{}: {}", name, problem)};
  }
  return std::unique_ptr<HistoryStore>(std::move(store));
}

Expected<std::int64_t> SqliteStore::add(const HistoryRun& run,
                                        const std::vector<HistoryPoint>& points,
                                        const std::string& result_json) {
  const std::string& name = file_;
  if (!exec(db_, "BEGIN IMMEDIATE")) {
    return Error{fmt::format("{}: cannot start a write: {}", name, sqlite_error(db_))};
  }
  // Everything below either commits as a whole or rolls back.
  auto fail = [&](const std::string& what) -> Expected<std::int64_t> {
    std::string error = fmt::format("{}: {}", name, what);
    exec(db_, "ROLLBACK");
    return Error{std::move(error)};
  };
  {
    Statement duplicate(db_, "SELECT id, added_time, commit_sha FROM runs WHERE result_hash = ?1");
    if (!duplicate.prepared()) return fail(sqlite_error(db_));
    duplicate.bind(1, run.result_hash);
    if (duplicate.step() == SQLITE_ROW) {
      return fail(duplicate_message(duplicate.integer(0), duplicate.text(1), duplicate.text(2)));
    }
  }
  Statement insert_run(db_,
                       "INSERT INTO runs (result_hash, suite, fingerprint, environment, "
                       "commit_sha, branch, run_time, added_time, host_version, result_json) "
                       "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)");
  if (!insert_run.prepared()) return fail(sqlite_error(db_));
  int column = 1;
  for (const std::string* text :
       {&run.result_hash, &run.suite, &run.fingerprint, &run.environment, &run.commit, &run.branch,
        &run.run_time, &run.added_time, &run.host_version, &result_json}) {
    insert_run.bind(column++, *text);
  }
  if (insert_run.step() != SQLITE_DONE) return fail("cannot store the run: " + sqlite_error(db_));
  const std::int64_t id = sqlite3_last_insert_rowid(db_);

  Statement insert_point(db_,
                         "INSERT INTO metrics (run_id, metric, median, minimum, maximum, runs, "
                         "unit, direction) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)");
  if (!insert_point.prepared()) return fail(sqlite_error(db_));
  for (const HistoryPoint& point : points) {
    insert_point.bind(1, id);
    insert_point.bind(2, point.metric);
    insert_point.bind(3, point.median);
    insert_point.bind(4, point.minimum);
    insert_point.bind(5, point.maximum);
    insert_point.bind(6, point.runs);
    insert_point.bind(7, point.unit);
    insert_point.bind(8, result::direction_name(point.direction));
    if (insert_point.step() != SQLITE_DONE) {
      return fail(fmt::format("cannot store metric {}: {}", point.metric, sqlite_error(db_)));
    }
    insert_point.reset();
  }
  if (!exec(db_, "COMMIT")) return fail("cannot commit: " + sqlite_error(db_));
  return id;
}

Expected<std::vector<HistoryRun>> SqliteStore::runs() const {
  Statement statement(db_,
                      "SELECT id, result_hash, suite, fingerprint, environment, commit_sha, "
                      "branch, run_time, added_time, host_version FROM runs "
                      "ORDER BY run_time, id");
  if (!statement.prepared()) return Error{fmt::format("{}: {}", file_, sqlite_error(db_))};
  std::vector<HistoryRun> runs;
  int rc = SQLITE_ROW;
  while ((rc = statement.step()) == SQLITE_ROW) {
    HistoryRun run;
    run.id = statement.integer(0);
    std::string* fields[] = {&run.result_hash, &run.suite,      &run.fingerprint,
                             &run.environment, &run.commit,     &run.branch,
                             &run.run_time,    &run.added_time, &run.host_version};
    int column = 1;
    for (std::string* field : fields) *field = statement.text(column++);
    runs.push_back(std::move(run));
  }
  if (rc != SQLITE_DONE) return Error{fmt::format("{}: {}", file_, sqlite_error(db_))};
  return runs;
}

Expected<std::vector<HistoryPoint>> SqliteStore::points() const {
  Statement statement(db_,
                      "SELECT run_id, metric, median, minimum, maximum, runs, unit, direction "
                      "FROM metrics ORDER BY run_id, metric");
  if (!statement.prepared()) return Error{fmt::format("{}: {}", file_, sqlite_error(db_))};
  std::vector<HistoryPoint> points;
  int rc = SQLITE_ROW;
  while ((rc = statement.step()) == SQLITE_ROW) {
    Expected<result::MetricDirection> direction =
        stored_direction(statement.text(7), file_, statement.integer(0), statement.text(1));
    if (!direction) return Error{direction.error()};
    points.push_back({statement.integer(0), statement.text(1), statement.real(2), statement.real(3),
                      statement.real(4), statement.integer(5), statement.text(6), *direction});
  }
  if (rc != SQLITE_DONE) return Error{fmt::format("{}: {}", file_, sqlite_error(db_))};
  return points;
}

Expected<std::string> SqliteStore::result_json(std::int64_t run_id) const {
  Statement statement(db_, "SELECT result_json FROM runs WHERE id = ?1");
  if (!statement.prepared()) return Error{fmt::format("{}: {}", file_, sqlite_error(db_))};
  statement.bind(1, run_id);
  if (statement.step() != SQLITE_ROW) {
    return Error{fmt::format("{}: no run {}", file_, run_id)};
  }
  return statement.text(0);
}

}  // namespace storh::history
