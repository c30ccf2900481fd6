// pgbench_script.h: pgbench's three built-in scripts, statement for statement, run by
// one client over one connection.
//
//   tpcb_like      (pgbench's default, "TPC-B (sort of)")
//     \set aid random(1, 100000 * :scale)   \set bid random(1, 1 * :scale)
//     \set tid random(1, 10 * :scale)       \set delta random(-5000, 5000)
//     BEGIN; UPDATE pgbench_accounts ...; SELECT abalance ...; UPDATE pgbench_tellers ...;
//     UPDATE pgbench_branches ...; INSERT INTO pgbench_history ...; END;
//   simple_update  (-N) the same without the tellers' and branches' updates
//   select_only    (-S) \set aid ...; SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
//
// Query modes as pgbench -M: `simple` sends each statement as text with the values
// written in (the simple query protocol); `prepared` prepares every statement of the
// client's scripts once per connection, when the client is made (pgbench prepares at
// a script's first run), and then sends only the values.
//
// Every statement's answer is checked: an UPDATE or INSERT must touch exactly one
// row and the SELECT return exactly one; anything else is a PgError (a wrong answer
// fails the benchmark instead of counting as a fast transaction).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pg/connection.h"
#include "pg/pgbench_random.h"

namespace storh::engines::pg {

enum class Script { tpcb_like, simple_update, select_only };
// extended (pgbench -M extended: parameters, no named statement) is the custom scripts'
// (pgbench_custom.h); the built-in ScriptClient runs simple and prepared.
enum class QueryMode { simple, prepared, extended };

inline constexpr std::array<Script, 3> kScripts = {Script::tpcb_like, Script::simple_update,
                                                   Script::select_only};

std::string_view script_name(Script script) noexcept;
std::optional<Script> script_from_name(std::string_view name) noexcept;
std::optional<QueryMode> query_mode_from_name(std::string_view name) noexcept;

// What one transaction drew (select_only draws only aid).
struct Draw {
  std::int64_t aid = 0;
  std::int64_t bid = 0;
  std::int64_t tid = 0;
  std::int64_t delta = 0;
};

// The SQL a script sends for `draw`, statement by statement, as the simple query mode
// writes it.
std::vector<std::string> script_sql(Script script, const Draw& draw);

class ScriptClient {
 public:
  // `seed` seeds this client's random state (client_seed() for client k of a run).
  ScriptClient(Connection conn, QueryMode mode, std::int64_t scale, std::uint64_t seed);

  // Draws the script's variables and runs its statements. Throws PgError naming the
  // statement on a failure or a wrong answer; the transaction is then rolled back by
  // the server when the connection is still up (the next BEGIN would warn otherwise).
  void run(Script script);

  const Draw& last_draw() const noexcept { return draw_; }
  Connection& connection() noexcept { return conn_; }

 private:
  void run_statement(std::size_t statement);

  Connection conn_;
  QueryMode mode_;
  std::int64_t scale_;
  PgbenchRandom random_;
  Draw draw_;
  // The draw as text for the prepared mode's parameters, and the simple mode's query.
  std::array<std::array<char, 24>, 4> values_{};
  std::string text_;
};

}  // namespace storh::engines::pg
