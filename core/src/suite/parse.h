// suite/parse.h: reading a suite file, applying command-line overrides, and checking
// it against the engines' own descriptions.
//
// Every error carries the position of the offending value and lists the valid
// choices where there is a closed set, e.g.
//   suites/x.toml:12:5: unknown engine "dok" (known: doc, filter, uuid)
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "suite/suite.h"

namespace storh::suite {

struct SuiteError {
  SourcePos pos;
  std::string message;

  // "file:line:col: message", or "origin: message" without a line.
  std::string str() const;
};

// Parses TOML text. `origin` names the file in messages. On failure returns nullopt
// and appends at least one error; parsing continues after a bad value so several
// errors are reported at once. Checks everything that needs no plugin: known keys,
// types, ranges, size ("512M", "2G", "1048576") and duration ("10m", "30s", "1h",
// "1500ms", or a number of seconds) strings. When the TOML itself was read but some
// value was bad and `partial` is given, *partial gets the suite as far as it was read,
// so the caller can report the errors only plugins can find in the same pass.
std::optional<Suite> parse_suite(std::string_view toml_text, const std::string& origin,
                                 std::vector<SuiteError>& errors,
                                 std::optional<Suite>* partial = nullptr);

// Reads and parses a file, then resolves its paths against the file's directory
// (resolve_paths); an unreadable file is one error at the file's origin.
std::optional<Suite> parse_suite_file(const std::filesystem::path& file,
                                      std::vector<SuiteError>& errors,
                                      std::optional<Suite>* partial = nullptr);

// Makes every relative path of the suite (output, its default included, plugin_path,
// work_dir, range_output, [gate] baseline) relative to `base`, the suite file's
// directory: base/path, lexically normalised ("suites/../build/x.json" is
// "build/x.json"). An empty `base` (a suite in the current directory) changes nothing.
// Call it before apply_overrides: paths given as flags are relative to the current
// directory, as the user typed them.
void resolve_paths(Suite& suite, const std::filesystem::path& base);

// Command-line overrides, as the storh harness had them. Empty/unset means "keep".
struct Overrides {
  std::optional<std::string> datasets;      // --dataset=1000 or --dataset=1000,10000
  std::vector<std::string> engines;         // --engine=doc (repeatable or comma list)
  std::optional<std::string> repeat;        // --repeat=5
  std::optional<std::string> warmup;        // --warmup=1
  std::optional<std::string> output;        // --output=PATH
  std::optional<std::string> memory_limit;  // --memory-limit=512M ("0" or "none": unlimited)
  std::optional<std::string> timeout;       // --timeout=10m ("0" or "none": unlimited)
  std::optional<std::string> min_time;      // --min-time=20ms (0: no repetition)
  std::vector<std::string> plugin_path;     // --plugin-path=DIR, prepended, in order
  std::optional<std::string> work_dir;      // --work-dir=DIR
  std::optional<std::string> range_output;  // --range-output=DIR
  std::vector<std::string> sets;            // --set engine.param=value[,value...]
  // Load runs (pgbench's -c -t -T -R); a comma list is a matrix dimension.
  std::optional<std::string> clients;        // --clients=4 or 1,4,16
  std::optional<std::string> transactions;   // --transactions=100[,300] per client (10k ok)
  std::optional<std::string> duration;       // --duration=10s[,1m]
  std::optional<std::string> interval;       // --interval=5s: each load cell's series
  std::optional<std::string> latency_limit;  // --latency-limit=10ms ("0"/"none": no limit)
  std::optional<std::string> rate;           // --rate=500 tps, all clients ("0"/"none": unpaced)
  // YCSB runs: --workload=a,b (a matrix dimension), --operationcount=, --recordcount=.
  std::optional<std::string> workload;
  std::optional<std::string> operationcount;
  std::optional<std::string> recordcount;
  // --operation=NAME[,NAME]: "op" (every engine that declares it) or "engine.op".
  // Needs the engines' descriptions: filter_operations() applies it.
  std::vector<std::string> operations;
  std::optional<std::string> counters;  // --counters=syscalls,instructions or none
};

// Applies overrides in place. --engine keeps only the named engines, adding one with
// defaults when the suite does not configure it. --set replaces the parameter's
// values (a comma list becomes a matrix dimension); values are parsed as TOML
// scalars (42, 1.5, true, "text"), falling back to a plain string. Errors name the
// flag as origin, e.g. `--repeat: expected a whole number >= 1, got "x"`.
// The load flags replace the [load] table's values (--transactions and --duration
// each drop the other's values; --clients, --transactions and --duration drop the
// [[load.bench]] tables, so the run is the plain clients x transactions matrix); on a
// suite without [load] they are an error.
bool apply_overrides(Suite& suite, const Overrides& overrides, std::vector<SuiteError>& errors);

// A suite from flags alone, for `storh-host run --engine=NAME [...]` without a file:
// datasets [1000], repeat 3, no warm-up, timeout 10m, no memory limit, every operation
// with default parameters, name = the engines joined by "-", output
// build/bench-<name>.json relative to the current directory. Any load flag makes it
// a load suite (1 client unless --clients). Then applies `overrides` on top.
std::optional<Suite> suite_from_flags(const Overrides& overrides, std::vector<SuiteError>& errors);

// Applies --operation: each engine of the suite runs exactly the named operations it
// declares (the suite's own selection is replaced), and an engine that declares none
// of them is left out. `infos` are the descriptions of the engines that loaded (in a
// load suite, transactions as operations); engines without one are kept as they are.
// A name no engine of the suite declares is an error with the valid names and a
// did-you-mean. Returns true when there is no error.
bool filter_operations(Suite& suite, const std::vector<std::string>& names,
                       const std::map<std::string, EngineInfo>& infos,
                       std::vector<SuiteError>& errors);

// Checks the suite against the engines. `known_engines` are the engine names found
// on the plugin path (for "unknown engine" messages); `infos` holds the description
// of every engine the suite names that could be loaded. Reports unknown engines,
// operations, parameters, wrong parameter types and disallowed values, a
// [[load.bench]] operation some engine does not declare, and an engine whose own
// `operations` no bench runs, each with the valid choices. Returns true when there is
// no error.
bool check_suite(const Suite& suite, const std::vector<std::string>& known_engines,
                 const std::map<std::string, EngineInfo>& infos, std::vector<SuiteError>& errors);

// Checks every integer or number value the suite gives a parameter against the
// engine's declared bounds (Engine::param_ranges, ABI 1.3), keyed by engine name.
// Reports each value outside its range with its position and the range. Returns true
// when there is no error.
bool check_param_ranges(const Suite& suite,
                        const std::map<std::string, std::vector<ParamRange>>& ranges,
                        std::vector<SuiteError>& errors);

// "512M" -> 536870912. Accepts an integer with an optional K, M, G or T suffix
// (binary multiples; "KB"/"KiB"/"MB"/"MiB"... too). nullopt for anything else.
std::optional<std::uint64_t> parse_size(std::string_view text);

// A record count: "1000", or "10k" / "1M" / "1G" (decimal multiples: these count
// records, not bytes). nullopt for anything else.
std::optional<std::uint64_t> parse_count(std::string_view text);

// "10m" -> 600. Accepts a non-negative number with an optional ns, us, ms, s, m or h
// suffix.
std::optional<double> parse_duration(std::string_view text);

// Canonical text of a parameter value, as used in metric keys, reports and messages:
// 42, 1.5, true, hash (strings unquoted). A password in a string (a connection URI's
// or a password= parameter) shows as "***" (util/secrets.h): this is text to show,
// never the value an engine is given.
std::string param_value_text(const ParamValue& value);

}  // namespace storh::suite
