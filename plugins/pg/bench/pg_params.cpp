#include "pg/bench/pg_params.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <random>
#include <string>

namespace storh::engines::pg {
namespace {

ParamSpec text_param(const char* name, std::vector<std::string> allowed, const char* description) {
  ParamSpec spec{name, ParamType::string, std::string(), {}, description};
  for (std::string& value : allowed) spec.allowed.emplace_back(std::move(value));
  return spec;
}

}  // namespace

std::vector<ParamSpec> pg_param_specs() {
  return {
      {"server",
       ParamType::string,
       std::string("local"),
       {std::string("local"), std::string("dsn")},
       "local: a throwaway cluster per cell (initdb, Unix socket only); dsn: an existing server"},
      {"dsn",
       ParamType::string,
       std::string(),
       {},
       "server = dsn: libpq connection string or URI (empty: the PG* environment)"},
      {"bindir",
       ParamType::string,
       std::string(),
       {},
       "server = local: the installation's bin directory (empty: pg_config's, else Debian's)"},
      {"scale",
       ParamType::integer,
       std::int64_t{1},
       {},
       "pgbench's scale factor: 100,000 accounts, 10 tellers, 1 branch per unit"},
      {"fillfactor",
       ParamType::integer,
       std::int64_t{100},
       {},
       "pgbench -F: fill factor of branches, tellers and accounts (10..100)"},
      {"query_mode",
       ParamType::string,
       std::string("simple"),
       {std::string("simple"), std::string("prepared"), std::string("extended")},
       "pgbench -M: simple, prepared or extended"},
      {"scripts",
       ParamType::string,
       std::string(),
       {},
       "the custom transaction's scripts, pgbench -f/-b: \"pg/mine.sql@3,select_only@1\" "
       "(files relative to the current directory; empty: tpcb_like)"},
      {"vars",
       ParamType::string,
       std::string(),
       {},
       "the scripts' variables, pgbench -D: vars = { n = 10 } or 'n=10;m=20'"},
      {"max_tries",
       ParamType::integer,
       std::int64_t{1},
       {},
       "pgbench --max-tries: tries of a transaction that meets a serialization failure or a "
       "deadlock (1: no retry; 0: no limit, duration runs only)"},
      {"connect",
       ParamType::string,
       std::string("per_client"),
       {std::string("per_client"), std::string("per_transaction")},
       "per_client: one connection per client, opened untimed; per_transaction: a new "
       "connection for every transaction, pgbench -C"},
      {"random_seed",
       ParamType::integer,
       std::int64_t{0},
       {},
       "pgbench --random-seed: the clients' base seed; 0: a new one every run"},
      text_param("synchronous_commit", {"", "on", "off", "local", "remote_write", "remote_apply"},
                 "server setting (empty: the server's)"),
      text_param("fsync", {"", "on", "off"}, "server setting (empty: the server's)"),
      {"shared_buffers",
       ParamType::string,
       std::string(),
       {},
       "server setting, e.g. \"128MB\" (empty: the server's)"},
      text_param("wal_level", {"", "minimal", "replica", "logical"},
                 "server setting (empty: the server's); minimal also sets max_wal_senders=0"),
      {"max_connections",
       ParamType::integer,
       std::int64_t{0},
       {},
       "server setting (0: the server's, 100 on a new cluster)"},
      {"settings",
       ParamType::string,
       std::string(),
       {},
       "more server settings: settings = { work_mem = \"4MB\" } or 'work_mem=4MB;jit=off'"},
      {"after_load",
       ParamType::string,
       std::string(),
       {},
       "SQL run once after loading, before any client: \"DROP INDEX ...\" (empty: none)"},
  };
}

std::vector<ParamRange> pg_param_ranges() {
  return {{"scale", 1, 100000},
          {"fillfactor", 10, 100},
          {"random_seed", 0, 9.0e15},
          {"max_tries", 0, 1.0e9},
          {"max_connections", 0, 262143}};
}

std::string text_value(const std::vector<std::pair<std::string, ParamValue>>& values,
                       std::string_view name) {
  for (const auto& [key, value] : values) {
    if (key == name && std::holds_alternative<std::string>(value)) {
      return std::get<std::string>(value);
    }
  }
  return std::string();
}

std::vector<std::string> script_notes(
    const std::vector<std::pair<std::string, ParamValue>>& values) {
  const std::string spec = text_value(values, "scripts");
  const std::size_t at = spec.rfind('@');
  const bool weighted = at != std::string::npos && at + 1 < spec.size() &&
                        spec.find_first_not_of("0123456789 ", at + 1) == std::string::npos;
  // One script with a weight is what an unquoted --set pg.scripts=a@3,b@1 makes of a
  // mix: a sweep of one-script cells, each weight meaningless.
  if (!weighted || spec.find(',') != std::string::npos) return {};
  return {
      "scripts: a weight on the only script of a mix changes nothing; on the command "
      "line a mix is one quoted value, --set 'pg.scripts=\"a.sql@3,select_only@1\"' "
      "(unquoted, each comma starts another cell)"};
}

void check_scripts(const std::vector<std::pair<std::string, ParamValue>>& values) {
  std::vector<std::string> errors;
  try {
    parse_script_vars(text_value(values, "vars"));
  } catch (const PgError& error) {
    errors.emplace_back(error.what());
  }
  const MixParse parsed = load_script_mix(text_value(values, "scripts"), scripts_base());
  errors.insert(errors.end(), parsed.errors.begin(), parsed.errors.end());
  if (errors.empty()) return;
  // One line per error: a suite's scripts are fixed in one sitting.
  throw PgError(fmt::format("{}{}", errors.size() > 1 ? "\n  " : "", fmt::join(errors, "\n  ")));
}

std::vector<std::string> check_machine(
    const std::vector<std::pair<std::string, ParamValue>>& values) {
  const auto text = [&](std::string_view name) { return text_value(values, name); };
  const std::vector<Setting> extra = parse_settings(text("settings"));
  if (text("server") != "dsn") {
    find_installation(text("bindir"));
    return {};
  }
  // A DSN server that cannot take the suite's server-wide settings fails every cell:
  // said here, before any runs (a suite made for local servers, run with
  // --set pg.server=dsn, asks for max_connections = 110).
  ServerOptions options;
  options.server = "dsn";
  options.dsn = text("dsn");
  options.settings.synchronous_commit = text("synchronous_commit");
  options.settings.fsync = text("fsync");
  options.settings.shared_buffers = text("shared_buffers");
  options.settings.wal_level = text("wal_level");
  for (const auto& [key, value] : values) {
    if (key == "max_connections" && std::holds_alternative<std::int64_t>(value)) {
      options.settings.max_connections = std::get<std::int64_t>(value);
    }
  }
  options.settings.extra = extra;
  return check_dsn_server(options);
}

PgRunParams read_params(const RunContext& ctx) {
  PgRunParams params;
  params.server.server = ctx.string_param("server", "local");
  params.server.dsn = ctx.string_param("dsn");
  params.server.bindir = ctx.string_param("bindir");
  ServerSettings& settings = params.server.settings;
  settings.synchronous_commit = ctx.string_param("synchronous_commit");
  settings.fsync = ctx.string_param("fsync");
  settings.shared_buffers = ctx.string_param("shared_buffers");
  settings.wal_level = ctx.string_param("wal_level");
  settings.max_connections = ctx.int_param("max_connections", 0);
  settings.extra = parse_settings(ctx.string_param("settings"));
  const std::string mode = ctx.string_param("query_mode", "simple");
  const std::optional<QueryMode> query_mode = query_mode_from_name(mode);
  if (!query_mode) {
    throw PgError(fmt::format("query_mode \"{}\" is not simple, prepared or extended", mode));
  }
  params.mode = *query_mode;
  params.scale = ctx.int_param("scale", 1);
  params.fillfactor = ctx.int_param("fillfactor", 100);
  if (params.scale < 1 || params.fillfactor < 10 || params.fillfactor > 100) {
    throw PgError(fmt::format("scale {} must be >= 1 and fillfactor {} in 10..100", params.scale,
                              params.fillfactor));
  }
  params.scripts = ctx.string_param("scripts");
  params.after_load = ctx.string_param("after_load");
  params.vars = parse_script_vars(ctx.string_param("vars"));
  params.max_tries = ctx.int_param("max_tries", 1);
  if (params.max_tries < 0)
    throw PgError(fmt::format("max_tries {} must be >= 0", params.max_tries));
  params.connect_per_transaction = ctx.string_param("connect", "per_client") == "per_transaction";
  const std::int64_t seed = ctx.int_param("random_seed", 0);
  params.random_seed = seed != 0 ? static_cast<std::uint64_t>(seed) : [] {
    std::random_device device;
    return (static_cast<std::uint64_t>(device()) << 32) | device();
  }();
  return params;
}

}  // namespace storh::engines::pg
