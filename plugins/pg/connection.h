// connection.h: one libpq connection, with errors as exceptions that say which statement
// failed and what the server answered.
//
// The pg engine is a plain library: like the other engines it throws on failure
// (PgError) and the plugin adapters turn exceptions into failed measurements at the ABI
// edge. A Connection is used by one thread at a time (libpq's rule); distinct
// connections may be used from different threads at once.
#pragma once

#include <libpq-fe.h>

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace storh::engines::pg {

class PgError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A finished statement's result. Owns the PGresult.
class Result {
 public:
  explicit Result(PGresult* result) noexcept : result_(result) {}

  int rows() const noexcept { return PQntuples(result_.get()); }
  // The rows an INSERT, UPDATE or DELETE affected (PQcmdTuples); 0 when none is given.
  std::uint64_t affected() const;
  bool is_null(int row, int column) const noexcept {
    return PQgetisnull(result_.get(), row, column) != 0;
  }
  std::string_view text(int row, int column) const noexcept;
  // The value as a signed integer; throws PgError naming `what` for NULL or non-digits.
  std::int64_t integer(int row, int column, std::string_view what) const;

 private:
  struct Clear {
    void operator()(PGresult* result) const noexcept { PQclear(result); }
  };
  std::unique_ptr<PGresult, Clear> result_;
};

class Connection {
 public:
  // Connects with a libpq connection string ("host=/dir dbname=x" or a postgresql://
  // URI); empty values come from the PG* environment. Throws PgError with libpq's
  // message ("connect: connection to server on socket ... failed: ...").
  explicit Connection(const std::string& conninfo);
  Connection(Connection&&) noexcept = default;
  Connection& operator=(Connection&&) noexcept = default;
  ~Connection() = default;

  // Runs one statement (or several separated by ';') through the simple query protocol.
  // Throws PgError("<sql>: <server message>") unless it completes.
  Result exec(std::string_view sql);
  // The same for a NUL-terminated `sql`, sent as it is: no copy (a transaction's
  // statements take this one).
  Result exec(const char* sql);
  // Prepares `sql` with $1.. placeholders under `name` on this connection.
  void prepare(const std::string& name, const std::string& sql, int parameters);
  // Runs a prepared statement with `count` text parameters (none null).
  Result exec_prepared(const std::string& name, const char* const* values, int count);
  // COPY <table> FROM STDIN: `copy_sql` is the COPY statement; `write(send)` calls
  // send(chunk) for each piece of the text-format data.
  template <typename Write>
  void copy_in(std::string_view copy_sql, Write&& write) {
    begin_copy(copy_sql);
    write([this](std::string_view chunk) { put_copy_data(chunk); });
    end_copy(copy_sql);
  }

  // True while the server end is up as far as libpq knows.
  bool ok() const noexcept { return PQstatus(conn_.get()) == CONNECTION_OK; }
  // The backend's parameter, e.g. "server_version"; empty when unknown.
  std::string parameter(const char* name) const;
  // SHOW <setting>.
  std::string show(std::string_view setting);
  PGconn* handle() noexcept { return conn_.get(); }
  // Lets go of the connection without ending it: a forked process's copy, whose
  // PQfinish would end the parent's session on their shared socket.
  void abandon() noexcept { static_cast<void>(conn_.release()); }

 private:
  void begin_copy(std::string_view copy_sql);
  void put_copy_data(std::string_view chunk);
  void end_copy(std::string_view copy_sql);
  Result checked(PGresult* result, std::string_view what);

  struct Finish {
    void operator()(PGconn* conn) const noexcept { PQfinish(conn); }
  };
  std::unique_ptr<PGconn, Finish> conn_;
};

// `value` quoted as a libpq connection-string value ('...' with \ and ' escaped).
std::string conninfo_value(std::string_view value);
// `name` quoted as an SQL identifier ("..." with " doubled).
std::string quote_identifier(std::string_view name);

}  // namespace storh::engines::pg
