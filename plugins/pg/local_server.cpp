#include "pg/local_server.h"

#include <fcntl.h>
#include <grp.h>
#include <libpq-fe.h>
#include <pwd.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>
#include <vector>

#include "pg/connection.h"

namespace storh::engines::pg {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// A Unix socket path holds at most 107 bytes (sockaddr_un).
constexpr std::size_t kMaxSocketPath = 107;

// Who initdb and the postmaster run as: this process's user, or `postgres` for root.
struct ServerUser {
  bool switch_user = false;
  uid_t uid = 0;
  gid_t gid = 0;
};

ServerUser server_user() {
  if (::geteuid() != 0) return {};
  const passwd* user = ::getpwnam("postgres");
  if (user == nullptr) {
    throw PgError(fmt::format(
        "PostgreSQL refuses to run as root and there is no \"postgres\" user to run it as: "
        "install Debian's {} (it creates the user) or run storh-host as another user",
        kServerPackage));
  }
  return {true, user->pw_uid, user->pw_gid};
}

// As root, the server runs as `postgres`, which must be able to pass through every
// directory above `dir` (supplementary groups are dropped, so only its own group counts).
void check_reachable(const fs::path& dir, const ServerUser& user) {
  for (fs::path above = dir.parent_path(); !above.empty(); above = above.parent_path()) {
    struct stat info {};
    if (::stat(above.c_str(), &info) == 0) {
      const bool passes = (info.st_mode & S_IXOTH) != 0 ||
                          (info.st_uid == user.uid && (info.st_mode & S_IXUSR) != 0) ||
                          (info.st_gid == user.gid && (info.st_mode & S_IXGRP) != 0);
      if (!passes) {
        throw PgError(fmt::format(
            "the server runs as the postgres user (PostgreSQL refuses root), which cannot reach "
            "{}: {} (mode {:04o}) does not let others through; use a --work-dir whose parents "
            "do (the default, $TMPDIR, does) or run storh-host as another user",
            dir.string(), above.string(), info.st_mode & 07777));
      }
    }
    if (above == above.root_path()) break;
  }
}

std::string tail_of(const fs::path& file, std::size_t max_lines) {
  std::ifstream in(file);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) lines.push_back(line);
  }
  std::string text;
  for (std::size_t i = lines.size() > max_lines ? lines.size() - max_lines : 0; i < lines.size();
       ++i) {
    text += (text.empty() ? "" : " | ") + lines[i];
  }
  return text.empty() ? "(empty log)" : text;
}

std::string describe_status(int status) {
  if (WIFSIGNALED(status)) {
    return fmt::format("was killed by signal {} ({})", WTERMSIG(status),
                       strsignal(WTERMSIG(status)));
  }
  return fmt::format("exited with status {}", WEXITSTATUS(status));
}

// Starts argv[0] with stdout and stderr appended to `log`, as `user`, in a process group
// of its own, closing every other descriptor (the worker's pipes must reach end of file
// when the worker exits). With `tie_to_parent` the child gets SIGQUIT when this thread's
// process dies. Everything the child needs is built before fork(): after it, only
// async-signal-safe calls.
pid_t spawn(const std::vector<std::string>& argv, const fs::path& log, const ServerUser& user,
            bool tie_to_parent) {
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  const int log_fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (log_fd < 0) throw PgError(fmt::format("open {}: {}", log.string(), std::strerror(errno)));
  const int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::setpgid(0, 0);
    ::dup2(null_fd, STDIN_FILENO);
    ::dup2(log_fd, STDOUT_FILENO);
    ::dup2(log_fd, STDERR_FILENO);
    ::close_range(3, ~0U, 0);
    if (user.switch_user &&
        (::setgroups(0, nullptr) != 0 || ::setgid(user.gid) != 0 || ::setuid(user.uid) != 0)) {
      ::_exit(126);
    }
    // After the user switch: changing credentials clears the parent-death signal.
    if (tie_to_parent && (::prctl(PR_SET_PDEATHSIG, SIGQUIT) != 0 || ::getppid() != parent)) {
      ::_exit(125);
    }
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  const int fork_error = errno;
  ::close(log_fd);
  if (null_fd >= 0) ::close(null_fd);
  if (pid < 0) throw PgError(fmt::format("fork for {}: {}", argv[0], std::strerror(fork_error)));
  return pid;
}

}  // namespace

LocalServer::LocalServer(const Installation& installation, fs::path dir,
                         const ServerSettings& settings)
    : dir_(std::move(dir)), owner_(::getpid()) {
  const std::string socket = (dir_ / (".s.PGSQL." + std::to_string(kSocketPort))).string();
  socket_host_ = dir_.string();
  if (socket.size() > kMaxSocketPath) {
    std::random_device random;
    socket_host_ = fmt::format("@storh-pg-{}-{:08x}", owner_, random());
  }
  std::error_code ec;
  if (!fs::create_directory(dir_, ec) || ec) {
    throw PgError(fmt::format("create {}: {}", dir_.string(),
                              ec ? ec.message() : std::string("it exists already")));
  }
  try {
    start(installation, settings);
  } catch (...) {
    stop();
    fs::remove_all(dir_, ec);
    throw;
  }
}

