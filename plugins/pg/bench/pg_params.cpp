#include "pg/bench/pg_params.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>
#include <random>
#include <string>
#include <string_view>

namespace storh::engines::pg {
namespace {

using bench::BoolParam;
using bench::IntParam;
using bench::TextParam;

constexpr std::array<std::string_view, 2> kServers{"local", "dsn"};
constexpr TextParam kServer{
    "server", "local", kServers,
    "local: a throwaway cluster per cell (initdb, Unix socket only); dsn: an existing server"};
constexpr TextParam kDsn{
    "dsn", "", {}, "server = dsn: libpq connection string or URI (empty: the PG* environment)"};
constexpr TextParam kBindir{
    "bindir",
    "",
    {},
    "server = local: the installation's bin directory (empty: pg_config's, else Debian's)"};
constexpr IntParam kScale{
    "scale", 1, 1, 100000,
    "pgbench's scale factor: 100,000 accounts, 10 tellers, 1 branch per unit"};
// The description ends with the bounds, added by pg_param_specs.
constexpr IntParam kFillfactor{"fillfactor", 100, 10, 100,
                               "pgbench -F: fill factor of branches, tellers and accounts"};
constexpr std::array<std::string_view, 3> kQueryModes{"simple", "prepared", "extended"};
constexpr TextParam kQueryMode{"query_mode", "simple", kQueryModes,
                               "pgbench -M: simple, prepared or extended"};
constexpr TextParam kVars{
    "vars", "", {}, "the scripts' variables, pgbench -D: vars = { n = 10 } or 'n=10;m=20'"};
constexpr std::array<std::string_view, 2> kConnects{"per_client", "per_transaction"};
constexpr TextParam kConnect{
    "connect", "per_client", kConnects,
    "per_client: one connection per client, opened untimed; per_transaction: a new connection "
    "for every transaction, pgbench -C"};
constexpr BoolParam kStatementLatencies{
    "statement_latencies", false,
    "pgbench -r: each script command's mean latency, failures and retries (thread clients "
    "only; off: nothing is timed per command)"};
constexpr IntParam kRandomSeed{
    "random_seed", 0, 0, 9'000'000'000'000'000,
    "pgbench --random-seed: the clients' base seed; 0: a new one every run"};
constexpr std::array<std::string_view, 6> kSynchronousCommits{
    "", "on", "off", "local", "remote_write", "remote_apply"};
constexpr TextParam kSynchronousCommit{"synchronous_commit", "", kSynchronousCommits,
                                       "server setting (empty: the server's)"};
constexpr std::array<std::string_view, 3> kFsyncs{"", "on", "off"};
constexpr TextParam kFsync{"fsync", "", kFsyncs, "server setting (empty: the server's)"};
constexpr TextParam kSharedBuffers{
    "shared_buffers", "", {}, "server setting, e.g. \"128MB\" (empty: the server's)"};
constexpr std::array<std::string_view, 4> kWalLevels{"", "minimal", "replica", "logical"};
constexpr TextParam kWalLevel{
    "wal_level", "", kWalLevels,
    "server setting (empty: the server's); minimal also sets max_wal_senders=0"};
constexpr IntParam kMaxConnections{"max_connections", 0, 0, 262143,
                                   "server setting (0: the server's, 100 on a new cluster)"};
constexpr TextParam kSettings{
    "settings",
    "",
    {},
    "more server settings: settings = { work_mem = \"4MB\" } or 'work_mem=4MB;jit=off'"};
constexpr TextParam kAfterLoad{
    "after_load",
    "",
    {},
    "SQL run once after loading, before any client: \"DROP INDEX ...\" (empty: none)"};

// The server-wide settings of a cell.
ServerSettings read_settings(const bench::Lookup& param) {
  ServerSettings settings;
  settings.synchronous_commit = bench::text(param, kSynchronousCommit);
  settings.fsync = bench::text(param, kFsync);
  settings.shared_buffers = bench::text(param, kSharedBuffers);
  settings.wal_level = bench::text(param, kWalLevel);
  settings.max_connections = bench::integer_value(param, kMaxConnections);
  settings.extra = parse_settings(bench::text(param, kSettings));
  return settings;
}

}  // namespace

std::vector<ParamSpec> pg_param_specs() {
  ParamSpec fillfactor = bench::spec(kFillfactor);
  fillfactor.description += fmt::format(" ({}..{})", kFillfactor.minimum, kFillfactor.maximum);
  return {bench::spec(kServer),
          bench::spec(kDsn),
          bench::spec(kBindir),
          bench::spec(kScale),
          fillfactor,
          bench::spec(kQueryMode),
          bench::spec(kScriptsParam),
          bench::spec(kVars),
          bench::spec(kMaxTries),
          bench::spec(kConnect),
          bench::spec(kStatementLatencies),
          bench::spec(kRandomSeed),
          bench::spec(kSynchronousCommit),
          bench::spec(kFsync),
          bench::spec(kSharedBuffers),
          bench::spec(kWalLevel),
          bench::spec(kMaxConnections),
          bench::spec(kSettings),
          bench::spec(kAfterLoad)};
}

std::vector<ParamRange> pg_param_ranges() {
  return {bench::range(kScale), bench::range(kFillfactor), bench::range(kRandomSeed),
          bench::range(kMaxTries), bench::range(kMaxConnections)};
}

std::vector<std::string> script_notes(
    const std::vector<std::pair<std::string, ParamValue>>& values) {
  const std::string spec = bench::text(values, kScriptsParam);
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
    parse_script_vars(bench::text(values, kVars));
  } catch (const PgError& error) {
    errors.emplace_back(error.what());
  }
  const MixParse parsed = load_script_mix(bench::text(values, kScriptsParam), scripts_base());
  errors.insert(errors.end(), parsed.errors.begin(), parsed.errors.end());
  if (errors.empty()) return;
  // One line per error: a suite's scripts are fixed in one sitting.
  throw PgError(fmt::format("{}{}", errors.size() > 1 ? "\n  " : "", fmt::join(errors, "\n  ")));
}

