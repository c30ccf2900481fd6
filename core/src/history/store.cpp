// history/store.cpp: choosing the store a location names, and what both stores say.
#include "history/store.h"

#include <fmt/format.h>

#include "history/pg_store.h"
#include "history/sqlite_store.h"

namespace storh::history {

bool is_postgres_location(std::string_view location) {
  return location.starts_with("postgresql://") || location.starts_with("postgres://");
}

std::string mask_password(std::string_view uri) {
  std::string masked(uri);
  // User info: scheme://user:password@host... (the first '@' before the path or query).
  const std::size_t scheme_end = masked.find("://");
  if (scheme_end != std::string::npos) {
    const std::size_t start = scheme_end + 3;
    const std::size_t authority_end = masked.find_first_of("/?", start);
    const std::size_t at =
        masked.rfind('@', authority_end == std::string::npos ? std::string::npos : authority_end);
    const std::size_t colon = masked.find(':', start);
    if (at != std::string::npos && at >= start && colon != std::string::npos && colon < at) {
      masked.replace(colon + 1, at - colon - 1, "***");
    }
  }
  // A password=... parameter, up to the next '&'.
  for (std::size_t at = masked.find("password="); at != std::string::npos;
       at = masked.find("password=", at + 1)) {
    if (at > 0 && masked[at - 1] != '?' && masked[at - 1] != '&') continue;
    const std::size_t value = at + 9;
    const std::size_t end = masked.find('&', value);
    masked.replace(value, (end == std::string::npos ? masked.size() : end) - value, "***");
  }
  return masked;
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
