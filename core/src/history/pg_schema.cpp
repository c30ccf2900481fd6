// history/pg_schema.cpp
#include "history/pg_schema.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include <fmt/format.h>

#include "history/pg_store.h"
#include "history/schema.h"

namespace storh::history::postgres {
namespace {

// The meta table, made by the first step with the tables (history/pg_store.h).
constexpr const char* kCreateMeta =
    "CREATE TABLE storh_history_meta (application TEXT NOT NULL, schema_version INTEGER NOT NULL)";

// What the database holds, read in one statement each.
struct Inspection {
  std::vector<std::string> tables;  // in the current schema, by name
  bool marked = false;              // has the meta table
  std::string application;          // its row's, when marked ("" for no row)
  std::int64_t version = 0;         // its row's schema version, when marked
};

Expected<Inspection> inspect(const Session& session) {
  Inspection found;
  Expected<Rows> tables = session.run(
      "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() "
      "ORDER BY tablename COLLATE \"C\"");
  if (!tables) return Error{tables.error()};
  for (int row = 0; row < tables->count(); ++row) found.tables.push_back(tables->text(row, 0));
  found.marked =
      std::find(found.tables.begin(), found.tables.end(), kPgMetaTable) != found.tables.end();
  if (!found.marked) return found;
  Expected<Rows> meta =
      session.run(fmt::format("SELECT application, schema_version FROM {} LIMIT 1", kPgMetaTable));
  if (!meta) return Error{meta.error()};
  if (meta->count() == 1) {
    found.application = meta->text(0, 0);
    found.version = meta->integer(0, 1);
  }
  return found;
}

// Why `found` is refused; empty when it is a history (of any older or the current
// schema) or, for Mode::create, a database without tables.
std::string refusal(const Inspection& found, HistoryStore::Mode mode) {
  if (!found.marked && !found.tables.empty()) {
    return fmt::format(
        "a PostgreSQL database that is not a storh-host history (it has table{} {}); nothing "
        "was changed",
        found.tables.size() == 1 ? "" : "s", fmt::join(found.tables, ", "));
  }
  if (!found.marked && mode == HistoryStore::Mode::existing) {
    return "no history there (storh-host history add RESULT.json --db=URI creates it)";
  }
  if (found.marked && found.application != kPgApplication) {
    return fmt::format(
        "a PostgreSQL database of another application ({} says \"{}\"); nothing was changed",
        kPgMetaTable, found.application);
  }
  if (found.version > kHistorySchema) {
    return fmt::format(
        "history schema {} is newer than this storh-host knows ({}); use a newer storh-host. "
        "Nothing was changed",
        found.version, kHistorySchema);
  }
  return {};
}

// One schema step in its own transaction, under the advisory lock, from the version
// read under that lock: writers migrating at once do each step once. Sets `done` when
// the history is at kHistorySchema. Empty on success.
std::string migrate_one_step(const Session& session, HistoryStore::Mode mode, bool& done) {
  Expected<Rows> begun = session.run("BEGIN");
  if (!begun) return begun.error();
  auto fail = [&](std::string problem) {
    (void)session.run("ROLLBACK");
    return problem;
  };
  Expected<Rows> locked =
      session.run(fmt::format("SELECT pg_advisory_xact_lock({})", kApplicationId));
  if (!locked) return fail(locked.error());
  Expected<Inspection> found = inspect(session);
  if (!found) return fail(found.error());
  if (std::string problem = refusal(*found, mode); !problem.empty()) return fail(problem);
  const std::int64_t version = found->marked ? found->version : 0;
  if (version >= kHistorySchema) {
    done = true;
    Expected<Rows> ended = session.run("COMMIT");
    return ended ? std::string() : ended.error();
  }
  const std::string mark =
      version == 0 ? fmt::format("{}; INSERT INTO {} VALUES ('{}', 1)", kCreateMeta, kPgMetaTable,
                                 kPgApplication)
                   : fmt::format("UPDATE {} SET schema_version = {}", kPgMetaTable, version + 1);
  Expected<Rows> stepped =
      session.run(fmt::format("{}{};", migration_step(version, kPostgresTypes), mark));
  if (!stepped) {
    return fail(fmt::format("migrating from history schema {} to {}: {}", version, version + 1,
                            stepped.error()));
  }
  Expected<Rows> committed = session.run("COMMIT");
  return committed ? std::string() : fail(committed.error());
}

}  // namespace

std::string prepare_database(const Session& session, HistoryStore::Mode mode) {
  // A history at the current schema is used without a lock or a transaction: readers
  // never wait for a writer.
  Expected<Inspection> found = inspect(session);
  if (!found) return found.error();
  if (std::string problem = refusal(*found, mode); !problem.empty()) return problem;
  if (found->marked && found->version == kHistorySchema) return {};
  for (bool done = false; !done;) {
    if (std::string problem = migrate_one_step(session, mode, done); !problem.empty()) {
      return problem;
    }
  }
  return {};
}

}  // namespace storh::history::postgres
