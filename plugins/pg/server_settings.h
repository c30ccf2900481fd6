// server_settings.h: the PostgreSQL settings a benchmark cell chooses.
//
// An empty value keeps the server's own: PostgreSQL's built-in default on a local
// server, whatever is configured on a DSN server.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace storh::engines::pg {

using Setting = std::pair<std::string, std::string>;  // name, value

struct ServerSettings {
  std::string synchronous_commit;    // on, off, local, remote_write, remote_apply
  std::string fsync;                 // on, off
  std::string shared_buffers;        // "128MB"
  std::string wal_level;             // minimal, replica, logical
  std::int64_t max_connections = 0;  // 0: the server's
  std::vector<Setting> extra;        // the free-form `settings`, in the order given

  // Every chosen setting, named ones first, then `extra`. wal_level=minimal brings
  // max_wal_senders=0 unless `extra` sets it: PostgreSQL refuses to start otherwise.
  std::vector<Setting> all() const;
};

// Parses "name=value;name=value" (the form a suite's `settings = { ... }` table takes;
// spaces around names and values are dropped). Throws PgError naming the bad entry
// for an entry without '=' or with an empty or non-identifier name.
std::vector<Setting> parse_settings(std::string_view text);

// The settings a session cannot change (set at server start or in its configuration):
// on a DSN server they are checked against what the server has, never set.
bool is_server_wide(std::string_view name);

// "-c name=value -c ..." for libpq's `options`, with spaces and backslashes escaped.
std::string session_options(const std::vector<Setting>& settings);

}  // namespace storh::engines::pg
