// history/pg_schema.h: the PostgreSQL history's tables, their version and migrations
// (history/pg_store.h says what the tables are and how writers share them).
#pragma once

#include <string>

#include "history/pg_session.h"
#include "history/store.h"

namespace storh::history::postgres {

// Refuses what is not a history this host can use (another application's tables, a
// newer schema, and for Mode::existing a database without a history), leaving the
// database as it was; creates or migrates the tables otherwise. Empty on success, else
// what is wrong (without the location).
std::string prepare_database(const Session& session, HistoryStore::Mode mode);

}  // namespace storh::history::postgres
