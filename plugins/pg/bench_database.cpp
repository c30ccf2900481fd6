#include "pg/bench_database.h"

#include <fmt/format.h>
#include <libpq-fe.h>
#include <signal.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <fstream>
#include <optional>
#include <random>
#include <vector>

namespace storh::engines::pg {
namespace {

// Opens `conninfo` (expanded as a connection string or URI) with `database` and
// `options` overriding what it says, as PQconnectdbParams allows.
std::string override_params(const std::string& conninfo, const std::string& database,
                            const std::string& options) {
  std::string text = conninfo;
  // A URI cannot take keywords after it; a keyword string can, and later ones win.
  if (text.rfind("postgresql://", 0) == 0 || text.rfind("postgres://", 0) == 0) {
    const std::size_t query = text.find('?');
    std::string parameters;
    const auto add = [&](const char* key, const std::string& value) {
      if (value.empty()) return;
      parameters += (parameters.empty() ? "" : "&") + std::string(key) + "=";
      for (const unsigned char c : value) {
        if (std::isalnum(c) || c == '-' || c == '_' || c == '.') {
          parameters += static_cast<char>(c);
        } else {
          parameters += fmt::format("%{:02X}", c);
        }
      }
    };
    add("dbname", database);
    add("options", options);
    if (parameters.empty()) return text;
    return text + (query == std::string::npos ? "?" : "&") + parameters;
  }
  if (!database.empty()) text += " dbname=" + conninfo_value(database);
  if (!options.empty()) text += " options=" + conninfo_value(options);
  return text;
}

constexpr std::string_view kDatabasePrefix = "storh_bench_";

std::string random_database_name() {
  std::random_device device;
  const std::uint64_t value = (static_cast<std::uint64_t>(device()) << 32) | device();
  return fmt::format("{}{:016x}", kDatabasePrefix, value);
}

std::string host_name() {
  std::array<char, 256> name{};
  if (::gethostname(name.data(), name.size() - 1) != 0) return "unknown";
  return name.data();
}

// This boot's id (/proc/sys/kernel/random/boot_id): a pid of another boot is gone.
std::string boot_id() {
  std::ifstream in("/proc/sys/kernel/random/boot_id");
  std::string id;
  in >> id;
  return id.empty() ? "unknown" : id;
}

// The owner comment of a database made by process `pid` on this machine.
std::string owner_comment(pid_t pid) {
  return fmt::format("storh-host bench database of pid {} on host {} (boot {})", pid, host_name(),
                     boot_id());
}

// `text` as an SQL string literal (standard_conforming_strings, on since 9.1).
std::string sql_literal(std::string_view text) {
  std::string quoted = "'";
  for (const char c : text) quoted += c == '\'' ? std::string("''") : std::string(1, c);
  return quoted + "'";
}

// Why the owner named in `comment` is provably gone, or "" when it may still run.
std::string owner_gone(std::string_view comment) {
  unsigned long pid = 0;
  std::array<char, 256> host{};
  std::array<char, 64> boot{};
  const std::string text(comment);
  if (std::sscanf(text.c_str(), "storh-host bench database of pid %lu on host %255s (boot %63[^)])",
                  &pid, host.data(), boot.data()) != 3) {
    return comment.empty() ? "it names no owner: an older storh-host made it" : "";
  }
  if (host.data() != host_name()) return "";
  if (boot.data() != boot_id()) {
    return fmt::format("its process {} ran on this host before it restarted", pid);
  }
  if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) return "";
  return fmt::format("its process {} on this host is gone", pid);
}

// The local server's settings: pg_stat_statements preloaded ahead of the user's
// settings (which may change how it tracks), unless the user chose the preloads.
ServerSettings with_statement_stats(const Installation& installation, ServerSettings settings) {
  if (!has_statement_stats(installation)) return settings;
  for (const auto& [name, value] : settings.extra) {
    if (name == "shared_preload_libraries") return settings;
  }
  const std::vector<Setting> ours = {{"shared_preload_libraries", "pg_stat_statements"},
                                     {"pg_stat_statements.track", "top"},
                                     {"pg_stat_statements.track_planning", "on"}};
  settings.extra.insert(settings.extra.begin(), ours.begin(), ours.end());
  return settings;
}

// The local server's database for statistics readings: template0's copy, so that no
// reading ever holds template1.
constexpr const char* kStatsDatabase = "storh_stats";

ServerLimits read_limits(Connection& conn) {
  ServerLimits limits;
  limits.max_connections = std::stoll(conn.show("max_connections"));
  limits.reserved_connections = std::stoll(conn.show("superuser_reserved_connections"));
  limits.version = conn.parameter("server_version");
  limits.superuser = conn.parameter("is_superuser") == "on";
  return limits;
}

}  // namespace

