// The help text of every command, one function each; cli/command_table.cpp names
// them. Each text is what `storh-host COMMAND --help` prints, byte for byte.
#include "cli/help.h"

#include "cli/commands.h"

namespace storh::cli {

std::string run_help() {
  return R"(Usage: storh-host [run] SUITE.toml [options]
       storh-host [run] --engine=NAME[,NAME...] [options]

Runs every engine of the suite over its datasets and parameter matrix, each repeat
in a fresh worker process, writes the result JSON atomically and prints a report.
Relative paths in the suite are relative to the suite file's directory; paths given
as options are relative to the current directory.

Without a suite file, --engine runs the engines with every operation and default
parameters: datasets 1000, 3 repeats, no warm-up, timeout 10m, no memory limit,
output build/bench-<engines>.json in the current directory; the options below
change any of it (a load option makes it a load run with 1 client).

Options (each overrides the suite):
  --dataset=N[,N...]        dataset sizes (1000, 10k, 1M)
  --engine=NAME[,NAME...]   run only these engines (one not in the suite runs with defaults)
  --repeat=N                timed repeats per cell, each in a fresh process
  --warmup=N                untimed runs per cell before the repeats
  --output=PATH, -o PATH    result file (default: the suite's output)
  --memory-limit=SIZE       per-worker resident memory limit (512M, 2G; none)
  --timeout=DURATION        per-worker wall-clock limit (30s, 10m; none)
  --min-time=DURATION       a repeatable step (measure_repeated) runs until one
                            batch lasts this long (default 20ms; 0: run once)
  --plugin-path=DIR         look for plugins here first (repeatable)
  --work-dir=DIR            parent of the per-run work directories (default: $TMPDIR)
  --range-output=DIR        also write DIR/bench-<n>-<engine>[-<values>].json, one
                            per dataset, engine and parameter combination, and
                            DIR/index.json (the storh range layout)
  --set ENGINE.PARAM=V[,V]  set a parameter; a comma list is a matrix dimension
  --operation=OP[,OP...]    run only these operations (OP: every engine declaring
                            it; ENGINE.OP: that engine's); replaces the suite's choice
  --clients=N[,N...]        load runs: concurrent clients (pgbench -c)
  --transactions=N[,N...]   load runs: transactions per client (-t; 100, 10k); N%
                            keeps the suite's benches, each point at N% of its own
  --duration=D[,D...]       load runs: how long each cell runs (-T; 10s, 1m);
                            these three replace [[load.bench]] points with their
                            clients x transactions matrix
  --rate=TPS                load runs: target rate of all clients (-R; 0 or none:
                            as fast as possible); YCSB runs: its target
  --interval=D              load runs: width of each cell's interval series
                            (pgbench -P; default 1s)
  --latency-limit=D|none    load runs: count slower transactions as late, and
                            with a rate skip those late when due (-L; 10ms)
  --workload=W[,W...]       YCSB runs: core workloads a-f (docs/ycsb.md)
  --operationcount=N        YCSB runs: operations of the run phase, all clients
  --recordcount=N           YCSB runs: records of the load phase
  --no-fail-fast            run every repeat of a cell even after one timed out,
                            crashed, failed an operation or exceeded the memory
                            limit (default: its remaining runs are recorded as
                            "skipped" failures)
  --counters=LIST|none      counting pass after the repeats: syscalls,instructions
                            (docs/counters.md)
  --shard=K/N               run only shard K of N: the cells whose index in the plan
                            is K-1 modulo N (round robin); `merge` joins the shards
  --format=text|md          report format on stdout (default text)

Exit codes: 0 all cells passed, 2 bad input (suite, arguments), 3 a cell failed
(the result file is still written) or the result could not be written,
130 interrupted (partial result written).
)";
}

std::string validate_help() {
  return R"(Usage: storh-host validate SUITE.toml [run options]

Checks a suite without running it: syntax, keys, types, sizes and durations, then
engines, operations and parameter values against the plugins found. Prints the cells
the suite expands to. Takes the same overrides as run, and --shard=K/N to print
only the cells that shard would run.

Exit codes: 0 valid, 2 invalid (every error names file:line:column).
)";
}

std::string list_help() {
  return R"(Usage: storh-host list [--plugin-path=DIR]... [--format=text|json]

Lists the engine plugins found on the plugin path (--plugin-path, $STORH_PLUGIN_PATH,
the build's plugin directory, the installed plugin directory), with their operations
and parameters.

Exit codes: 0 every plugin loaded, 3 a plugin was refused or failed to load.
)";
}

std::string report_help() {
  return R"(Usage: storh-host report RESULT.json [--format=text|md|csv|json|html|bmf|...] [-o FILE]

Prints the report of a result file: a storh-host result, or the JSON of a Google
Benchmark binary (--benchmark_out=FILE, docs/integrations.md). The report is a pure
function of the file.
  text, md   tables with a header row; cv is the coefficient of variation
             (stddev / mean) of the repeats; ! marks a metric with warnings
  csv        one row per metric, numbers at full precision
  csv-intervals  one row per interval of each load repeat ("over time"), the
             same columns in every file (docs/results.md)
  json       the whole file, normalised (fixed key order, newer fields filled in)
  html       one self-contained page with charts (opens offline): medians with
             their min .. max, time against dataset size for ranges, heat maps of
             load runs; Chart.js from Debian's libjs-chart.js (or $STORH_CHARTJS)
             is inlined (docs/html-report.md)
  bmf        Bencher Metric Format: latency in ns per item, throughput for
             higher-is-better values (bencher run --adapter json)
  github-action-benchmark         the times (ns per item) for the action's
                                  customSmallerIsBetter tool
  github-action-benchmark-bigger  the higher-is-better values (tps) for its
                                  customBiggerIsBetter tool (docs/integrations.md)

Options:
  --output=FILE, -o FILE   write the report to FILE (atomically) instead of stdout

Exit codes: 0 ok, 2 unreadable or invalid result file, a bad option, an output that
cannot be created, or no Chart.js for html, 3 the output could not be written.
)";
}