std::vector<std::string> check_machine(
    const std::vector<std::pair<std::string, ParamValue>>& values) {
  ServerOptions options;
  options.settings = read_settings(values);
  if (bench::text(values, kServer) != "dsn") {
    if (!has_statement_stats(find_installation(bench::text(values, kBindir)))) {
      return {
          "this PostgreSQL installation has no pg_stat_statements: the cells report no "
          "per-statement counters (pg.stmt.*)"};
    }
    return {};
  }
  // A DSN server that cannot take the suite's server-wide settings fails every cell:
  // said here, before any runs (a suite made for local servers, run with
  // --set pg.server=dsn, asks for max_connections = 110).
  options.server = "dsn";
  options.dsn = bench::text(values, kDsn);
  return check_dsn_server(options);
}

PgRunParams read_params(const RunContext& ctx) {
  PgRunParams params;
  params.server.server = bench::text(ctx, kServer);
  params.server.dsn = bench::text(ctx, kDsn);
  params.server.bindir = bench::text(ctx, kBindir);
  params.server.settings = read_settings(ctx);
  const std::string mode = bench::text(ctx, kQueryMode);
  const std::optional<QueryMode> query_mode = query_mode_from_name(mode);
  if (!query_mode) {
    throw PgError(fmt::format("query_mode \"{}\" is not simple, prepared or extended", mode));
  }
  params.mode = *query_mode;
  params.scale = bench::integer_value(ctx, kScale);
  params.fillfactor = bench::integer_value(ctx, kFillfactor);
  if (params.scale < kScale.minimum || !bench::in_range(kFillfactor, params.fillfactor)) {
    throw PgError(fmt::format("scale {} must be >= {} and fillfactor {} in {}..{}", params.scale,
                              kScale.minimum, params.fillfactor, kFillfactor.minimum,
                              kFillfactor.maximum));
  }
  params.scripts = bench::text(ctx, kScriptsParam);
  params.after_load = bench::text(ctx, kAfterLoad);
  params.vars = parse_script_vars(bench::text(ctx, kVars));
  params.max_tries = bench::integer_value(ctx, kMaxTries);
  if (params.max_tries < kMaxTries.minimum) {
    throw PgError(fmt::format("max_tries {} must be >= {}", params.max_tries, kMaxTries.minimum));
  }
  params.connect_per_transaction = bench::text(ctx, kConnect) == kConnects[1];
  params.statement_latencies = bench::boolean(ctx, kStatementLatencies);
  const std::int64_t seed = bench::integer_value(ctx, kRandomSeed);
  params.random_seed = seed != 0 ? static_cast<std::uint64_t>(seed) : [] {
    std::random_device device;
    return (static_cast<std::uint64_t>(device()) << 32) | device();
  }();
  return params;
}

}  // namespace storh::engines::pg
