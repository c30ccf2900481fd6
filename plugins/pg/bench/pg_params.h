// pg_params.h: the pg plugin's parameters, shared by its scenario (pg_plugin.cpp) and its
// load transactions (pg_load.cpp), each declared once in pg_params.cpp (common/bench/
// params.h). docs/pg.md describes each.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/bench/params.h"
#include "pg/bench_database.h"
#include "pg/pgbench_mix.h"
#include "pg/pgbench_script.h"
#include "storh/engine.h"

namespace storh::engines::pg {

std::vector<ParamSpec> pg_param_specs();
std::vector<ParamRange> pg_param_ranges();

// The custom transaction's mix, which the load transactions also read (their parts).
inline constexpr bench::TextParam kScriptsParam{
    "scripts",
    "",
    {},
    "the custom transaction's scripts, pgbench -f/-b: \"pg/mine.sql@3,select_only@1\" (files "
    "relative to the current directory; empty: tpcb_like)"};

// Tries of a transaction; the load transactions also read it (needs_duration).
inline constexpr bench::IntParam kMaxTries{
    "max_tries", 1, 0, 1'000'000'000,
    "pgbench --max-tries: tries of a transaction that meets a serialization failure or a "
    "deadlock (1: no retry; 0: no limit, duration runs only)"};

// The run's parameters, read and checked. Throws PgError for a value run() must refuse
// (a malformed `settings`, an unknown query mode or server kind).
struct PgRunParams {
  ServerOptions server;
  QueryMode mode = QueryMode::simple;
  std::int64_t scale = 1;
  std::int64_t fillfactor = 100;
  std::uint64_t random_seed = 0;  // the base seed of the clients' random sequences
  std::string scripts;            // the custom transaction's mix, as written
  std::vector<std::pair<std::string, std::string>> vars;  // pgbench -D, in order
  std::int64_t max_tries = 1;            // pgbench --max-tries; 0: no limit (duration runs)
  bool connect_per_transaction = false;  // pgbench -C
  bool statement_latencies = false;      // pgbench -r
  std::string after_load;                // SQL run once after pgbench -i, before any client
};
PgRunParams read_params(const RunContext& ctx);

// Why a cell with max_tries = 0 needs a duration; the host says it before any cell
// runs (Transactions::needs_duration), the client again if asked anyway.
inline constexpr std::string_view kUnlimitedTriesNeedDuration =
    "max_tries = 0 (no limit) needs a duration, as pgbench's --max-tries=0 needs -T";

// Engine::preflight: a local server's installation exists (else PgError naming the
// package to install) and `settings` parses; a DSN server has the server-wide settings
// asked for (check_dsn_server). Returns the notes for the user: the databases crashed
// runs left on a DSN server, and a server or installation without pg_stat_statements.
// Changes nothing.
std::vector<std::string> check_machine(
    const std::vector<std::pair<std::string, ParamValue>>& values);

// Engine::preflight: `vars` parses, and every script of `scripts` reads and parses.
// Throws PgError listing every error, a script's as "file:line:col: ...".
void check_scripts(const std::vector<std::pair<std::string, ParamValue>>& values);

// Engine::preflight: what the user should know about `scripts` though it runs: a lone
// script with a weight, as an unquoted --set pg.scripts=a@3,b@1 makes.
std::vector<std::string> script_notes(
    const std::vector<std::pair<std::string, ParamValue>>& values);

// Where a relative script file is read from: the current directory of the host (and so
// of its workers), since a plugin is not told where the suite file is.
inline std::filesystem::path scripts_base() {
  std::error_code ec;
  std::filesystem::path base = std::filesystem::current_path(ec);
  return ec ? std::filesystem::path(".") : base;
}

// The server's directory inside the run's work directory.
inline std::filesystem::path server_dir(const RunContext& ctx) {
  return ctx.work_dir() / "pg";
}

}  // namespace storh::engines::pg
