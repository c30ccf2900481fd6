// history/pg_session.cpp
#include "history/pg_session.h"

#include <dlfcn.h>

#include <cstdlib>

#include <fmt/format.h>

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

// The libpq functions the store calls, found once, on the first connect. A Rows or a
// Session exists only after a connect found them all.
struct LibPq {
  decltype(&PQconnectdb) connectdb = nullptr;
  decltype(&PQerrorMessage) error_message = nullptr;
  decltype(&PQexec) exec = nullptr;
  decltype(&PQexecParams) exec_params = nullptr;
  decltype(&PQgetlength) getlength = nullptr;
  decltype(&PQgetvalue) getvalue = nullptr;
  decltype(&PQresultErrorMessage) result_error_message = nullptr;
  decltype(&PQresultStatus) result_status = nullptr;
  decltype(&PQsetNoticeProcessor) set_notice_processor = nullptr;
  decltype(&PQclear) clear = nullptr;
  decltype(&PQfinish) finish = nullptr;
  decltype(&PQntuples) ntuples = nullptr;
  decltype(&PQstatus) status = nullptr;
  std::string error;  // empty once every function is found
};

template <typename Function>
void find(void* library, const char* name, Function& function, std::string& error) {
  function = reinterpret_cast<Function>(::dlsym(library, name));
  if (function == nullptr && error.empty()) error = fmt::format("libpq has no {}", name);
}

// Loaded for good: the library stays while the process lives (static, thread-safe).
const LibPq& libpq() {
  static const LibPq loaded = [] {
    LibPq pq;
    void* library = ::dlopen("libpq.so.5", RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) {
      const char* reason = ::dlerror();
      pq.error = fmt::format("cannot load libpq: {}", reason != nullptr ? reason : "unknown");
      return pq;
    }
    find(library, "PQconnectdb", pq.connectdb, pq.error);
    find(library, "PQerrorMessage", pq.error_message, pq.error);
    find(library, "PQexec", pq.exec, pq.error);
    find(library, "PQexecParams", pq.exec_params, pq.error);
    find(library, "PQgetlength", pq.getlength, pq.error);
    find(library, "PQgetvalue", pq.getvalue, pq.error);
    find(library, "PQresultErrorMessage", pq.result_error_message, pq.error);
    find(library, "PQresultStatus", pq.result_status, pq.error);
    find(library, "PQsetNoticeProcessor", pq.set_notice_processor, pq.error);
    find(library, "PQclear", pq.clear, pq.error);
    find(library, "PQfinish", pq.finish, pq.error);
    find(library, "PQntuples", pq.ntuples, pq.error);
    find(library, "PQstatus", pq.status, pq.error);
    return pq;
  }();
  return loaded;
}

}  // namespace

void Rows::Clear::operator()(PGresult* result) const noexcept {
  libpq().clear(result);
}

void Session::Finish::operator()(PGconn* conn) const noexcept {
  libpq().finish(conn);
}

int Rows::count() const noexcept {
  return libpq().ntuples(result_.get());
}

bool Session::alive() const noexcept {
  return libpq().status(conn_.get()) == CONNECTION_OK;
}

std::string Rows::text(int row, int column) const {
  const char* value = libpq().getvalue(result_.get(), row, column);
  return std::string(value,
                     static_cast<std::size_t>(libpq().getlength(result_.get(), row, column)));
}

std::int64_t Rows::integer(int row, int column) const {
  return std::strtoll(libpq().getvalue(result_.get(), row, column), nullptr, 10);
}

double Rows::real(int row, int column) const {
  return std::strtod(libpq().getvalue(result_.get(), row, column), nullptr);
}

Expected<Session> Session::connect(const std::string& uri) {
  if (!libpq().error.empty()) return Error{libpq().error};
  Session session(libpq().connectdb(uri.c_str()));
  if (!session.conn_) return Error{"out of memory"};
  if (!session.alive()) return Error{one_line(libpq().error_message(session.conn_.get()))};
  // Notices (IF NOT EXISTS skips, advisory waits) would go to stderr otherwise.
  libpq().set_notice_processor(session.conn_.get(), ignore_notice, nullptr);
  return session;
}

Expected<Rows> Session::run(const std::string& sql,
                            const std::vector<std::string>& parameters) const {
  PGresult* result = nullptr;
  if (parameters.empty()) {
    result = libpq().exec(conn_.get(), sql.c_str());
  } else {
    std::vector<const char*> values;
    values.reserve(parameters.size());
    for (const std::string& parameter : parameters) values.push_back(parameter.c_str());
    result = libpq().exec_params(conn_.get(), sql.c_str(), static_cast<int>(values.size()), nullptr,
                                 values.data(), nullptr, nullptr, 0);
  }
  Rows rows(result);
  const ExecStatusType status = libpq().result_status(result);
  if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) return rows;
  return Error{
      one_line(result ? libpq().result_error_message(result) : libpq().error_message(conn_.get()))};
}

}  // namespace storh::history::postgres