std::string compare_help() {
  return R"(Usage: storh-host compare BASE.json NEW.json [MORE.json...] [--format=text|md|csv|json|html]
                          [-o FILE]

Compares result files: storh-host results, storh PHP bench.php / repeat.php
files and Google Benchmark JSON (a metric per benchmark for its real time and one,
NAME[cpu_time], for its CPU time), in any mix (the PHP metric recovery.recover
reads as log.recover). One A/B
file (storh-host ab) shows its paired verdict, as `storh-host ab --help` describes.

Two files: per metric the base and new medians, delta % = (new - base) / base
(0 when base is 0), the noise band, a verdict that knows the direction (a time
that grows or a rate that shrinks is slower; a delta within the noise band, the
larger coefficient of variation of the two sides but at least 1%, is same, and
so is any delta between single runs), `new` for metrics only in NEW, `missing` for
metrics only in BASE, runs per side, and significance by a two-sided
Mann-Whitney U test (exact for small samples without ties). Below the minimum
sample count it says "too few samples": at alpha 0.05 that is 4 per side (with
3 per side no data can give p < 0.1). A geomean row summarises the metrics on
both sides (direction-normalised; > 0% is slower overall).

Three or more files: one table, metrics as rows, files as columns; each cell is
the median and its ratio to the first file.

Warnings (stderr) name what differs between the files: experiment fingerprint,
suite, datasets, durability, plugin versions, build type, CPU model, harness.

Options:
  --format=text|md|csv|json  text (default), Markdown for a pull request,
                             CSV for spreadsheets, JSON for tools
  --format=html              one self-contained page: per engine each metric's
                             ratio new / base on its confidence interval,
                             coloured by verdict (docs/html-report.md)
  --output=FILE, -o FILE     write to FILE (atomically) instead of stdout
  --alpha=A                  significance level (default 0.05)

Exit codes: 0 compared (whatever the deltas), 2 bad arguments or an unusable
file (unreadable, not JSON, unknown schema_version, not a result file), 3 the
output could not be written.
)";
}

