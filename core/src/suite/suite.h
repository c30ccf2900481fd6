// suite/suite.h: a benchmark suite as read from TOML, with the source position of
// every value so later checks (against the plugins' descriptions) can say where.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "load/config.h"
#include "storh/engine.h"

namespace storh::suite {

// Where a value came from: "suites/x.toml:12:5". line/column are 1-based; 0 means
// unknown (a value from a command-line override has origin "--set" and no line).
struct SourcePos {
  std::string origin;  // file path as given, or "--dataset" etc. for overrides
  std::uint32_t line = 0;
  std::uint32_t column = 0;

  // "file:line:col" or just "origin" when line is 0.
  std::string str() const;
};

// A value with its position.
template <typename T>
struct Located {
  T value{};
  SourcePos pos;
};

// A parameter as written: one value, or a list (a matrix dimension). Values keep the
// TOML type they were written with; resolution checks them against ParamSpec.type
// (an integer is accepted where a number is declared). A table of settings,
// { work_mem = "4MB", jit = false }, is read as the string "work_mem=4MB;jit=false".
struct ParamSetting {
  std::string name;
  SourcePos pos;                            // of the key
  std::vector<Located<ParamValue>> values;  // one entry unless a list was written
  bool is_list = false;
};

struct EngineSetting {
  std::string name;
  SourcePos pos;  // of the [engines.<name>] table header or key
  // Empty means every operation the engine declares.
  std::vector<Located<std::string>> operations;
  std::vector<ParamSetting> params;  // in file order
  // [engines.<name>.load] mode = "processes": this engine's clients in a load suite.
  std::optional<Located<load::ClientMode>> load_mode;
  // [engines.<name>] counters = ["syscalls"]: this engine's counting instruments
  // instead of the suite's (an empty list: none); unset: the suite's.
  std::optional<std::vector<Located<std::string>>> counters;
};

// [[load.bench]]: one named table of the pgbench study, a list of clients/transactions
// points for some transaction types (docs/load.md, "Benches").
struct BenchSetting {
  Located<std::string> name;                     // free text, unique in the suite
  std::vector<Located<std::string>> operations;  // transaction types, at least one, each once
  std::vector<Located<load::Point>> points;      // at least one, each once, in file order
};

// The [load] table: a load suite runs the engines' transactions (storh/transactions.h)
// instead of their scenarios. clients x transactions (or durations) is a matrix:
// every combination is its own cell. With benches, the cells are instead the union
// of the benches' points (plan/plan.h). docs/load.md.
struct LoadSetting {
  SourcePos pos;                                     // of the [load] table
  std::vector<Located<std::uint32_t>> clients;       // default {1}
  std::vector<Located<std::uint64_t>> transactions;  // per client; or
  std::vector<Located<double>> durations;            // seconds; exactly one of the two
  // [[load.bench]] tables in file order. When set, clients, transactions and durations
  // were not given (the parser refuses them; clients keeps its default {1}), and a
  // command-line --clients, --transactions or --duration clears them.
  std::vector<BenchSetting> benches;
  std::optional<double> rate;             // target tps of all clients together
  std::uint64_t warmup_transactions = 0;  // per client, untimed
  double warmup_seconds = 0;              // per client, untimed
  load::ClientMode mode = load::ClientMode::threads;
  double progress_seconds = 5;          // progress line interval on a terminal; 0: none
  double interval_seconds = 1;          // width of each cell's interval series, > 0
  std::optional<double> latency_limit;  // seconds, > 0: late and (with a rate) skipped
};

// The [ycsb] table: a YCSB suite runs YCSB's core workloads on each engine's
// key-value store (storh/key_value.h) instead of its scenarios; workload x clients is
// a matrix (docs/ycsb.md). Its clients and target live in the suite's `load`, which
// a [ycsb] table also sets, so the load flags (--clients, --rate) and load cells serve
// it; `load.transactions` and `load.durations` stay empty.
struct YcsbSetting {
  SourcePos pos;                         // of the [ycsb] table
  std::vector<Located<char>> workloads;  // 'a'..'f', each once; default {'a'}
  // YCSB properties over each workload's preset, (name, value as text), in file
  // order; --operationcount and --recordcount append theirs.
  std::vector<std::pair<Located<std::string>, Located<std::string>>> properties;
};

// [gate.ab]: defaults of the A/B mode (`ci --base=DIR`, `ab`), docs/compare-gate.md.
struct AbGateSetting {
  std::optional<std::uint32_t> pairs;               // pairs per cell, >= 1
  std::optional<std::uint32_t> confirm_pairs;       // the confirmation set's, >= 1
  std::optional<double> threshold;                  // percent, >= 0
  std::optional<double> alpha;                      // in (0, 1)
  std::optional<Located<std::string>> calibration;  // path of a calibration file
};

struct GateSetting {
  std::optional<Located<std::string>> baseline;  // path
  std::optional<Located<double>> threshold;      // percent, >= 0
  std::vector<Located<std::string>> metrics;     // "engine.operation"
  // Per-metric thresholds: thresholds = { "doc.put" = 20 } (percent, >= 0).
  std::vector<std::pair<Located<std::string>, double>> thresholds;
  bool significant = false;       // fail only if also significant (Mann-Whitney)
  std::optional<double> alpha;    // significance level, in (0, 1)
  double min_effect_seconds = 0;  // ignore regressions smaller than this, absolute
  bool lenient_missing = false;   // a missing metric warns instead of failing
  std::uint32_t confirm = 0;      // re-run failing cells this many times (ci)
  AbGateSetting ab;
  // counters = { fsync = 0, instructions = 2 }: growth allowed per counter, percent.
  std::vector<std::pair<Located<std::string>, double>> counter_tolerances;
};

// How repeats are scheduled: every repeat of a cell before the next cell, or repeat
// k of every cell before repeat k+1 of any (slow drift of the machine then spreads
// evenly over the cells).
enum class RunOrder { sequential, interleave };

// repeat = { min = 5, max = 30, until = "2%" } (--repeat=5..30@2%): a cell runs `min`
// repeats, then more, one per round, until the 95% interval of the median of each of
// its figures lies within median x (1 +- until), or it has run `max` (stats/median_interval.h).
// 1 <= min <= max <= 1000000; 0 < until.
struct RepeatUntil {
  std::uint32_t min = 5;
  std::uint32_t max = 30;
  double until = 0.02;  // a fraction: "2%" is 0.02
  friend bool operator==(const RepeatUntil&, const RepeatUntil&) = default;
};
// "2%" for 0.02, "2.5%" for 0.025.
std::string percent_text(double fraction);
// "5..30 repeats per cell until ±2%": the plan's bounds as validate and run print them.
std::string repeat_until_text(const RepeatUntil& bounds);

// Google Benchmark's 0.5 s is per benchmark; here it is per sample of every repeat
// in a fresh process, and 20 ms already dwarfs a clock read (~20 ns) and a
// scheduler tick (4 ms).
inline constexpr double kDefaultMinTimeSeconds = 0.02;

// The largest dataset a cell may ask for (10^12 records) and the longest timeout (30
// days): anything beyond either cannot finish on any machine, and larger values
// overflow the plugins' sizes and the host's clocks.
inline constexpr std::uint64_t kMaxDataset = 1'000'000'000'000ULL;
inline constexpr double kMaxTimeoutSeconds = 30.0 * 24 * 3600;

// Paths: a relative path written in a suite file (output, plugin_path, work_dir,
// range_output, [gate] baseline) is relative to the suite file's directory;
// resolve_paths() (parse.h) rewrites it so, and the fields below hold the result. A
// path from a command-line override stays as typed: relative to the current directory.
struct Suite {
  std::filesystem::path file;                    // as given on the command line
  std::string name;                              // default: the file's stem
  std::vector<Located<std::uint64_t>> datasets;  // default {1000}; each >= 1
  std::uint32_t repeat = 1;                      // >= 1; each repeat runs in a fresh worker process
  // Set: adaptive repeats, and `repeat` is its min. A plain `repeat = 5` clears it.
  std::optional<RepeatUntil> repeat_until;
  std::uint32_t warmup = 0;  // untimed runs per cell before the repeats
  RunOrder order = RunOrder::sequential;
  std::optional<std::uint64_t> memory_limit_bytes;  // "512M"; none = unlimited
  std::optional<double> timeout_seconds;            // "10m"; none = unlimited
  // min_time = "20ms": a measure_repeated step repeats until one batch lasts this
  // long (storh/engine.h); 0: every step runs once. Other steps are unaffected.
  double min_time_seconds = kDefaultMinTimeSeconds;
  std::filesystem::path output;  // default build/bench-<name>.json next to the suite
  std::vector<Located<std::filesystem::path>> plugin_path;  // flags first, then the suite's
  std::optional<std::filesystem::path> work_dir;  // parent of the per-run work directories
  // Also write the run in the storh `range` layout here (range/range.h); none = do not.
  std::optional<std::filesystem::path> range_output;
  std::vector<EngineSetting> engines;  // in file order; at least one
  GateSetting gate;
  std::optional<LoadSetting> load;  // set: a load suite (or a YCSB suite)
  std::optional<YcsbSetting> ycsb;  // set: a YCSB suite; then `load` is set too
  // counters = ["syscalls", "instructions"]: instruments of the counting pass after
  // the timed repeats (docs/counters.md), each at most once; empty: no counting pass.
  std::vector<Located<std::string>> counters;
};

// The counting instruments of `engine`'s cells: its own `counters`, else the suite's.
inline const std::vector<Located<std::string>>& counters_for(const Suite& suite,
                                                             std::string_view engine) {
  for (const EngineSetting& setting : suite.engines) {
    if (setting.name == engine && setting.counters) return *setting.counters;
  }
  return suite.counters;
}

}  // namespace storh::suite
