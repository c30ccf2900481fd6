// local_server.h: a throwaway PostgreSQL cluster, private to one process.
//
// initdb into <dir>/data, then the postmaster listening only on a Unix socket in <dir>
// (listen_addresses is empty: no TCP port is opened). A socket path is limited to 107
// bytes; when <dir> is too deep for it, the server listens on an abstract Unix socket
// instead ("@storh-pg-<pid>-<hex>", PostgreSQL 14+): no file anywhere, and the kernel
// drops the name when the server exits. The server is a child of the
// process that made the LocalServer and never outlives it:
//   - the destructor stops it (fast shutdown) and removes <dir>;
//   - if that process dies in any other way (a crash, SIGKILL, the host's timeout or
//     Ctrl-C), the kernel sends the postmaster SIGQUIT (PR_SET_PDEATHSIG): PostgreSQL's
//     immediate shutdown, which stops every backend and frees the shared memory; the
//     host then removes the work directory that holds <dir>.
// This is why the postmaster is started directly and not through `pg_ctl start`: pg_ctl
// detaches it into a session of its own, which outlives a crashed process.
//
// PostgreSQL refuses to run as root. When the process is root, initdb and the
// postmaster run as the `postgres` user (which Debian's package creates), <dir> is
// handed to that user, and the directories above it must be searchable by it.
//
// A LocalServer is made and destroyed on one thread (the parent-death signal follows
// the thread that started the server). running() and exit_reason() may be called from
// any thread. A copy of the object in a forked child (a process client) is inert: only
// the process that started the server stops it.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>

#include "pg/installation.h"
#include "pg/server_settings.h"

namespace storh::engines::pg {

// The superuser initdb creates; clients connect as it over the socket (trust).
inline constexpr const char* kSuperuser = "storh";
// The port names the socket file (.s.PGSQL.<port>); nothing listens on TCP.
inline constexpr int kSocketPort = 5432;
// How long down_reason() waits for a postmaster that stopped answering to exit.
inline constexpr std::chrono::seconds kExitGrace{5};

class LocalServer {
 public:
  // Creates <dir> (its parent must exist), runs initdb and starts the server with
  // `settings` (each as -c name=value), waiting until it accepts connections. Throws
  // PgError with the tail of initdb's or the server's log on failure; nothing is left
  // running then.
  LocalServer(const Installation& installation, std::filesystem::path dir,
              const ServerSettings& settings);
  LocalServer(const LocalServer&) = delete;
  LocalServer& operator=(const LocalServer&) = delete;
  // stop(), then removes <dir>; errors are ignored (the host removes the work directory).
  ~LocalServer();

  // Fast shutdown (SIGINT), then SIGQUIT after 30 s, SIGKILL after 10 more; waits.
  // Throws PgError when the server was already gone before it was asked to stop:
  // the cell's server crashed. Idempotent.
  void stop();

  // "host=<socket host> port=5432 user=storh dbname=<database>".
  std::string conninfo(const std::string& database) const;
  const std::filesystem::path& dir() const noexcept { return dir_; }
  // What libpq's host (and pgbench's -h) takes: <dir>, or "@name" for an abstract socket.
  const std::string& socket_host() const noexcept { return socket_host_; }
  pid_t pid() const noexcept { return pid_; }
  // False once the postmaster has exited, whatever ended it.
  bool running();
  // "the server (postmaster pid N) was killed by signal 9 (Killed)"; empty while it runs.
  std::string exit_reason();
  // exit_reason(), for a caller whose statement just failed: when the postmaster is
  // not reaped yet but no longer answers a ping, waits up to kExitGrace for it to
  // exit. A SIGKILLed postmaster's backends can close their clients' connections
  // before the kernel has made the postmaster a zombie, so a lost connection alone
  // cannot tell a crash from an error. Empty while the server runs and answers.
  std::string down_reason();
  // The last lines of the server's log, for error messages.
  std::string log_tail() const;

 private:
  void start(const Installation& installation, const ServerSettings& settings);
  void wait_until_ready();

  std::filesystem::path dir_;
  std::string socket_host_;
  pid_t owner_ = 0;  // the process that started the server
  pid_t pid_ = -1;
  std::mutex mutex_;                // guards exit_status_
  std::optional<int> exit_status_;  // waitpid status once reaped
};

}  // namespace storh::engines::pg
