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
// "1500ms", or a number of seconds) strings.
std::optional<Suite> parse_suite(std::string_view toml_text, const std::string& origin,
                                 std::vector<SuiteError>& errors);

// Reads and parses a file; an unreadable file is one error at the file's origin.
std::optional<Suite> parse_suite_file(const std::filesystem::path& file,
                                      std::vector<SuiteError>& errors);

// Command-line overrides, as the storh harness had them. Empty/unset means "keep".
struct Overrides {
  std::optional<std::string> datasets;      // --dataset=1000 or --dataset=1000,10000
  std::vector<std::string> engines;         // --engine=doc (repeatable or comma list)
  std::optional<std::string> repeat;        // --repeat=5
  std::optional<std::string> warmup;        // --warmup=1
  std::optional<std::string> output;        // --output=PATH
  std::optional<std::string> memory_limit;  // --memory-limit=512M ("0" or "none": unlimited)
  std::optional<std::string> timeout;       // --timeout=10m ("0" or "none": unlimited)
  std::vector<std::string> plugin_path;     // --plugin-path=DIR, prepended, in order
  std::optional<std::string> work_dir;      // --work-dir=DIR
  std::optional<std::string> range_output;  // --range-output=DIR
  std::vector<std::string> sets;            // --set engine.param=value[,value...]
  std::optional<std::string> counters;      // --counters=syscalls,instructions or none
};

// Applies overrides in place. --engine keeps only the named engines, adding one with
// defaults when the suite does not configure it. --set replaces the parameter's
// values (a comma list becomes a matrix dimension); values are parsed as TOML
// scalars (42, 1.5, true, "text"), falling back to a plain string. Errors name the
// flag as origin, e.g. `--repeat: expected a whole number >= 1, got "x"`.
bool apply_overrides(Suite& suite, const Overrides& overrides, std::vector<SuiteError>& errors);

// Checks the suite against the engines. `known_engines` are the engine names found
// on the plugin path (for "unknown engine" messages); `infos` holds the description
// of every engine the suite names that could be loaded. Reports unknown engines,
// operations, parameters, wrong parameter types and disallowed values, each with the
// valid choices. Returns true when there is no error.
bool check_suite(const Suite& suite, const std::vector<std::string>& known_engines,
                 const std::map<std::string, EngineInfo>& infos,
                 std::vector<SuiteError>& errors);

// "512M" -> 536870912. Accepts an integer with an optional K, M, G or T suffix
// (binary multiples; "KB"/"KiB"/"MB"/"MiB"... too). nullopt for anything else.
std::optional<std::uint64_t> parse_size(std::string_view text);

// "10m" -> 600. Accepts a non-negative number with an optional ns, us, ms, s, m or h
// suffix.
std::optional<double> parse_duration(std::string_view text);

// Canonical text of a parameter value, as used in metric keys and reports:
// 42, 1.5, true, hash (strings unquoted).
std::string param_value_text(const ParamValue& value);

}  // namespace storh::suite
