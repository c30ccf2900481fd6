#include "pg/pgbench_script.h"

#include <fmt/format.h>

#include <charconv>

namespace storh::engines::pg {
namespace {

enum Variable : std::uint8_t { kAid, kBid, kTid, kDelta };
enum class Expect : std::uint8_t { nothing, one_row_changed, one_row_returned };

struct Statement {
  const char* name;      // prepared statement name
  const char* prepared;  // with $1 ..
  const char* simple;    // fmt pattern, the values in `variables` order
  std::array<Variable, 4> variables;
  int count;  // of variables used
  Expect expect;
};

// pgbench's statements. The indexes are used by kScriptStatements.
constexpr std::array<Statement, 7> kStatements = {{
    {"storh_begin", "BEGIN;", "BEGIN;", {}, 0, Expect::nothing},
    {"storh_update_account",
     "UPDATE pgbench_accounts SET abalance = abalance + $1 WHERE aid = $2;",
     "UPDATE pgbench_accounts SET abalance = abalance + {} WHERE aid = {};",
     {kDelta, kAid},
     2,
     Expect::one_row_changed},
    {"storh_select_account",
     "SELECT abalance FROM pgbench_accounts WHERE aid = $1;",
     "SELECT abalance FROM pgbench_accounts WHERE aid = {};",
     {kAid},
     1,
     Expect::one_row_returned},
    {"storh_update_teller",
     "UPDATE pgbench_tellers SET tbalance = tbalance + $1 WHERE tid = $2;",
     "UPDATE pgbench_tellers SET tbalance = tbalance + {} WHERE tid = {};",
     {kDelta, kTid},
     2,
     Expect::one_row_changed},
    {"storh_update_branch",
     "UPDATE pgbench_branches SET bbalance = bbalance + $1 WHERE bid = $2;",
     "UPDATE pgbench_branches SET bbalance = bbalance + {} WHERE bid = {};",
     {kDelta, kBid},
     2,
     Expect::one_row_changed},
    {"storh_insert_history",
     "INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES ($1, $2, $3, $4, "
     "CURRENT_TIMESTAMP);",
     "INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES ({}, {}, {}, {}, "
     "CURRENT_TIMESTAMP);",
     {kTid, kBid, kAid, kDelta},
     4,
     Expect::one_row_changed},
    {"storh_end", "END;", "END;", {}, 0, Expect::nothing},
}};

struct ScriptStatements {
  std::array<std::size_t, 7> indexes;
  std::size_t count;
};

const ScriptStatements& statements_of(Script script) {
  static constexpr ScriptStatements kTpcb{{0, 1, 2, 3, 4, 5, 6}, 7};
  static constexpr ScriptStatements kSimpleUpdate{{0, 1, 2, 5, 6}, 5};
  static constexpr ScriptStatements kSelectOnly{{2}, 1};
  switch (script) {
    case Script::tpcb_like:
      return kTpcb;
    case Script::simple_update:
      return kSimpleUpdate;
    case Script::select_only:
      break;
  }
  return kSelectOnly;
}

std::int64_t value_of(const Draw& draw, Variable variable) {
  switch (variable) {
    case kAid:
      return draw.aid;
    case kBid:
      return draw.bid;
    case kTid:
      return draw.tid;
    case kDelta:
      break;
  }
  return draw.delta;
}

// Appends the statement's simple-mode text for `draw` to `out`.
void write_simple(const Statement& statement, const Draw& draw, std::string& out) {
  std::array<std::int64_t, 4> values{};
  for (int i = 0; i < statement.count; ++i) {
    values[static_cast<std::size_t>(i)] =
        value_of(draw, statement.variables[static_cast<std::size_t>(i)]);
  }
  fmt::format_to(std::back_inserter(out), fmt::runtime(statement.simple), values[0], values[1],
                 values[2], values[3]);
}

}  // namespace

std::string_view script_name(Script script) noexcept {
  switch (script) {
    case Script::tpcb_like:
      return "tpcb_like";
    case Script::simple_update:
      return "simple_update";
    case Script::select_only:
      break;
  }
  return "select_only";
}

std::optional<Script> script_from_name(std::string_view name) noexcept {
  for (const Script script : kScripts) {
    if (script_name(script) == name) return script;
  }
  return std::nullopt;
}

std::optional<QueryMode> query_mode_from_name(std::string_view name) noexcept {
  if (name == "simple") return QueryMode::simple;
  if (name == "prepared") return QueryMode::prepared;
  if (name == "extended") return QueryMode::extended;
  return std::nullopt;
}

std::vector<std::string> script_sql(Script script, const Draw& draw) {
  std::vector<std::string> sql;
  const ScriptStatements& list = statements_of(script);
  for (std::size_t i = 0; i < list.count; ++i) {
    std::string text;
    write_simple(kStatements[list.indexes[i]], draw, text);
    sql.push_back(std::move(text));
  }
  return sql;
}

ScriptClient::ScriptClient(Connection conn, QueryMode mode, std::int64_t scale, std::uint64_t seed)
    : conn_(std::move(conn)), mode_(mode), scale_(scale), random_(seed) {
  if (mode_ == QueryMode::prepared) {
    for (const Statement& statement : kStatements) {
      conn_.prepare(statement.name, statement.prepared, statement.count);
    }
  }
  text_.reserve(256);
}

void ScriptClient::run(Script script) {
  // pgbench's \set lines, in its order.
  draw_.aid = random_.uniform(1, 100000 * scale_);
  if (script != Script::select_only) {
    draw_.bid = random_.uniform(1, 1 * scale_);
    draw_.tid = random_.uniform(1, 10 * scale_);
    draw_.delta = random_.uniform(-5000, 5000);
  }
  if (mode_ == QueryMode::prepared) {
    const std::array<std::int64_t, 4> values = {draw_.aid, draw_.bid, draw_.tid, draw_.delta};
    for (std::size_t i = 0; i < values.size(); ++i) {
      auto& text = values_[i];
      const auto end = std::to_chars(text.data(), text.data() + text.size() - 1, values[i]).ptr;
      *end = '\0';
    }
  }
  const ScriptStatements& list = statements_of(script);
  try {
    for (std::size_t i = 0; i < list.count; ++i) run_statement(list.indexes[i]);
  } catch (const PgError&) {
    // A failed statement leaves the transaction aborted: end it so the next one starts clean.
    const PGTransactionStatusType state = PQtransactionStatus(conn_.handle());
    if (state == PQTRANS_INERROR || state == PQTRANS_INTRANS)
      PQclear(PQexec(conn_.handle(), "ROLLBACK"));
    throw;
  }
}

void ScriptClient::run_statement(std::size_t index) {
  const Statement& statement = kStatements[index];
  std::optional<Result> result;
  if (mode_ == QueryMode::prepared) {
    std::array<const char*, 4> pointers{};
    for (int i = 0; i < statement.count; ++i) {
      pointers[static_cast<std::size_t>(i)] =
          values_[statement.variables[static_cast<std::size_t>(i)]].data();
    }
    result.emplace(conn_.exec_prepared(statement.name, pointers.data(), statement.count));
  } else {
    text_.clear();
    write_simple(statement, draw_, text_);
    result.emplace(conn_.exec(text_.c_str()));  // no copy of the statement per run
  }
  switch (statement.expect) {
    case Expect::one_row_changed:
      if (result->affected() != 1) {
        throw PgError(fmt::format("{}: changed {} rows, expected 1 (aid {}, tid {}, bid {})",
                                  statement.prepared, result->affected(), draw_.aid, draw_.tid,
                                  draw_.bid));
      }
      break;
    case Expect::one_row_returned:
      if (result->rows() != 1) {
        throw PgError(fmt::format("{}: returned {} rows, expected 1 (aid {})", statement.prepared,
                                  result->rows(), draw_.aid));
      }
      break;
    case Expect::nothing:
      break;
  }
}

}  // namespace storh::engines::pg
