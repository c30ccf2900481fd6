// result/result.h: the in-memory form of a result file (schema_version 1).
// docs/results.md describes the JSON; result/json.h reads and writes it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "storh/engine.h"

namespace storh::result {

inline constexpr int kSchemaVersion = 1;

// Which way is better for a metric's value. A plugin's operation is always a time,
// lower is better (storh/engine.h); a value where more is better comes from the host
// itself (a load cell compared by its tps) or from a result file it reads (a score in
// a storh PHP file). Result files spell it direction_name's way.
enum class MetricDirection { lower_is_better, higher_is_better };

// A parameter of a cell, name and value, sorted by name in every list.
using Param = std::pair<std::string, ParamValue>;

struct Sample {
  double seconds = 0;       // the whole timed step (per call when calls > 1)
  std::uint64_t items = 0;  // units processed by the step (per call)
  // How many calls of the step the sample timed: 1, or a measure_repeated batch
  // that lasted at least the run's min_time (Experiment::min_time_seconds).
  std::uint64_t calls = 1;
};

struct Summary {  // of the samples' seconds
  std::size_t runs = 0;
  double median = 0;  // mean of the two middle values for an even count
  double min = 0;
  double max = 0;
  double mean = 0;
  double stddev = 0;  // sample standard deviation (n-1); 0 for one sample
  double mad = 0;     // median absolute deviation from the median
};

// A latency distribution in seconds, summarised from a log-linear histogram
// (stats::latency_summary): a metric's per-item latencies recorded with measure_each,
// merged over the repeats, or a load cell's successful timed transactions of every
// client and repeat (docs/load.md). A percentile is absent when too few samples
// support it (stats.h, min_count_for_percentile). The result file keeps p90 of a
// metric's, and p95 and stddev of a load cell's; a summary read from a file has only
// those.
struct Latency {
  std::uint64_t count = 0;
  double mean = 0;
  double min = 0;
  double max = 0;
  std::optional<double> p50, p90, p99, p999;
  std::optional<double> p95{};
  double stddev = 0;  // a load cell's: exact, from the sum of squares
};

// A load repeat over time (docs/load.md, "A run over time"): one entry per interval of
// `seconds` from the common start, by the time each transaction ended. The last
// interval may be partial: it lasts run_seconds - (n - 1) * seconds. `seconds` is the
// effective interval: the asked one, doubled as often as a long run needs to stay
// within load::IntervalSeries::kMaxIntervals. Latencies (seconds) are of the ok
// transactions, percentiles from the interval's histogram whatever its count (with
// fewer than 100 transactions, p99 is the interval's maximum); 0 where an interval has
// none. The lag columns (schedule lag: start minus scheduled start) only with a rate.
struct LoadIntervals {
  double seconds = 1;
  std::vector<std::uint64_t> transactions;  // ok ones
  std::vector<std::uint64_t> failed, retries, skipped, late;
  std::vector<double> latency_mean, latency_stddev, latency_p50, latency_p90, latency_p99,
      latency_max;
  std::vector<double> lag_mean, lag_max;  // empty without a rate

