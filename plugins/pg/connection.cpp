#include "pg/connection.h"

#include <fmt/format.h>

#include <charconv>

namespace storh::engines::pg {
namespace {

// libpq messages end with a newline, and some carry a second "DETAIL:" line.
std::string tidy(const char* message) {
  std::string text = message == nullptr ? "" : message;
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  for (char& c : text) {
    if (c == '\n') c = ' ';
  }
  return text.empty() ? "unknown error" : text;
}

std::string shorten_sql(std::string_view sql) {
  constexpr std::size_t kMax = 80;
  std::string text(sql.substr(0, kMax));
  if (sql.size() > kMax) text += "...";
  return text;
}

}  // namespace

std::uint64_t Result::affected() const {
  const char* text = PQcmdTuples(result_.get());
  std::uint64_t value = 0;
  if (text == nullptr || *text == '\0') return 0;
  std::from_chars(text, text + std::char_traits<char>::length(text), value);
  return value;
}

std::string_view Result::text(int row, int column) const noexcept {
  return {PQgetvalue(result_.get(), row, column),
          static_cast<std::size_t>(PQgetlength(result_.get(), row, column))};
}

std::int64_t Result::integer(int row, int column, std::string_view what) const {
  if (row >= rows() || is_null(row, column)) {
    throw PgError(fmt::format("{}: no value (NULL or no row)", what));
  }
  const std::string_view value = text(row, column);
  std::int64_t number = 0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), number);
  if (error != std::errc() || end != value.data() + value.size()) {
    throw PgError(fmt::format("{}: \"{}\" is not an integer", what, value));
  }
  return number;
}

Connection::Connection(const std::string& conninfo) : conn_(PQconnectdb(conninfo.c_str())) {
  if (!conn_) throw PgError("connect: libpq could not allocate a connection");
  if (PQstatus(conn_.get()) != CONNECTION_OK) {
    // libpq's message names the socket or host it tried (never the password).
    throw PgError(fmt::format("connect: {}", tidy(PQerrorMessage(conn_.get()))));
  }
  // Notices ("table ... does not exist, skipping") would go to stderr, which is the
  // worker's: its tail belongs to real failures.
  PQsetNoticeProcessor(
      conn_.get(), [](void*, const char*) {}, nullptr);
}

Result Connection::checked(PGresult* raw, std::string_view what) {
  Result result(raw);
  const ExecStatusType status = PQresultStatus(raw);
  if (raw == nullptr ||
      (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK && status != PGRES_COPY_IN)) {
    throw PgError(fmt::format(
        "{}: {}", shorten_sql(what),
        tidy(raw != nullptr ? PQresultErrorMessage(raw) : PQerrorMessage(conn_.get()))));
  }
  return result;
}

Result Connection::exec(std::string_view sql) {
  const std::string text(sql);
  return exec(text.c_str());
}

Result Connection::exec(const char* sql) {
  return checked(PQexec(conn_.get(), sql), sql);
}

void Connection::prepare(const std::string& name, const std::string& sql, int parameters) {
  checked(PQprepare(conn_.get(), name.c_str(), sql.c_str(), parameters, nullptr), sql);
}

Result Connection::exec_prepared(const std::string& name, const char* const* values, int count) {
  return checked(PQexecPrepared(conn_.get(), name.c_str(), count, values, nullptr, nullptr, 0),
                 name);
}

void Connection::begin_copy(std::string_view copy_sql) {
  const Result result = exec(copy_sql);
  static_cast<void>(result);
}

void Connection::put_copy_data(std::string_view chunk) {
  if (PQputCopyData(conn_.get(), chunk.data(), static_cast<int>(chunk.size())) != 1) {
    throw PgError(fmt::format("COPY data: {}", tidy(PQerrorMessage(conn_.get()))));
  }
}

void Connection::end_copy(std::string_view copy_sql) {
  if (PQputCopyEnd(conn_.get(), nullptr) != 1) {
    throw PgError(fmt::format("COPY end: {}", tidy(PQerrorMessage(conn_.get()))));
  }
  // The COPY's own result, then the end of the command.
  for (PGresult* raw = PQgetResult(conn_.get()); raw != nullptr; raw = PQgetResult(conn_.get())) {
    checked(raw, copy_sql);
  }
}

std::string Connection::parameter(const char* name) const {
  const char* value = PQparameterStatus(conn_.get(), name);
  return value == nullptr ? std::string() : std::string(value);
}

std::string Connection::show(std::string_view setting) {
  const Result result = exec(fmt::format("SHOW {}", setting));
  return result.rows() == 1 ? std::string(result.text(0, 0)) : std::string();
}

std::string conninfo_value(std::string_view value) {
  std::string quoted = "'";
  for (const char c : value) {
    if (c == '\'' || c == '\\') quoted += '\\';
    quoted += c;
  }
  return quoted + "'";
}

std::string quote_identifier(std::string_view name) {
  std::string quoted = "\"";
  for (const char c : name) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

}  // namespace storh::engines::pg
