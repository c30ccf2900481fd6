// history/pg_store.cpp: the run history in a PostgreSQL database.
#include "history/pg_store.h"

#include <utility>

#include <fmt/format.h>

#include "history/pg_schema.h"
#include "history/pg_session.h"
#include "result/engine_values.h"
#include "util/secrets.h"

namespace storh::history {
namespace {

using postgres::Rows;
using postgres::Session;

// One open PostgreSQL history: the connection, closed with the store.
class PgStore final : public HistoryStore {
 public:
  PgStore(std::string shown, Session session)
      : shown_(std::move(shown)), session_(std::move(session)) {}

  Expected<std::int64_t> add(const HistoryRun& run, const std::vector<HistoryPoint>& points,
                             const std::string& result_json) override;
  Expected<std::vector<HistoryRun>> runs() const override;
  Expected<std::vector<HistoryPoint>> points() const override;
  Expected<std::string> result_json(std::int64_t run_id) const override;
  const std::string& location() const override { return shown_; }

 private:
  // `rows`, or its error after the location.
  Expected<Rows> located(Expected<Rows> rows) const {
    if (rows) return rows;
    return Error{fmt::format("{}: {}", shown_, rows.error())};
  }

  std::string shown_;  // the URI, its password masked
  Session session_;
};

// Doubles as text that reads back exactly: fmt's shortest round-trip form.
std::string number(double value) {
  return fmt::format("{}", value);
}

Expected<std::int64_t> PgStore::add(const HistoryRun& run, const std::vector<HistoryPoint>& points,
                                    const std::string& result_json) {
  if (Expected<Rows> begun = session_.run("BEGIN"); !begun) {
    return Error{fmt::format("{}: cannot start a write: {}", shown_, begun.error())};
  }
  // Everything below either commits as a whole or rolls back; a lost connection rolls
  // back on the server.
  auto fail = [&](const std::string& what) -> Expected<std::int64_t> {
    (void)session_.run("ROLLBACK");
    return Error{fmt::format("{}: {}", shown_, what)};
  };
  Expected<Rows> inserted = session_.run(
      "INSERT INTO runs (result_hash, suite, fingerprint, environment, commit_sha, branch, "
      "run_time, added_time, host_version, result_json) "
      "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) "
      "ON CONFLICT (result_hash) DO NOTHING RETURNING id",
      {run.result_hash, run.suite, run.fingerprint, run.environment, run.commit, run.branch,
       run.run_time, run.added_time, run.host_version, result_json});
  if (!inserted) return fail("cannot store the run: " + inserted.error());
  if (inserted->count() == 0) {
    // The hash is stored, and committed: ON CONFLICT waited for a concurrent writer of
    // it, and this statement's snapshot (READ COMMITTED) sees its row.
    Expected<Rows> stored = session_.run(
        "SELECT id, added_time, commit_sha FROM runs WHERE result_hash = $1", {run.result_hash});
    if (!stored || stored->count() != 1) {
      return fail("this result is already in the history; nothing was added");
    }
    return fail(duplicate_message(stored->integer(0, 0), stored->text(0, 1), stored->text(0, 2)));
  }
  const std::int64_t id = inserted->integer(0, 0);
  for (const HistoryPoint& point : points) {
    Expected<Rows> stored = session_.run(
        "INSERT INTO metrics (run_id, metric, median, minimum, maximum, runs, unit, direction) "
        "VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
        {std::to_string(id), point.metric, number(point.median), number(point.minimum),
         number(point.maximum), std::to_string(point.runs), point.unit,
         result::direction_name(point.direction)});
    if (!stored)
      return fail(fmt::format("cannot store metric {}: {}", point.metric, stored.error()));
  }
  if (Expected<Rows> committed = session_.run("COMMIT"); !committed) {
    if (!session_.alive()) {
      return Error{fmt::format(
          "{}: the connection was lost during the commit, so whether run {} is stored is "
          "unknown (history show tells): {}",
          shown_, id, committed.error())};
    }
    return fail("cannot commit: " + committed.error());
  }
  return id;
}

Expected<std::vector<HistoryRun>> PgStore::runs() const {
  // COLLATE "C": the byte order SQLite sorts text in, whatever the database's collation.
  Expected<Rows> rows = located(session_.run(
      "SELECT id, result_hash, suite, fingerprint, environment, commit_sha, branch, run_time, "
      "added_time, host_version FROM runs ORDER BY run_time COLLATE \"C\", id"));
  if (!rows) return Error{rows.error()};
  std::vector<HistoryRun> runs(static_cast<std::size_t>(rows->count()));
  for (int row = 0; row < rows->count(); ++row) {
    HistoryRun& run = runs[static_cast<std::size_t>(row)];
    run.id = rows->integer(row, 0);
    std::string* fields[] = {&run.result_hash, &run.suite,      &run.fingerprint,
                             &run.environment, &run.commit,     &run.branch,
                             &run.run_time,    &run.added_time, &run.host_version};
    int column = 1;
    for (std::string* field : fields) *field = rows->text(row, column++);
  }
  return runs;
}

Expected<std::vector<HistoryPoint>> PgStore::points() const {
  Expected<Rows> rows = located(session_.run(
      "SELECT run_id, metric, median, minimum, maximum, runs, unit, direction FROM metrics "
      "ORDER BY run_id, metric COLLATE \"C\""));
  if (!rows) return Error{rows.error()};
  std::vector<HistoryPoint> points;
  points.reserve(static_cast<std::size_t>(rows->count()));
  for (int row = 0; row < rows->count(); ++row) {
    Expected<result::MetricDirection> direction =
        stored_direction(rows->text(row, 7), shown_, rows->integer(row, 0), rows->text(row, 1));
    if (!direction) return Error{direction.error()};
    points.push_back({rows->integer(row, 0), rows->text(row, 1), rows->real(row, 2),
                      rows->real(row, 3), rows->real(row, 4), rows->integer(row, 5),
                      rows->text(row, 6), *direction});
  }
  return points;
}

Expected<std::string> PgStore::result_json(std::int64_t run_id) const {
  Expected<Rows> rows =
      located(session_.run("SELECT result_json FROM runs WHERE id = $1", {std::to_string(run_id)}));
  if (!rows) return Error{rows.error()};
  if (rows->count() != 1) return Error{fmt::format("{}: no run {}", shown_, run_id)};
  return rows->text(0, 0);
}

}  // namespace

Expected<std::unique_ptr<HistoryStore>> open_pg_store(const std::string& uri,
                                                      HistoryStore::Mode mode) {
  const std::string shown = mask_secrets(uri);
  Expected<Session> session = Session::connect(uri);
  if (!session) return Error{fmt::format("{}: cannot connect: {}", shown, session.error())};
  if (std::string problem = postgres::prepare_database(*session, mode); !problem.empty()) {
    return Error{fmt::format("{}: {}", shown, problem)};
  }
  return std::unique_ptr<HistoryStore>(std::make_unique<PgStore>(shown, std::move(*session)));
}

}  // namespace storh::history
