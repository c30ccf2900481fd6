// history/pg_session.h: one libpq connection for the PostgreSQL history store, with
// errors as values (history/pg_store.cpp adds where they happened).
//
// The pg engine has its own connection class (plugins/pg/connection.h); it throws, as
// engines do, and core does not depend on a plugin's library. A Session is used by one
// thread at a time (libpq's rule).
//
// libpq is loaded (dlopen) at the first connect, not linked: it and the twenty
// libraries it pulls in (GnuTLS, Kerberos, LDAP) would cost every storh-host process,
// workers included, a few milliseconds of CPU at start. Without libpq.so.5, connect
// fails with the loader's message.
#pragma once

#include <libpq-fe.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "util/expected.h"

namespace storh::history::postgres {

// The rows a statement returned, all as text. Owns the PGresult.
class Rows {
 public:
  explicit Rows(PGresult* result) noexcept : result_(result) {}

  int count() const noexcept;
  std::string text(int row, int column) const;
  // A column of integer type (or its text); 0 for NULL.
  std::int64_t integer(int row, int column) const;
  // A float8 column: PostgreSQL 12+ prints the shortest text that reads back exactly.
  double real(int row, int column) const;

 private:
  struct Clear {
    void operator()(PGresult* result) const noexcept;
  };
  std::unique_ptr<PGresult, Clear> result_;
};

class Session {
 public:
  // Connects with a libpq URI. The error is libpq's message, which never holds the
  // password: "connection to server on socket ... failed: FATAL: password
  // authentication failed for user ...". Server notices are dropped, not printed.
  static Expected<Session> connect(const std::string& uri);

  // Runs `sql`: with no parameters through the simple protocol (several statements
  // separated by ';' may be given), else as one statement with $1.. text parameters.
  // The error is the server's (or libpq's) message, on one line.
  Expected<Rows> run(const std::string& sql, const std::vector<std::string>& parameters = {}) const;

  // False once libpq knows the connection is gone (the server went away).
  bool alive() const noexcept;

 private:
  struct Finish {
    void operator()(PGconn* conn) const noexcept;
  };
  explicit Session(PGconn* conn) noexcept : conn_(conn) {}

  std::unique_ptr<PGconn, Finish> conn_;
};

}  // namespace storh::history::postgres
