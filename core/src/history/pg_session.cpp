// history/pg_session.cpp
#include "history/pg_session.h"

#include <cstdlib>

namespace storh::history::postgres {
namespace {

// libpq's messages end in a newline and may span lines ("FATAL:  ...\n\tThis probably
// means ..."): one line with single spaces, for a message that starts with the location.
std::string one_line(const char* message) {
  std::string text;
  for (const char* c = message ? message : ""; *c != '\0'; ++c) {
    const bool space = *c == ' ' || *c == '\n' || *c == '\t';
    if (!space) {
      text += *c;
    } else if (!text.empty() && text.back() != ' ') {
      text += ' ';
    }
  }
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text.empty() ? "unknown error" : text;
}

void ignore_notice(void* /*arg*/, const char* /*message*/) {}

}  // namespace

std::string Rows::text(int row, int column) const {
  const char* value = PQgetvalue(result_.get(), row, column);
  return std::string(value, static_cast<std::size_t>(PQgetlength(result_.get(), row, column)));
}

std::int64_t Rows::integer(int row, int column) const {
  return std::strtoll(PQgetvalue(result_.get(), row, column), nullptr, 10);
}

double Rows::real(int row, int column) const {
  return std::strtod(PQgetvalue(result_.get(), row, column), nullptr);
}

Expected<Session> Session::connect(const std::string& uri) {
  Session session(PQconnectdb(uri.c_str()));
  if (!session.conn_) return Error{"out of memory"};
  if (!session.alive()) return Error{one_line(PQerrorMessage(session.conn_.get()))};
  // Notices (IF NOT EXISTS skips, advisory waits) would go to stderr otherwise.
  PQsetNoticeProcessor(session.conn_.get(), ignore_notice, nullptr);
  return session;
}

Expected<Rows> Session::run(const std::string& sql,
                            const std::vector<std::string>& parameters) const {
  PGresult* result = nullptr;
  if (parameters.empty()) {
    result = PQexec(conn_.get(), sql.c_str());
  } else {
    std::vector<const char*> values;
    values.reserve(parameters.size());
    for (const std::string& parameter : parameters) values.push_back(parameter.c_str());
    result = PQexecParams(conn_.get(), sql.c_str(), static_cast<int>(values.size()), nullptr,
                          values.data(), nullptr, nullptr, 0);
  }
  Rows rows(result);
  const ExecStatusType status = PQresultStatus(result);
  if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) return rows;
  return Error{one_line(result ? PQresultErrorMessage(result) : PQerrorMessage(conn_.get()))};
}

}  // namespace storh::history::postgres
