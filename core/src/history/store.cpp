// history/store.cpp: choosing the store a location names, and what both stores say.
#include "history/store.h"

#include <fmt/format.h>

#include "history/pg_store.h"
#include "history/sqlite_store.h"
#include "util/secrets.h"

namespace storh::history {

bool is_postgres_location(std::string_view location) {
  return location.starts_with("postgresql://") || location.starts_with("postgres://") ||
         is_keyword_connection_string(location);
}

std::string duplicate_message(std::int64_t id, const std::string& added_time,
                              const std::string& commit) {
  return fmt::format(
      "this result is already in the history as run {} (added {}{}); nothing was added", id,
      added_time, commit.empty() ? std::string() : ", commit " + commit.substr(0, 12));
}

Expected<std::unique_ptr<HistoryStore>> HistoryStore::open(const std::string& location, Mode mode) {
  if (is_postgres_location(location)) return open_pg_store(location, mode);
  return open_sqlite_store(location, mode);
}

}  // namespace storh::history
