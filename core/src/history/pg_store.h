// history/pg_store.h: the run history in a PostgreSQL database that many writers share
// (docs/history.md "PostgreSQL").
//
// The tables are those of the SQLite store, with BIGSERIAL/BIGINT ids, in the schema
// first on the connection's search_path (public unless the URI's options say
// otherwise), plus `storh_history_meta`: one row holding the application marker and
// the schema version, in place of SQLite's application_id and user_version.
//
// Concurrency: schema creation and each migration step run in one transaction under
// pg_advisory_xact_lock(kApplicationId), re-reading the version under the lock, so
// writers that meet an empty database at once create the tables once and all go on.
// Each add() is one READ COMMITTED transaction; the run's insert skips a result_hash
// already stored (ON CONFLICT DO NOTHING, which waits for a concurrent insert of the
// same hash to commit or roll back), and the skipped add is refused with the stored
// run's id. Ids come from a sequence: unique, but with gaps where adds were refused.
// A connection lost during an add leaves nothing stored, as the server rolls back an
// unfinished transaction; one lost during its COMMIT says that the outcome is unknown.
#pragma once

#include <memory>
#include <string>

#include "history/store.h"
#include "util/expected.h"

namespace storh::history {

// The table that marks a PostgreSQL database as a history and holds its schema version.
inline constexpr const char* kPgMetaTable = "storh_history_meta";
// Its application column.
inline constexpr const char* kPgApplication = "storh-host history";

// Opens the history in the database `uri` (a postgresql:// libpq URI). Mode::create
// creates the tables in a database that has none; Mode::existing refuses it. Errors
// start with the URI, its password masked.
Expected<std::unique_ptr<HistoryStore>> open_pg_store(const std::string& uri,
                                                      HistoryStore::Mode mode);

}  // namespace storh::history
