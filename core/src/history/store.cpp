// history/store.cpp: choosing the store a location names, and what both stores say.
#include "history/store.h"

#include <fmt/format.h>

#include "history/pg_store.h"
#include "history/sqlite_store.h"
#include "result/engine_values.h"
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

Expected<result::MetricDirection> stored_direction(const std::string& text,
                                                   const std::string& location, std::int64_t run_id,
                                                   const std::string& metric) {
  if (const auto direction = result::parse_direction(text)) return *direction;
  return Error{
      fmt::format("{}: run {}, metric {}: direction \"{}\" is neither lower_is_better nor "
                  "higher_is_better",
                  location, run_id, metric, text)};
}

}  // namespace storh::history
