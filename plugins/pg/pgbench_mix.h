// pgbench_mix.h: a weighted mix of scripts, as pgbench's `-f file@weight` and
// `-b name@weight` give it, and the client that runs it.
//
// A mix is written "pg/mine.sql@3,select_only@1": entries separated by ',', each a
// built-in script's name (tpcb_like, simple_update, select_only, or pgbench's spelling
// with '-') or a script file, with an optional `@weight` (default 1) split at the last
// '@' as pgbench splits it. A weight is an integer in 0 .. 2147483647; the mix's total
// must not be zero (pgbench's rules). An empty mix is pgbench's default, tpcb_like.
// A relative file is read relative to `base` (load_script_mix's caller says what that
// is). User variables (pgbench -D) are "name=value" entries separated by ';'.
//
// MixClient picks each transaction's script as pgbench's chooseScript does, from its own
// random state (PgbenchSeeds::choose), and runs it with CustomClient. One thread only.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pg/pgbench_custom.h"
#include "pg/pgbench_random.h"
#include "pg/pgbench_script.h"

namespace storh::engines::pg {

struct MixEntry {
  std::string name;  // the built-in's name, or the file as given: for messages
  bool builtin = false;
  CustomScript script;
  std::int64_t weight = 1;
};

struct ScriptMix {
  std::vector<MixEntry> entries;
  std::int64_t total_weight = 0;
};

struct MixParse {
  ScriptMix mix;
  // Every error found: "scripts: ..." for the list itself, "file:line:col: ..." for a
  // script. The mix is usable only when this is empty.
  std::vector<std::string> errors;
};

// Parses the `scripts` list and reads and parses each file (relative ones under `base`).
MixParse load_script_mix(std::string_view spec, const std::filesystem::path& base);
// A mix of one built-in script (what a built-in transaction runs in extended mode).
ScriptMix builtin_mix(Script script);
// The built-in script in pgbench's script language, as pgbench 15 defines it.
std::string_view builtin_script_text(Script script) noexcept;

// Parses `vars` ("n=10;m=20"). Throws PgError naming the bad entry.
std::vector<std::pair<std::string, std::string>> parse_script_vars(std::string_view vars);

// The names of the mix's scripts as metrics name its parts, in mix order, read from
// the list alone (no file is read): a built-in's name, else the file's stem in
// snake_case ("suites/pg/zipfian-read.sql" -> "zipfian_read"), a repeated name suffixed
// "_2", "_3". Empty for a list that does not parse.
std::vector<std::string> mix_part_names(std::string_view spec);

// How often a transaction that meets a conflict is tried (pgbench 15's --max-tries):
// `max_tries` tries in all (0: no limit), and none begun after `deadline_ns` (steady
// clock; 0: none), as pgbench stops retrying at the end of -T.
struct TryLimit {
  std::int64_t max_tries = 1;
  std::int64_t deadline_ns = 0;
};

class MixClient {
 public:
  // `mix` outlives the client. `choose_seed`: PgbenchSeeds::choose of the client's
  // thread (each storh client is a pgbench thread of one client: pgbench -c C -j C).
  // `statement_latencies` (pgbench -r): time every command (statement_stats()).
  MixClient(Connection conn, QueryMode mode, const ScriptMix& mix, const ClientSetup& setup,
            std::uint64_t choose_seed, bool statement_latencies = false);

  // Chooses a script and runs one transaction of it. A conflict (40001, 40P01) rolls
  // the transaction back and runs it again from its start with the same random draws,
  // as pgbench does, while `limit` allows. Throws PgError "file:line: ..." on a run-time
  // error (CustomClient::run), or on a conflict after the last try allowed. `timed`
  // false (a warm-up transaction): statement_stats() leaves it out.
  void run(const TryLimit& limit = {}, bool timed = true);
  // The index in the mix of the script the last run() chose.
  std::size_t last_script() const noexcept { return last_; }
  // The last run()'s tries after the first, and the conflict it gave up on (none when
  // it succeeded or failed otherwise).
  std::uint32_t last_retries() const noexcept { return retries_; }
  Conflict last_conflict() const noexcept { return conflict_; }
  CustomClient& client() noexcept { return client_; }
  // Per script of the mix, per command: this client's runs, pgbench -r's figures (a
  // retry and a failure on the command that met the conflict or error). Empty unless
  // made with statement_latencies.
  const std::vector<std::vector<CommandStats>>& statement_stats() const noexcept { return stats_; }

 private:
  CustomClient client_;
  const ScriptMix& mix_;
  PgbenchRandom choose_;
  std::size_t last_ = 0;
  std::uint32_t retries_ = 0;
  Conflict conflict_ = Conflict::none;
  std::vector<std::vector<CommandStats>> stats_;
};

}  // namespace storh::engines::pg