std::string gate_help() {
  return R"(Usage: storh-host gate BASE.json CURRENT.json [--threshold=PCT] [--metric=ENGINE.OP]...

Fails when CURRENT is slower than BASE, with the storh harness's rules: a metric
fails when it is slower by strictly more than the threshold (percent; faster
never fails); without --metric every baseline metric is checked, sorted; a
metric missing on either side fails (a --metric neither file has is a typo:
exit 2, with the closest name). Every checked metric is printed, then the
verdict ("Benchmark regression gate passed|failed at threshold +10.00%.").
Accepts storh-host and storh PHP result files (recovery.recover = log.recover) and
Google Benchmark JSON (docs/integrations.md).
`gate AB.json` judges one A/B file (storh-host ab --help: its flags, --format=html
and -o FILE).

Options:
  --threshold=PCT           allowed slowdown for every metric (default 10)
  --threshold=METRIC=PCT    for one metric, repeatable; METRIC is a full key
                            (cache.cold[validation=hash]=25) or an operation
                            (doc.put=20: every cell of it); a full key wins
  --metric=ENGINE.OP        check only these, in this order (repeatable)
  --significant             fail only when the slowdown is also significant
                            (two-sided Mann-Whitney U at --alpha); with too few
                            samples (< 4 per side at 0.05) the threshold alone
                            decides, and the output says so
  --alpha=A                 significance level (default 0.05)
  --min-effect=SECONDS      do not fail when the medians differ by less than
                            this many seconds (e.g. 0.0005)
  --lenient-missing         a missing metric is a warning, not a failure
  --calibration=FILE        no metric's threshold below the noise this
                            calibration file (storh-host calibrate) measured for
                            a stored-baseline comparison, when NEW.json ran on
                            the machine it was measured on (else a warning)
  --counter=NAME=PCT        a counter per item may grow by at most PCT percent
                            (fsync=0: must not grow; instructions=2), repeatable;
                            a counter on one side only is a warning
  --format=text|md|json     text (default, storh's layout), Markdown, JSON
  --junit=FILE              also write the verdict as JUnit XML: a test case per
                            checked metric, a failure per regression with its
                            figures (docs/integrations.md)

Warnings (stderr) name what differs between the two files (fingerprint, suite,
datasets, plugin versions, build type, CPU model).

Exit codes: 0 passed, 1 a metric regressed (or is missing), 2 bad arguments or
an unusable file (unreadable, not JSON, unknown schema_version, a negative
threshold, not exactly two files), 3 the output (A/B file, -o) could not be written.
)";
}

std::string ci_help() {
  return R"(Usage: storh-host ci [SUITE.toml] [--confirm=N] [--update-baseline] [--threshold=PCT]
                     [run options]

Runs the CI suite (default suites/ci.toml) and gates its result against the
baseline named in the suite's [gate] table, with the table's settings:

  [gate]
  baseline        = "suites/baselines/ci-1k.json"
  threshold       = 10              # percent slower allowed (strictly more fails)
  metrics         = ["uuid.monotonic"]   # default: every baseline metric
  thresholds      = { "filter.record_range" = 25 }
  significant     = true            # fail only if Mann-Whitney also says so
  alpha           = 0.05
  min_effect      = "2us"           # ignore smaller absolute differences
  lenient_missing = false           # a missing metric warns instead of failing
  confirm         = 2               # re-run failing cells twice before failing
  counters        = { fsync = 0, instructions = 2 }   # per-item growth allowed, %

  --base=DIR           A/B mode: run the suite's cells for the plugins in DIR (a base
                       build) and this build in pairs, and gate on the paired
                       ratios instead of the baseline file (see `storh-host ab
                       --help`; the [gate.ab] table sets pairs, confirm_pairs,
                       threshold, alpha, calibration)
  --confirm=N          re-run the cells of failing metrics N more times, add their
                       samples, and fail only if the metrics still regress
  --update-baseline    run, then write the result as the new baseline (no gate)
  --history=FILE|URI   add the run to the run history (an SQLite FILE or a
                       postgresql:// URI; see `storh-host history --help`) and fail when it makes a new change point for the
                       worse in one of its metrics; --commit=SHA, --branch=NAME,
                       --max-p=P and --min-segment=N as for `history`
  --threshold=PCT, --threshold=KEY=PCT, --metric=ENGINE.OP, --significant,
  --alpha=A, --min-effect=SECONDS, --lenient-missing, --counter=NAME=PCT
                       as for `gate`, on top of the table's settings

Exit codes: 0 pass, 1 regression, 2 bad input (suite, baseline file), 3 the run
itself failed (a cell failed; nothing was gated) or its result could not be
written, 130 interrupted.
)";
}