void check_server_wide_settings(Connection& admin, const ServerSettings& settings) {
  for (const auto& [name, value] : settings.all()) {
    if (!is_server_wide(name)) continue;
    const std::string actual = admin.show(name);
    if (actual == value) continue;
    const bool own_param = name == "max_connections" || name == "fsync" ||
                           name == "shared_buffers" || name == "wal_level";
    throw PgError(fmt::format(
        "pg.{}={} needs server = \"local\": it is server-wide, and this DSN server has {} "
        "(storh-host never changes a server it did not start); {}",
        own_param ? name : "settings." + name, value, actual,
        own_param ? fmt::format("leave it to the server with --set pg.{}={}", name,
                                name == "max_connections" ? "0" : "\"\"")
                  : fmt::format("leave {} out of pg.settings", name)));
  }
}

std::vector<std::string> left_behind_notes(Connection& admin) {
  const Result found = admin.exec(
      "SELECT datname, coalesce(shobj_description(oid, 'pg_database'), '') FROM pg_database "
      "WHERE datname LIKE 'storh\\_bench\\_%' ORDER BY datname");
  std::vector<std::string> notes;
  for (int row = 0; row < found.rows(); ++row) {
    const std::string name(found.text(row, 0));
    const std::string why = owner_gone(found.text(row, 1));
    if (why.empty()) continue;
    const bool force = PQserverVersion(admin.handle()) >= 130000;
    notes.push_back(fmt::format(
        "database {} on this DSN server was left behind by a run that ended without dropping "
        "it ({}); storh-host does not drop it for you: drop it with DROP DATABASE {}{};",
        name, why, quote_identifier(name), force ? " WITH (FORCE)" : ""));
  }
  return notes;
}

bool has_statement_stats(const Installation& installation) {
  std::error_code ec;
  return std::filesystem::exists(
      installation.bindir.parent_path() / "lib" / "pg_stat_statements.so", ec);
}

std::vector<std::string> check_dsn_server(const ServerOptions& options) {
  if (options.server != "dsn") return {};
  // A host that does not answer would hold libpq forever (no connect_timeout by
  // default), and the host's preflight for 30 s: give up sooner, and leave it to the cell.
  std::string conninfo = override_params(options.dsn, "", "");
  if (conninfo.find("connect_timeout") == std::string::npos) {
    const bool uri =
        conninfo.rfind("postgresql://", 0) == 0 || conninfo.rfind("postgres://", 0) == 0;
    conninfo += uri ? (conninfo.find('?') == std::string::npos ? "?" : "&") +
                          std::string("connect_timeout=10")
                    : std::string(" connect_timeout=10");
  }
  std::optional<Connection> admin;
  try {
    admin.emplace(conninfo);
  } catch (const PgError&) {
    return {};  // unreachable now: the cell reports it, with libpq's message
  }
  check_server_wide_settings(*admin, options.settings);
  std::vector<std::string> notes = left_behind_notes(*admin);
  // A loaded library defines its settings; pg_settings shows them to every role.
  const bool loaded = admin
                          ->exec(
                              "SELECT count(*) FROM pg_settings WHERE name = "
                              "'pg_stat_statements.track'")
                          .integer(0, 0, "pg_stat_statements") > 0;
  if (!loaded) {
    notes.emplace_back(
        "this DSN server does not load pg_stat_statements (shared_preload_libraries): the "
        "cells report no per-statement counters (pg.stmt.*)");
  } else if (admin->parameter("is_superuser") != "on") {
    notes.emplace_back(
        "this DSN server's role is not a superuser, so a cell cannot create pg_stat_statements "
        "in its database: unless template1 has the extension, the cells report no "
        "per-statement counters (pg.stmt.*)");
  }
  return notes;
}

BenchDatabase::BenchDatabase(const ServerOptions& options, const std::filesystem::path& dir)
    : options_(options), owner_(::getpid()) {
  if (options.server == "local") {
    const Installation installation = find_installation(options.bindir);
    local_ = std::make_unique<LocalServer>(installation, dir,
                                           with_statement_stats(installation, options.settings));
    database_ = "postgres";
    conninfo_ = local_->conninfo(database_);
    Connection conn = connect();
    limits_ = read_limits(conn);
    conn.exec(fmt::format("CREATE DATABASE {} TEMPLATE template0", kStatsDatabase));
    statement_stats_ = enable_statement_stats(conn);
    keep_open(std::move(conn), false);
    return;
  }
  if (options.server != "dsn") {
    throw PgError(fmt::format("server \"{}\" is not local or dsn", options.server));
  }
  conninfo_ = options.dsn;
  Connection admin(override_params(conninfo_, "", ""));
  check_server_wide_settings(admin, options.settings);
  std::vector<Setting> session;
  for (const auto& [name, value] : options.settings.all()) {
    if (!is_server_wide(name)) session.emplace_back(name, value);
  }
  options_text_ = session_options(session);
  limits_ = read_limits(admin);
  database_ = random_database_name();
  admin.exec("CREATE DATABASE " + quote_identifier(database_));
  // Who made it, so that the next run can tell one a crashed worker left behind.
  admin.exec(fmt::format("COMMENT ON DATABASE {} IS {}", quote_identifier(database_),
                         sql_literal(owner_comment(owner_))));
  try {
    Connection conn = connect();
    statement_stats_ = enable_statement_stats(conn);
    keep_open(std::move(conn), false);
  } catch (...) {
    drop_database();  // the destructor does not run for a constructor that throws
    throw;
  }
}

