// Running a custom script as pgbench's client state machine does, one command after
// another: variables substituted as pgbench substitutes them (assignVariables in simple
// mode, parseQuery's $n otherwise), results read into variables as readCommandResponse
// does, conditionals by the jump targets the parser computed.
#include <fmt/format.h>

#include <chrono>
#include <thread>

#include "pg/pgbench_custom.h"

namespace storh::engines::pg {
namespace {

bool variable_char(char c, bool first) {
  const auto u = static_cast<unsigned char>(c);
  return (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || u == '_' || u >= 0x80 ||
         (!first && u >= '0' && u <= '9');
}

// The length of the :name at `sql[at]` (':' included), 0 when none starts there.
std::size_t variable_length(std::string_view sql, std::size_t at) {
  std::size_t end = at + 1;
  if (end >= sql.size() || !variable_char(sql[end], true)) return 0;
  while (end < sql.size() && variable_char(sql[end], false)) ++end;
  return end - at;
}

// Calls `on_variable(name)` for each :name and `on_text(text)` for what lies between, as
// pgbench's scan does: runs of ':' that start no name are plain text (casts).
template <typename Text, typename Var>
void split_variables(std::string_view sql, Text&& on_text, Var&& on_variable) {
  std::size_t start = 0;
  std::size_t at = 0;
  while ((at = sql.find(':', at)) != std::string_view::npos) {
    const std::size_t length = variable_length(sql, at);
    if (length == 0) {
      while (at < sql.size() && sql[at] == ':') ++at;
      continue;
    }
    on_text(sql.substr(start, at - start));
    on_variable(std::string(sql.substr(at + 1, length - 1)), sql.substr(at, length));
    at += length;
    start = at;
  }
  on_text(sql.substr(start));
}

struct ClearResult {
  void operator()(PGresult* result) const noexcept { PQclear(result); }
};
using ResultPtr = std::unique_ptr<PGresult, ClearResult>;

std::int64_t steady_ns() noexcept {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

CustomClient::CustomClient(Connection conn, QueryMode mode, const ClientSetup& setup)
    : conn_(std::move(conn)), mode_(mode), random_(setup.function_seed) {
  for (const auto& [name, value] : setup.defines) variables_.set_text(name, value);
  auto define = [&](const char* name, std::int64_t value) {
    if (!variables_.has(name)) variables_.set_value(name, Value::of_int(value));
  };
  define("scale", setup.scale);
  define("client_id", setup.client_id);
  define("default_seed", setup.default_seed);
  define("random_seed", static_cast<std::int64_t>(setup.random_seed));
}

void CustomClient::reconnect(Connection conn) {
  conn_ = std::move(conn);
  prepared_.clear();
}

void CustomClient::run(const CustomScript& script, std::size_t script_index,
                       std::vector<CommandStats>* stats) {
  script_index_ = script_index;
  conflict_ = Conflict::none;
  try {
    run_commands(script, script_index, stats);
  } catch (const std::exception& error) {
    // Leave the connection as the next transaction needs it: out of a pipeline, and out
    // of a transaction the failure left open.
    PGconn* handle = conn_.handle();
    if (in_pipeline_) {
      // Read up to the sync; PQgetResult gives a NULL after each query's results.
      if (!synced_) PQpipelineSync(handle);
      for (std::size_t nulls = 0; nulls <= pending_.size() + 1;) {
        PGresult* result = PQgetResult(handle);
        if (result == nullptr) {
          ++nulls;
          continue;
        }
        const bool sync = PQresultStatus(result) == PGRES_PIPELINE_SYNC;
        PQclear(result);
        if (sync) break;
      }
      PQexitPipelineMode(handle);
      in_pipeline_ = false;
      synced_ = false;
      pending_.clear();
    }
    while (PGresult* result = PQgetResult(handle)) PQclear(result);
    const PGTransactionStatusType state = PQtransactionStatus(handle);
    if (state == PQTRANS_INERROR || state == PQTRANS_INTRANS) PQclear(PQexec(handle, "ROLLBACK"));
    const ScriptCommand& command = script.commands[command_index_];
    throw PgError(
        fmt::format("{}:{}: {}: {}", script.name, command.line, command.first_line, error.what()));
  }
}

// Two loops rather than a test per command, so that a run without statement latencies
// pays for no clock read. A command is timed from its start to where the next begins,
// as pgbench times it (a false \if's jump included).
void CustomClient::run_commands(const CustomScript& script, std::size_t script_index,
                                std::vector<CommandStats>* stats) {
  std::size_t i = 0;
  if (stats == nullptr) {
    while (i < script.commands.size()) i = run_command(script, script_index, i);
  } else {
    while (i < script.commands.size()) {
      const std::int64_t start = steady_ns();
      const std::size_t at = i;
      i = run_command(script, script_index, i);
      CommandStats& command = (*stats)[at];
      ++command.count;
      command.total_ns += steady_ns() - start;
    }
  }
  if (in_pipeline_) throw PgError("end of script reached with pipeline open");
}

// Runs the command at `i` and returns the index of the next one.
std::size_t CustomClient::run_command(const CustomScript& script, std::size_t script_index,
                                      std::size_t i) {
  command_index_ = i;
  const ScriptCommand& command = script.commands[i];
  switch (command.meta) {
    case MetaCommand::sql:
      run_sql(script, script_index, i);
      ++i;
      break;
    case MetaCommand::set: {
      EvalContext context{variables_, random_, nullptr};
      if (debug_) {
        context.debug = [&](const std::string& text) {
          debug_(fmt::format("debug(script={},command={}): {}", script_index, i + 1, text));
        };
      }
      variables_.set_value(command.variable, evaluate(command.expr, context));
      ++i;
      break;
    }
    case MetaCommand::sleep:
      sleep(command);
      ++i;
      break;
    case MetaCommand::if_:
      i = condition(command) ? i + 1 : enter_branch(script, command.next_branch);
      break;
    case MetaCommand::elif:
    case MetaCommand::else_:
      i = command.endif + 1;  // reached by running the branch before it
      break;
    case MetaCommand::endif:
      ++i;
      break;
    case MetaCommand::startpipeline:
      if (mode_ == QueryMode::simple) {
        throw PgError("cannot use pipeline mode with the simple query protocol");
      }
      if (in_pipeline_) throw PgError("already in pipeline mode");
      if (PQenterPipelineMode(conn_.handle()) == 0) {
        throw PgError(
            fmt::format("failed to enter pipeline mode: {}", PQerrorMessage(conn_.handle())));
      }
      in_pipeline_ = true;
      ++i;
      break;
    case MetaCommand::endpipeline:
      if (!in_pipeline_) throw PgError("not in pipeline mode");
      end_pipeline();
      ++i;
      break;
  }
  return i;
}

// The branch after a false \if or \elif at `index`: the first true \elif's body, the
// \else's body, or after the \endif.
std::size_t CustomClient::enter_branch(const CustomScript& script, std::size_t index) {
  while (script.commands[index].meta == MetaCommand::elif) {
    command_index_ = index;
    if (condition(script.commands[index])) return index + 1;
    index = script.commands[index].next_branch;
  }
  return index + 1;
}

bool CustomClient::condition(const ScriptCommand& command) {
  EvalContext context{variables_, random_, nullptr};
  return value_truth(evaluate(command.expr, context));
}

void CustomClient::sleep(const ScriptCommand& command) {
  std::int64_t amount = command.sleep_amount;
  if (!command.sleep_variable.empty()) {
    const std::string* text = variables_.text(command.sleep_variable);
    if (text == nullptr) {
      throw PgError(fmt::format("sleep: undefined variable \"{}\"", command.sleep_variable));
    }
    amount = std::atoi(text->c_str());
    if (amount == 0 && (text->empty() || (*text)[0] < '0' || (*text)[0] > '9')) {
      throw PgError(fmt::format("sleep: invalid sleep time \"{}\" for variable \"{}\"", *text,
                                command.sleep_variable));
    }
  }
  const std::int64_t us = amount * command.sleep_unit_us;
  if (us > 0) std::this_thread::sleep_for(std::chrono::microseconds(us));
}

void CustomClient::run_sql(const CustomScript& script, std::size_t script_index,
                           std::size_t index) {
  const ScriptCommand& command = script.commands[index];
  PGconn* handle = conn_.handle();
  int sent = 0;
  if (mode_ == QueryMode::simple) {
    std::string text;
    split_variables(
        command.sql, [&](std::string_view part) { text += part; },
        [&](const std::string& name, std::string_view written) {
          const std::string* value = variables_.text(name);
          text += value != nullptr ? std::string_view(*value) : written;
        });
    sent = PQsendQuery(handle, text.c_str());
  } else {
    std::string text;
    std::vector<std::string> names;
    split_variables(
        command.sql, [&](std::string_view part) { text += part; },
        [&](const std::string& name, std::string_view) {
          names.push_back(name);
          text += fmt::format("${}", names.size());
        });
    std::vector<const char*> values;
    for (const std::string& name : names) {
      const std::string* value = variables_.text(name);
      values.push_back(value != nullptr ? value->c_str() : nullptr);
    }
    const int count = static_cast<int>(values.size());
    if (mode_ == QueryMode::extended) {
      sent = PQsendQueryParams(handle, text.c_str(), count, nullptr, values.data(), nullptr,
                               nullptr, 0);
    } else {
      const std::string name = fmt::format("P_{}_{}", script_index, index);
      if (prepared_.insert({script_index, index}).second) {
        if (in_pipeline_) {
          throw PgError("storh prepares a statement before its pipeline: run it once outside");
        }
        conn_.prepare(name, text, count);
      }
      sent = PQsendQueryPrepared(handle, name.c_str(), count, values.data(), nullptr, nullptr, 0);
    }
  }
  if (sent == 0) throw PgError(fmt::format("sending the query failed: {}", PQerrorMessage(handle)));
  if (in_pipeline_) {
    pending_.push_back(&command);
    return;
  }
  read_results(command);
}

// Reads one command's results up to the NULL that ends them; \gset takes the last
// result's single row, \aset every result's last row.
void CustomClient::read_results(const ScriptCommand& command) {
  PGconn* handle = conn_.handle();
  ResultPtr result(PQgetResult(handle));
  int query = 0;
  std::string failure;
  while (result) {
    ResultPtr next(PQgetResult(handle));
    const bool last = next == nullptr;
    const ExecStatusType status = PQresultStatus(result.get());
    const bool gset = command.result_variables == ResultVariables::gset && last;
    const bool aset = command.result_variables == ResultVariables::aset;
    if (failure.empty()) {
      if (status == PGRES_COMMAND_OK || status == PGRES_EMPTY_QUERY) {
        if (gset) failure = fmt::format("query {}: expected one row, got 0", query);
      } else if (status == PGRES_TUPLES_OK) {
        const int rows = PQntuples(result.get());
        if (gset && rows != 1) {
          failure = fmt::format("query {}: expected one row, got {}", query, rows);
        } else if ((gset || aset) && rows > 0) {
          for (int field = 0; field < PQnfields(result.get()); ++field) {
            const std::string name = command.prefix + PQfname(result.get(), field);
            if (!valid_variable_name(name)) {
              failure = fmt::format("query {}: invalid variable name \"{}\"", query, name);
              break;
            }
            variables_.set_text(name, PQgetvalue(result.get(), rows - 1, field));
          }
        }
      } else {
        const char* state = PQresultErrorField(result.get(), PG_DIAG_SQLSTATE);
        const std::string_view sqlstate = state != nullptr ? state : "";
        if (sqlstate == "40001") conflict_ = Conflict::serialization;
        if (sqlstate == "40P01") conflict_ = Conflict::deadlock;
        failure = fmt::format("query {}: {}", query, PQresultErrorMessage(result.get()));
        while (!failure.empty() && failure.back() == '\n') failure.pop_back();
      }
    }
    result = std::move(next);
    ++query;
  }
  if (!failure.empty()) throw PgError(failure);
}

void CustomClient::end_pipeline() {
  PGconn* handle = conn_.handle();
  if (PQpipelineSync(handle) == 0) {
    throw PgError(fmt::format("failed to send a pipeline sync: {}", PQerrorMessage(handle)));
  }
  synced_ = true;
  while (!pending_.empty()) {
    const ScriptCommand* command = pending_.front();
    pending_.erase(pending_.begin());
    read_results(*command);
  }
  ResultPtr sync(PQgetResult(handle));
  if (!sync || PQresultStatus(sync.get()) != PGRES_PIPELINE_SYNC) {
    throw PgError("unexpected result at the end of the pipeline");
  }
  if (PQexitPipelineMode(handle) == 0) {
    throw PgError(fmt::format("failed to exit pipeline mode: {}", PQerrorMessage(handle)));
  }
  in_pipeline_ = false;
  synced_ = false;
}

}  // namespace storh::engines::pg