  std::size_t size() const { return transactions.size(); }
  friend bool operator==(const LoadIntervals&, const LoadIntervals&) = default;
};

// Schedule lag of a repeat or cell with a rate: start minus scheduled start, seconds.
struct LoadLag {
  double mean = 0;
  double max = 0;
  friend bool operator==(const LoadLag&, const LoadLag&) = default;
};

// One repeat of a load cell.
struct LoadRepeat {
  std::uint64_t processed = 0;            // successful timed transactions
  std::optional<std::uint64_t> intended;  // what the schedule asked for; none: no bound
  std::uint64_t failed = 0;               // failed transactions, warm-up included
  double setup_seconds = 0;               // the slowest client's set-up
  double run_seconds = 0;                 // common start to the last transaction's end
  double tps_including_setup = 0;         // processed / (setup + run)
  double tps_excluding_setup = 0;         // processed / run
  std::optional<LoadLag> lag{};           // with a rate
  std::uint64_t late = 0;                 // ok but slower than latency_limit
  std::uint64_t skipped = 0;  // not run: later than latency_limit when due (with a rate)
  std::optional<LoadIntervals> intervals{};
};

// One command of a script over a load cell's repeats, as pgbench -r reports it
// (storh::StatementStats, docs/results.md): only from plugins that measure them.
struct StatementLatency {
  std::string script;  // the part's name ("zipfian_read"); "" for a type without parts
  std::uint32_t line = 0;
  std::string command;  // its first line
  std::uint64_t count = 0;
  double seconds = 0;  // total over the `count` runs; the mean is seconds / count
  std::uint64_t failures = 0;
  std::uint64_t retries = 0;
  friend bool operator==(const StatementLatency&, const StatementLatency&) = default;
};

// What a load cell (clients x transactions) measured; present only on load metrics.
struct LoadResult {
  std::uint32_t clients = 1;
  std::string mode = "threads";                          // "threads" or "processes"
  std::optional<std::uint64_t> transactions_per_client;  // or
  std::optional<double> duration_seconds;
  std::optional<double> target_rate;  // transactions per second, all clients; none: closed loop
  std::vector<LoadRepeat> repeats;    // in repeat order
  std::uint64_t processed = 0;        // sums over the repeats
  std::optional<std::uint64_t> intended;
  std::uint64_t failed = 0;
  double tps_including_setup = 0;  // means over the repeats
  double tps_excluding_setup = 0;
  double tps_stddev = 0;  // of tps_excluding_setup over the repeats (n - 1)
  std::optional<Latency> latency;
  // Conflicts, summed over the repeats (load/outcome.h, TryCounts); written only when
  // not zero: transactions retried, retries, and transactions that failed after their
  // tries with a serialization or deadlock error (not in `failed`).
  std::uint64_t retried = 0;
  std::uint64_t retries = 0;
  std::uint64_t serialization_failures = 0;
  std::uint64_t deadlock_failures = 0;
  // Mean seconds per reconnection inside timed transactions (pgbench -C), when any.
  std::optional<double> connection_mean;
  std::optional<double> latency_limit{};  // seconds, when the cell has one
  std::optional<LoadLag> lag{};           // over every repeat, with a rate
  std::uint64_t late = 0;                 // sums over the repeats
  std::uint64_t skipped = 0;
  std::vector<StatementLatency> statements{};  // summed over the repeats, in script order
};

// Adaptive repeats (docs/results.md, "Repeats until the figure is stable"): what one
// metric's cell took. The figure is the metric's seconds per repeat, or for a load
// metric its tps per repeat; the interval is the 95% interval of its median
// (stats/median_interval.h), in the figure's unit, absent below 6 repeats.
struct RepeatsTaken {
  std::uint32_t taken = 0;                            // timed repeats the cell ran
  std::optional<std::pair<double, double>> interval;  // [low, high]
  bool converged = false;  // the interval lies within median x (1 +- until)
};

// An engine's own count of its work (plugin ABI 1.7, docs/counters.md): PostgreSQL's
// WAL bytes per transaction, for example. Read inside the engine, so it sees work the
// host's counters cannot (a server's backends).
struct EngineCounterValue {
  std::string name;      // "pg.wal_bytes"
  std::string unit;      // "bytes"
  double per_item = 0;   // per item of the step, or per transaction of a load phase
  bool repeats = false;  // the engine says it is exact for the same workload and seed
  friend bool operator==(const EngineCounterValue&, const EngineCounterValue&) = default;
};

struct Metric {
  std::string key;  // "engine.operation" or "engine.operation[n=1000,validation=hash]"
  std::string engine;
  std::string operation;
  std::uint64_t dataset = 0;
  std::vector<Param> params;
  std::string unit;  // plural item noun: "ids"
  MetricDirection direction = MetricDirection::lower_is_better;
  std::vector<Sample> samples;  // in repeat order
  Summary seconds;
  double rate = 0;  // items per second at the median (items of the first sample)
  std::optional<Latency> latency;
  std::optional<LoadResult> load;  // load suites only (docs/load.md)
  // Deterministic counters from the counting pass (docs/counters.md): counter name ->
  // value per item (delta over the step / items), sorted by name; empty when not counted.
  std::vector<std::pair<std::string, double>> counters;
  // Why the counting pass has no counters for this metric although it counted the
  // step, e.g. its work ran in child processes the counters do not see; empty
  // otherwise. When set, `counters` is empty: a report says "not counted", never 0.
  std::string not_counted;
  // The engine's counters, from the timed repeats (the median per item over them),
  // sorted by name; empty when the engine reported none.
  std::vector<EngineCounterValue> engine_counters;
  // Reasons not to trust the numbers: a wide spread, too few samples (stats.h).
  std::vector<std::string> warnings;
  std::optional<RepeatsTaken> repeats;  // adaptive runs only
  // Each engine counter's per-item figure in every timed repeat, in repeat order, by
  // name: working data of the run, so that a confirmation re-run's repeats join the
  // median (run::add_samples). Not written to the file.
  std::map<std::string, std::vector<double>> engine_counter_repeats;
};

// One worker run that did not complete cleanly.
struct Failure {
  // Why it failed. Result files write each as its name (failure_kind_name), and
  // docs/results.md says what each means.
  enum class Kind {
    failed,       // the engine returned an error, e.g. a wrong answer
    crashed,      // a signal ended the worker
    timeout,      // past the suite's timeout
    memory,       // resident set over the suite's limit
    exit,         // exited early with a code, or could not start
    load,         // the plugin could not be loaded or described
    interrupted,  // the user stopped the run
    skipped,      // not run: an earlier run of the cell failed (run/fail_fast.h)
    counters,     // the cell's counting run failed (run/counting_pass.h)
  };