void LocalServer::start(const Installation& installation, const ServerSettings& settings) {
  const ServerUser user = server_user();
  if (user.switch_user) check_reachable(dir_, user);
  if (user.switch_user && ::chown(dir_.c_str(), user.uid, user.gid) != 0) {
    throw PgError(fmt::format("chown {} to postgres: {}", dir_.string(), std::strerror(errno)));
  }
  const fs::path data = dir_ / "data";
  const fs::path initdb_log = dir_ / "initdb.log";
  // --no-sync: the cluster is thrown away after the cell, so its initial files need not
  // reach the disk; the server itself syncs as its settings say.
  const pid_t initdb =
      spawn({(installation.bindir / "initdb").string(), "-D", data.string(), "-U", kSuperuser,
             "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync", "--no-instructions"},
            initdb_log, user, true);
  int status = 0;
  while (::waitpid(initdb, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    throw PgError(fmt::format("initdb {} {}: {}", data.string(), describe_status(status),
                              tail_of(initdb_log, 3)));
  }
  std::vector<std::string> argv = {(installation.bindir / "postgres").string(),
                                   "-D",
                                   data.string(),
                                   "-k",
                                   socket_host_,
                                   "-p",
                                   std::to_string(kSocketPort),
                                   "-c",
                                   "listen_addresses="};
  for (const auto& [name, value] : settings.all()) {
    argv.push_back("-c");
    argv.push_back(fmt::format("{}={}", name, value));
  }
  pid_ = spawn(argv, dir_ / "server.log", user, true);
  wait_until_ready();
}

void LocalServer::wait_until_ready() {
  const std::string info = conninfo("postgres");
  const Clock::time_point deadline = Clock::now() + std::chrono::seconds(60);
  while (PQping(info.c_str()) != PQPING_OK) {
    if (!running()) {
      throw PgError(fmt::format("the server {} while starting: {}", exit_reason(), log_tail()));
    }
    if (Clock::now() > deadline) {
      throw PgError(
          fmt::format("the server did not accept connections within 60 s: {}", log_tail()));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

LocalServer::~LocalServer() {
  stop();
  if (::getpid() == owner_) {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
}

void LocalServer::stop() {
  if (::getpid() != owner_ || pid_ < 0 || !running()) return;
  // SIGINT: fast shutdown (roll back sessions, checkpoint, exit). SIGQUIT: immediate.
  const std::pair<int, int> steps[] = {{SIGINT, 30}, {SIGQUIT, 10}, {SIGKILL, 3600}};
  for (const auto& [signal, seconds] : steps) {
    ::kill(pid_, signal);
    const Clock::time_point deadline = Clock::now() + std::chrono::seconds(seconds);
    while (running() && Clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    if (!running()) return;
  }
}

std::string LocalServer::conninfo(const std::string& database) const {
  return fmt::format("host={} port={} user={} dbname={}", conninfo_value(socket_host_), kSocketPort,
                     kSuperuser, conninfo_value(database));
}

bool LocalServer::running() {
  const std::lock_guard lock(mutex_);
  if (pid_ < 0 || exit_status_) return false;
  if (::getpid() != owner_) {
    // A forked client cannot wait for the server; /proc says whether it still runs.
    std::ifstream stat(fmt::format("/proc/{}/stat", pid_));
    std::string pid_field, name, state;
    return static_cast<bool>(stat >> pid_field >> name >> state) && state != "Z";
  }
  int status = 0;
  if (::waitpid(pid_, &status, WNOHANG) == pid_) exit_status_ = status;
  return !exit_status_;
}

std::string LocalServer::exit_reason() {
  if (running()) return {};
  const std::lock_guard lock(mutex_);
  if (!exit_status_) return fmt::format("the server (postmaster pid {}) is gone", pid_);
  return fmt::format("the server (postmaster pid {}) {}", pid_, describe_status(*exit_status_));
}

std::string LocalServer::down_reason() {
  if (std::string reason = exit_reason(); !reason.empty()) return reason;
  if (PQping(conninfo("postgres").c_str()) != PQPING_NO_RESPONSE) return {};
  const Clock::time_point deadline = Clock::now() + kExitGrace;
  while (running() && Clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (std::string reason = exit_reason(); !reason.empty()) return reason;
  return fmt::format("the server (postmaster pid {}) does not answer", pid_);
}

std::string LocalServer::log_tail() const {
  return tail_of(dir_ / "server.log", 3);
}

}  // namespace storh::engines::pg