Connection BenchDatabase::connect_elsewhere() const {
  {
    const std::lock_guard<std::mutex> lock(kept_mutex_);
    if (kept_elsewhere_) {
      Connection conn = std::move(*kept_elsewhere_);
      kept_elsewhere_.reset();
      return conn;
    }
  }
  return Connection(override_params(conninfo_, local_ ? kStatsDatabase : "", ""));
}

void BenchDatabase::keep_open(Connection conn, bool elsewhere) const {
  const std::lock_guard<std::mutex> lock(kept_mutex_);
  (elsewhere ? kept_elsewhere_ : kept_) = std::move(conn);
}

void BenchDatabase::close_kept() const noexcept {
  const std::lock_guard<std::mutex> lock(kept_mutex_);
  kept_.reset();
  kept_elsewhere_.reset();
}

BenchDatabase::~BenchDatabase() {
  if (::getpid() != owner_) {
    if (kept_) kept_->abandon();
    if (kept_elsewhere_) kept_elsewhere_->abandon();
  }
  try {
    close();
  } catch (const std::exception&) {  // NOLINT(bugprone-empty-catch): close() reports it
  }
}

void BenchDatabase::close() {
  if (::getpid() != owner_) return;
  kept_.reset();  // the drop below may use the other, kept_elsewhere_
  if (local_) {
    kept_elsewhere_.reset();
    const std::string gone = local_->exit_reason();
    local_.reset();
    if (!gone.empty()) throw PgError(fmt::format("{}: the server crashed during the cell", gone));
    return;
  }
  drop_database();
}

void BenchDatabase::drop_database() noexcept {
  if (database_.empty()) return;
  const std::string database = std::move(database_);
  database_.clear();
  const auto drop = [&](Connection admin) {
    // WITH (FORCE) (PostgreSQL 13+) ends sessions a crashed client left behind.
    const bool force = PQserverVersion(admin.handle()) >= 130000;
    admin.exec(fmt::format("DROP DATABASE IF EXISTS {}{}", quote_identifier(database),
                           force ? " WITH (FORCE)" : ""));
  };
  try {
    // On a DSN server connect_elsewhere() reaches the DSN's own database, as needed
    // here. A kept one may have been ended while idle: then a new one tries again.
    try {
      drop(connect_elsewhere());
    } catch (const PgError&) {
      drop(Connection(override_params(conninfo_, "", "")));
    }
  } catch (const std::exception&) {  // NOLINT(bugprone-empty-catch): best effort at the end
  }
}

Connection BenchDatabase::connect() const {
  {
    const std::lock_guard<std::mutex> lock(kept_mutex_);
    if (kept_) {
      Connection conn = std::move(*kept_);
      kept_.reset();
      return conn;
    }
  }
  if (local_) return Connection(conninfo_);
  return Connection(override_params(conninfo_, database_, options_text_));
}

std::string BenchDatabase::server_gone() const {
  return local_ ? local_->down_reason() : std::string();
}

std::string BenchDatabase::failure_message(const std::string& message) const {
  const std::string gone = server_gone();
  return gone.empty() ? message : fmt::format("the server crashed: {}; {}", gone, message);
}

void check_client_slots(const BenchDatabase& database, std::uint32_t clients) {
  const std::int64_t slots = database.client_slots();
  if (static_cast<std::int64_t>(clients) <= slots) return;
  const ServerLimits& limits = database.limits();
  const std::int64_t reserved = limits.superuser ? 0 : limits.reserved_connections;
  throw PgError(fmt::format(
      "{} clients need {} connections, but the server takes {} (max_connections {}{}): raise "
      "pg.max_connections to at least {}{}",
      clients, clients, slots, limits.max_connections,
      reserved > 0 ? fmt::format(" less superuser_reserved_connections {}", reserved) : "",
      clients + reserved, limits.superuser ? "" : " (a DSN server: in its postgresql.conf)"));
}

}  // namespace storh::engines::pg