  std::string engine;
  std::uint64_t dataset = 0;
  std::vector<Param> params;
  int repeat = 0;         // 0-based; -1 for a warm-up run
  std::string operation;  // empty when not known (crash before the first step)
  Kind kind = Kind::failed;
  std::string message;
  std::optional<int> signal;  // terminating signal
  std::optional<int> exit_code;
  std::string stderr_tail;  // the last lines of the worker's stderr
};

// "failed", "crashed", ...: a kind as result files write it.
std::string_view failure_kind_name(Failure::Kind kind);
// The kind a result file names; nullopt for a name that is none of them.
std::optional<Failure::Kind> parse_failure_kind(std::string_view name);
// Every kind's name, in declaration order: "failed, crashed, ..., counters".
std::string failure_kind_choices();

// Which run failed, by name: a cell's engine, dataset and parameters, its repeat, and
// the operation when one is known.
struct FailedRun {
  std::string engine{};
  std::uint64_t dataset = 0;
  std::vector<Param> params{};
  int repeat = 0;  // 0-based; negative for a warm-up
  std::string operation{};
};

// The one way a Failure is made: which run, why and what happened (tabs in `message`
// become spaces). How the process ended (signal, exit code, stderr) is set afterwards
// by whoever watched it.
Failure make_failure(FailedRun run, Failure::Kind kind, std::string message);

// One worker run, successful or not.
struct Run {
  std::string engine;
  std::uint64_t dataset = 0;
  std::vector<Param> params;
  int repeat = 0;  // -1 for warm-up
  bool ok = false;
  double wall_seconds = 0;           // worker start to exit, as the host saw it
  std::uint64_t peak_rss_bytes = 0;  // the worker's maximum resident set
  double startup_seconds = 0;        // process start + plugin load, until run() began
};

// How a plugin module was built, from its manifest (ABI 1.2), and which file it was.
// A plugin older than ABI 1.2 records "unknown" and no optimisation.
struct PluginBuild {
  std::string type = "unknown";      // "Release", "default-optimized", "none", ...
  std::string flags = "unknown";     // CMAKE_CXX_FLAGS and the build type's flags
  std::string compiler = "unknown";  // "g++ 12.2.0"
  std::optional<bool> optimized;     // as the compiler said (__OPTIMIZE__); none: unknown
  std::string file_hash;             // XXH3-64 of the module, 16 hex digits; empty: unknown
};

struct EngineRecord {
  std::string name;
  std::string version;
  std::string plugin;                   // path of the module
  std::vector<std::string> operations;  // selected, in scenario order
  // None when the plugin did not load, or the file predates build records.
  std::optional<PluginBuild> build = std::nullopt;
};

// A result that holds one part of a suite's cells (`run --shard=K/N`, plan/shard.h).
struct ShardRecord {
  std::uint32_t index = 1;       // K, 1-based
  std::uint32_t count = 1;       // N
  std::uint64_t cells = 0;       // cells of this shard
  std::uint64_t plan_cells = 0;  // cells of the whole plan, all shards together
};

// A bench of a load suite ([[load.bench]], docs/load.md): the report prints one table
// per bench, transaction type and engine, sides as rows and these points as columns.
struct LoadBenchPoint {
  std::uint32_t clients = 1;
  std::uint64_t transactions = 1;  // per client
  friend bool operator==(const LoadBenchPoint&, const LoadBenchPoint&) = default;
};

struct LoadBench {
  std::string name;                     // the suite's title, unique in the file
  std::vector<std::string> operations;  // transaction types, as the suite lists them
  std::vector<LoadBenchPoint> points;   // as the suite lists them
  friend bool operator==(const LoadBench&, const LoadBench&) = default;
};

// repeat = { min, max, until }: the bounds of an adaptive run; until is a fraction
// (0.02 for "2%").
struct RepeatBounds {
  std::uint32_t min = 1;
  std::uint32_t max = 1;
  double until = 0;
};

struct Experiment {
  std::string suite;  // suite name
  std::string suite_file;
  std::string fingerprint;  // 16 hex digits over the expanded plan
  std::vector<std::uint64_t> datasets;
  std::uint32_t repeat = 1;                  // the minimum of an adaptive run
  std::optional<RepeatBounds> repeat_until;  // adaptive runs only
  std::uint32_t warmup = 0;
  std::optional<std::uint64_t> memory_limit_bytes;
  std::optional<double> timeout_seconds;
  // The suite's min_time for measure_repeated steps (Sample::calls); none in files
  // written before it existed.
  std::optional<double> min_time_seconds;
  // "durable": every cell's engine fsyncs what it reports stored; else each other level
  // its cells ran with and their engines: "none: queue; os: sqlite" (run/aggregate.cpp).
  std::string durability = "durable";
  // Instruments of the counting pass, in run order: "syscalls" (interposer and
  // getrusage), "instructions" (callgrind); empty when there was none.
  std::vector<std::string> counters;
  std::string host_version;
  std::vector<EngineRecord> engines;
  // Parameter values per engine as the matrix was expanded: engine -> name -> values.
  std::vector<std::pair<std::string, std::vector<std::pair<std::string, std::vector<ParamValue>>>>>
      params;
  std::string work_dir;          // parent of the per-run directories
  std::string work_dir_cleanup;  // what was done with them, e.g. "removed after the suite"
  // Provenance: the arguments as given ("storh-host", the command, then its arguments,
  // overrides included), the machine's host name, and the commit of the git checkout
  // holding the suite file (none when it is not in one).
  std::vector<std::string> command_line;
  std::string hostname;
  std::optional<std::string> git_commit;
  // Set when the run was one shard; `merge` joins the shards into a file without it.
  std::optional<ShardRecord> shard;
  // The suite's benches, in suite order; empty for a suite without them (and in files
  // written before they existed).
  std::vector<LoadBench> load_benches;
};

struct Environment {
  std::string os;      // PRETTY_NAME of /etc/os-release
  std::string kernel;  // uname -sr
  std::string cpu_model;
  unsigned cpu_count = 0;
  std::uint64_t memory_bytes = 0;
  std::string work_dir_filesystem;  // "ext4", "tmpfs", ...
  std::string compiler;             // "g++ 12.2.0"
  std::string build_type;           // "Release"
  std::string build_flags;
  std::string cpu_governor;  // empty when not exposed
  std::string time;          // ISO-8601 UTC, "2026-11-30T03:22:07Z"
  std::vector<std::string> warnings;
};

struct ResultFile {
  int schema_version = kSchemaVersion;
  Experiment experiment;
  Environment environment;
  bool interrupted = false;
  std::vector<Metric> metrics;  // sorted by key
  std::vector<Run> runs;        // in execution order
  std::vector<Failure> failures;
};

// Replaces every password in `result`'s texts (parameter values, metric keys, the
// command line, failure messages and stderr tails, warnings) with "***"
// (util/secrets.h). The runners call it on every result they finish, before anything
// is printed or written; a result read from a file is masked as written.
void mask_secrets(ResultFile& result);

}  // namespace storh::result
