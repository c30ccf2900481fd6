// pgbench_custom.h: pgbench 15 custom scripts (pgbench -f), parsed before anything runs
// and run by one client over one connection, the way pgbench runs them.
//
// A script is SQL commands and meta-commands. An SQL command ends at an unquoted ';'
// outside parentheses, or where a meta-command or the file begins; it may span lines, and
// `\;` joins statements into one command. `:name` in SQL is a variable: written into the
// text in simple mode, sent as a parameter in extended and prepared mode (an undefined
// variable stays ":name" in simple mode and is sent as NULL otherwise, as pgbench does).
// Meta-commands: \set name expr, \sleep n [us|ms|s] (n a number or :var), \gset [prefix]
// and \aset [prefix] after an SQL command, \if / \elif / \else / \endif,
// \startpipeline / \endpipeline. \shell and \setshell are refused: a suite never runs
// commands.
//
// parse_custom_script() reports the first error as "file:line:col: what was expected
// there". CustomClient::run() throws PgError "file:line: command: what failed" on a
// run-time error (an expression's, a failed \gset, the server's), and says whether the
// server's error was a conflict (last_conflict) that MixClient may retry.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pg/connection.h"
#include "pg/pgbench_expr.h"
#include "pg/pgbench_random.h"
#include "pg/pgbench_script.h"

namespace storh::engines::pg {

enum class MetaCommand : std::uint8_t {
  sql,  // not a meta-command: an SQL command
  set,
  sleep,
  if_,
  elif,
  else_,
  endif,
  startpipeline,
  endpipeline
};
enum class ResultVariables : std::uint8_t { none, gset, aset };
// A server error a real application retries: SQLSTATE 40001 or 40P01.
enum class Conflict : std::uint8_t { none, serialization, deadlock };

struct ScriptCommand {
  MetaCommand meta = MetaCommand::sql;
  int line = 0;
  int column = 0;
  std::string first_line;  // the command's first line, for messages
  // sql
  std::string sql;  // as written, :variables and the final ';' included
  ResultVariables result_variables = ResultVariables::none;
  std::string prefix;  // of \gset / \aset
  // set (variable, expr), if and elif (expr)
  std::string variable;
  Expr expr;
  // sleep: `sleep_variable` when given as :name, else `sleep_amount`; times the unit
  std::string sleep_variable;
  std::int64_t sleep_amount = 0;
  std::int64_t sleep_unit_us = 1000000;
  // if, elif, else: the index of the next \elif, \else or \endif; all four: the \endif's
  std::size_t next_branch = 0;
  std::size_t endif = 0;
};

// One command's runs on one client (pgbench -r): kept per client without locks and
// summed when the clients are done.
struct CommandStats {
  std::uint64_t count = 0;    // runs that completed
  std::int64_t total_ns = 0;  // their steady-clock time
  std::uint64_t failures = 0;
  std::uint64_t retries = 0;
};

struct CustomScript {
  std::string name;  // as given, for messages
  std::vector<ScriptCommand> commands;
};

struct ScriptParse {
  std::optional<CustomScript> script;
  std::string error;  // "file:line:col: ..." when script is empty
};

// Parses `text`, naming it `source` in messages.
ScriptParse parse_custom_script(std::string_view source, std::string_view text);
// Reads and parses the file at `path` (named as given).
ScriptParse load_custom_script(const std::filesystem::path& path);

// What pgbench gives a client before its first transaction.
struct ClientSetup {
  std::uint32_t client_id = 0;      // :client_id
  std::int64_t scale = 1;           // :scale
  std::uint64_t random_seed = 0;    // :random_seed (the run's --random-seed)
  std::int64_t default_seed = 0;    // :default_seed (PgbenchSeeds::default_seed)
  std::uint64_t function_seed = 0;  // the random functions' state (PgbenchSeeds::client)
  std::vector<std::pair<std::string, std::string>> defines;  // -D name=value, first
};

class CustomClient {
 public:
  // `mode`: simple, extended or prepared (statements prepared at their first run on this
  // connection, as pgbench does).
  CustomClient(Connection conn, QueryMode mode, const ClientSetup& setup);

  // Runs one transaction of `script`; `script_index` names its prepared statements.
  // Throws PgError on a run-time error; an open transaction is rolled back first. With
  // `stats` (one per command of `script`), each command that completes adds its time,
  // from a steady-clock pair around it; without, nothing is timed.
  void run(const CustomScript& script, std::size_t script_index = 0,
           std::vector<CommandStats>* stats = nullptr);

  Variables& variables() noexcept { return variables_; }
  Connection& connection() noexcept { return conn_; }
  // Runs the next transactions on `conn` (pgbench -C); its statements are prepared
  // again, as pgbench forgets them with the old session.
  void reconnect(Connection conn);
  // The conflict that made the last run() throw, or none (any other error, or success).
  Conflict last_conflict() const noexcept { return conflict_; }
  // The index of the command that made the last run() throw.
  std::size_t failed_command() const noexcept { return command_index_; }
  // The random functions' state: saved before a transaction and restored to retry it
  // with the same draws, as pgbench does.
  PgbenchRandom& random() noexcept { return random_; }
  // Receives debug()'s output ("debug(script=0,command=2): int 5").
  void on_debug(std::function<void(const std::string&)> sink) { debug_ = std::move(sink); }

 private:
  void run_commands(const CustomScript& script, std::size_t script_index,
                    std::vector<CommandStats>* stats);
  std::size_t run_command(const CustomScript& script, std::size_t script_index, std::size_t i);
  void run_sql(const CustomScript& script, std::size_t script_index, std::size_t index);
  void read_results(const ScriptCommand& command);
  void end_pipeline();
  std::size_t enter_branch(const CustomScript& script, std::size_t index);
  bool condition(const ScriptCommand& command);
  void sleep(const ScriptCommand& command);

  Connection conn_;
  QueryMode mode_;
  Variables variables_;
  PgbenchRandom random_;
  std::function<void(const std::string&)> debug_;
  std::set<std::pair<std::size_t, std::size_t>> prepared_;
  bool in_pipeline_ = false;
  bool synced_ = false;                        // the pipeline's sync is sent
  std::vector<const ScriptCommand*> pending_;  // sent in the pipeline, results unread
  std::size_t script_index_ = 0;
  std::size_t command_index_ = 0;
  Conflict conflict_ = Conflict::none;
};

}  // namespace storh::engines::pg
