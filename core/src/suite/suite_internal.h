// suite/suite_internal.h: helpers shared by the suite reader, the overrides and the
// checks. Private to core/src/suite/.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <toml++/toml.h>

#include "suite/parse.h"
#include "util/did_you_mean.h"
#include "util/text.h"

namespace storh::suite::detail {

inline constexpr std::string_view kNoEngines =
    "no engines: add at least one [engines.<name>] table, e.g. [engines.doc]";

// "\"text\"", a long text shortened (util/shorten.h). Not called quoted(): ADL would pick
// std::quoted for a std::string.
std::string in_quotes(std::string_view text);

// "a, b, c".
std::string join(const std::vector<std::string>& items);

// "; did you mean \"x\"?" (util/did_you_mean.h, shared with gate's metric names).
using storh::did_you_mean;

// "12:5": a position inside the file a message already names ("first at 12:5").
std::string line_col(const SourcePos& pos);

// The first item holding `value`, or nullptr.
template <typename T>
const Located<T>* find_value(const std::vector<Located<T>>& items, const T& value) {
  for (const Located<T>& item : items) {
    if (item.value == value) return &item;
  }
  return nullptr;
}

// The most clients a load point may have ([load] clients, [[load.bench]] points,
// --clients): far beyond what one machine can run as threads or processes.
inline constexpr std::uint64_t kMaxLoadClients = 4096;
// The most transactions per client a load point may have.
inline constexpr std::uint64_t kMaxLoadTransactions = std::uint64_t{1} << 40;

// Splits at `separator`, except inside '...' or "..." quotes.
std::vector<std::string_view> split_unquoted(std::string_view text, char separator);

// A parameter value as a message shows it: `string "hash"`, `integer 3`.
std::string describe(const ParamValue& value);

// Reads a parsed TOML document for one origin, appending errors as it goes. Keeps
// references to `origin` and `errors`: it lives for one parse.
class Reader {
 public:
  Reader(const std::string& origin, std::vector<SuiteError>& errors)
      : origin_(origin), errors_(errors) {}

  using Entry = std::pair<const toml::key*, const toml::node*>;

  SourcePos pos(const toml::source_region& region) const;
  SourcePos pos(const toml::node& node) const { return pos(node.source()); }
  SourcePos pos(const toml::key& key) const { return pos(key.source()); }
  const std::string& origin() const { return origin_; }

  void error(SourcePos where, std::string message);
  void error(const toml::node& node, std::string message) { error(pos(node), std::move(message)); }

  // The table's entries in file order (toml::table is sorted by key).
  static std::vector<Entry> in_file_order(const toml::table& table);

  // Like in_file_order, but reports (and drops) keys not in `valid`. `context` names
  // the table in the message ("" for the top level, "[gate]" otherwise).
  std::vector<Entry> known_entries(const toml::table& table,
                                   std::span<const std::string_view> valid,
                                   std::string_view context);

  // `"name" must be <expected>, got <value>` at the node.
  void type_error(const toml::node& node, std::string_view name, std::string_view expected);

  // A node as a message shows it: `string "3"`, `integer 0`, `array`.
  static std::string describe(const toml::node& node);

  // Reads a string, integer, float or boolean; nullopt for anything else.
  static std::optional<ParamValue> scalar(const toml::node& node);

 private:
  const std::string& origin_;
  std::vector<SuiteError>& errors_;
};

// Sections of a suite file other than the top-level scalars (parse_sections.cpp).
void read_engines(Reader& reader, const toml::node& node, Suite& suite);
void read_gate(Reader& reader, const toml::node& node, Suite& suite);
// counters = [...] (parse_counters.cpp)
void read_counters(Reader& reader, const toml::node& node, std::vector<Located<std::string>>& list);
// --counters=syscalls,instructions|none; errors name the flag.
void apply_counters(std::string_view text, Suite& suite, std::vector<SuiteError>& errors);
// parse_load.cpp
void read_load(Reader& reader, const toml::node& node, Suite& suite);
void read_engine_load(Reader& reader, const toml::node& node, const std::string& engine_name,
                      EngineSetting& engine);
// parse_bench.cpp: the array of [[load.bench]] tables, appended to load.benches.
void read_benches(Reader& reader, const toml::node& node, LoadSetting& load);

// parse_ycsb.cpp: [ycsb]; its properties checked per workload (check_suite);
// --workload, --operationcount, --recordcount.
void read_ycsb(Reader& reader, const toml::node& node, Suite& suite);
void check_ycsb(const Suite& suite, std::vector<SuiteError>& errors);
bool has_ycsb_overrides(const Overrides& overrides);
void apply_ycsb_overrides(const Overrides& overrides, Suite& suite,
                          std::vector<SuiteError>& errors);

// overrides_load.cpp: --clients, --transactions, --duration and --rate.
bool has_load_overrides(const Overrides& overrides);
void apply_load_overrides(const Overrides& overrides, Suite& suite,
                          std::vector<SuiteError>& errors);

}  // namespace storh::suite::detail