std::string merge_help() {
  return R"(Usage: storh-host merge SHARD.json... [-o FILE]

Joins the result files of one suite's shards (storh-host run SUITE --shard=K/N, for
K = 1..N, e.g. one per job of a CI matrix) into the result file an unsharded run of
the same cells writes: the same experiment and metrics; runs and failures shard by
shard. Refused, naming the files: a file that is not a shard, shards of different
suites or fingerprints, different shard counts, a shard given twice or missing, and
shards that overlap. The environment is the first shard's, with every shard's
warnings and one when the shards ran on different CPU models, commits or plugin
builds.

Options:
  --output=FILE, -o FILE   write the merged result to FILE (atomically) instead of stdout

Exit codes: 0 merged, 2 a file is unreadable or the shards cannot be merged, 3 the
output could not be written.
)";
}

std::string history_help() {
  return R"(Usage: storh-host history add RESULT.json... [--commit=SHA] [--branch=NAME] [--time=ISO]
       storh-host history show [METRIC...] [--format=text|html] [-o FILE] [--max-p=P]
                               [--min-segment=N]
       storh-host history changes [METRIC...] [--max-p=0.001] [--min-segment=3] [-o FILE]
       storh-host history export [--format=json|csv] [--results] [-o FILE]
       storh-host history copy --from=FILE|URI --to=FILE|URI
       (each but copy takes --db=FILE|URI; default $STORH_HISTORY, else
       ./storh-history.db)

Keeps every run in an SQLite file, or in a PostgreSQL database that many CI jobs
share (--db=postgresql://user@host/db, any libpq URI, or a keyword/value string
such as "host=/run/postgresql dbname=hist"; a password in it is never printed),
and finds where a metric changed.
  add       stores a result file: its metrics' medians and spread, the commit and
            branch (from the flags, else the git commit the result recorded; not
            what is checked out now, which need not be what the result ran; `ci
            --history` falls back to the checkout), the run time (environment.time, or
            --time=YYYY-MM-DDTHH:MM:SSZ), the environment and the plan's fingerprint.
            Refused, and nothing stored: a duplicate run, an interrupted run, one
            shard (merge first), a file of another schema, a corrupt database.
  show      without METRIC every series (one per suite, metric and environment) in
            one table; with METRIC (a key or a glob such as "doc.*") each run of its
            series; --format=html draws a trend chart per metric, one line per
            environment; change points are marked as `changes` finds them
  changes   the change points of every series: E-divisive means with Welch's t-test
            (Hunter / Apache Otava): the metric, the commit of the first run after the
            change, the medians before and after, their ratio and the p-value
  export    every run and metric as JSON (--results also embeds each stored result
            file) or CSV
  copy      every run of one history into another (SQLite to PostgreSQL and back),
            skipping those already there

Series of different environments (CPU, memory, filesystem, kernel, OS, compiler,
build type, durability) are never mixed.

Exit codes: 0 done, 2 bad arguments, an unreadable or refused file, or an unusable
or unreachable database, 3 the output could not be written.
)";
}

std::string program_help() {
  std::string text = R"(storh-host: a benchmark framework for storage-engine plugins.

Usage:
)";
  for (const Command& command : commands()) {
    for (std::string_view line : command.usage) text.append("  ").append(line).append("\n");
  }
  return text + R"(  storh-host COMMAND --help             help for one command
  storh-host --version

Exit codes: 0 ok, 1 a regression (gate, ci, ab), 2 bad input (suite, JSON,
arguments), 3 a run failed (a cell, worker or plugin; the result is still written)
or an output could not be written, 130 interrupted.
)";
}

}  // namespace storh::cli
