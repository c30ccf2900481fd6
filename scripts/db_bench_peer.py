#!/usr/bin/env python3
"""RocksDB's db_bench and storh-host's rocksdb plugin, side by side.

Run through scripts/db-bench-peer.sh (which sets up and builds first). For each thread
count, each round runs both tools, the order alternating from round to round, each on
a fresh database directory under one temporary directory (removed at the end, also on
Ctrl-C), with the same setup:

  db_bench     db_bench --benchmarks=LIST --num=N --threads=T --key_size=16
               --value_size=V --compression_type=C --cache_size=... (the flags below)
  storh-host   storh-host run --engine=rocksdb --dataset=N --operation=LIST
               --set rocksdb.threads=T --set rocksdb.fill_keys=uniform ...

The same work on both sides, as db_bench defines it: num is per thread (each of T
threads does N operations, so a step is T*N operations); fillseq's threads each put
keys 0..N-1; fillrandom and overwrite put N uniformly drawn keys of [0, N) per thread
(so some keys stay unwritten and reads miss them, on both sides); readrandom gets N
random keys per thread; readseq scans the whole database on each thread,
--readseq-passes times in a row (default 5, as one scan lasts tenths of a second),
timed together (db_bench: readseq named K times, its lines summed);
readwhilewriting is T readers and one extra writer thread. Writes go to the WAL
without sync (db_bench's sync=false, disable_wal=false; our durability "os").

`db_bench_peer.py --pool A.json B.json ...` prints every round of earlier --json
files pooled per thread count and benchmark: the rounds, mean, median and min..max of
the ratios.

Printed per thread count and benchmark: each tool's mean ops/s and micros/op (as
db_bench prints it: the readers' summed time per operation, so T times the wall time
per operation at T threads), the ratio storh-host / db_bench of ops/s (the mean of the
rounds' ratios, with min..max: above 1, ours is faster).

The machine may be shared. Before each tool run the script waits (up to --max-wait)
until other processes use less than --max-foreign cores; a round in which they used
more during either tool's run (CPU time from /proc/stat less our own children's) is
run again, up to --reruns times. /proc/loadavg before and after every run is kept in
the JSON; note that it counts our own threads too.
"""
import argparse
import json
import os
import re
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

BENCHMARKS = ["fillseq", "fillrandom", "overwrite", "readrandom", "readseq", "readwhilewriting"]
NEED_FILL = {"overwrite", "readrandom", "readseq", "readwhilewriting"}
COMPRESSIONS = ["none", "lz4", "zstd", "snappy"]
# db_bench's report line: "readrandom   :       3.123 micros/op 320164 ops/sec 3.123 seconds
# 1000000 operations; ..."
REPORT = re.compile(r"^(\w+)\s*:\s*([0-9.]+) micros/op (\d+) ops/sec ([0-9.]+) seconds "
                    r"(\d+) operations;", re.M)


def fail(message):
    sys.exit(f"db-bench-peer: {message}")


def children_cpu():
    """CPU seconds (user + system) of every finished child and its waited-for descendants."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def busy_cpu():
    """CPU seconds the whole machine has been busy (not idle, not iowait) since boot."""
    with open("/proc/stat") as f:
        fields = [int(v) for v in f.readline().split()[1:]]
    user, nice, system, _idle, _iowait, irq, softirq, steal = fields[:8]
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


def loadavg():
    with open("/proc/loadavg") as f:
        return [float(v) for v in f.read().split()[:3]]


def wait_for_quiet(args):
    """Waits until other processes use under --max-foreign cores (we run nothing now)."""
    deadline = time.time() + args.max_wait
    waited = False
    while True:
        before, start = busy_cpu(), time.time()
        time.sleep(2)
        foreign = (busy_cpu() - before) / (time.time() - start)
        if foreign < args.max_foreign or time.time() > deadline:
            if waited:
                print(f"  {'quiet' if foreign < args.max_foreign else 'waited enough'}: "
                      f"others use {foreign:.2f} cores", file=sys.stderr)
            return foreign
        if not waited:
            print(f"  waiting: other processes use {foreign:.2f} cores", file=sys.stderr)
            waited = True


def measured(run):
    """Runs run(); returns its result with the load around it and others' CPU during it."""
    load_before, busy_before, ours_before = loadavg(), busy_cpu(), children_cpu()
    start = time.time()
    result = run()
    wall = time.time() - start
    ours = children_cpu() - ours_before
    result["host"] = {"loadavg_before": load_before, "loadavg_after": loadavg(),
                      "wall_seconds": wall, "our_cpu_seconds": ours,
                      "foreign_cores": max(0.0, (busy_cpu() - busy_before - ours) / wall)}
    return result


def niced(args, command):
    """`command` under nice --nice (both tools alike); as it is when --nice is 0."""
    return command if args.nice == 0 else ["nice", "-n", str(args.nice), *command]


def db_bench_flags(args, threads, dbdir):
    return [f"--num={args.num}", f"--threads={threads}", "--key_size=16",
            f"--value_size={args.value_size}", "--compression_ratio=0.5",
            f"--compression_type={args.compression}", f"--cache_size={args.cache_size}",
            f"--write_buffer_size={args.write_buffer_size}", f"--bloom_bits={args.bloom_bits}",
            f"--max_background_jobs={args.max_background_jobs}", "--sync=false",
            "--disable_wal=false", f"--seed={args.seed}", f"--db={dbdir}",
            *args.db_bench_extra]  # DB_BENCH_AS_ROCKSDB first


def run_db_bench(args, threads, benchmarks, dbdir):
    # A read or overwrite needs fillrandom's database, which our plugin fills untimed;
    # in db_bench's order, after fillseq, whose database a fresh-db benchmark replaces.
    need_fill = bool(NEED_FILL & set(benchmarks))
    steps = [b for b in BENCHMARKS if b in benchmarks or (b == "fillrandom" and need_fill)]
    # readseq K times in a row, each a line of its own, summed below as our one step is.
    steps = [s for b in steps for s in [b] * (args.readseq_passes if b == "readseq" else 1)]
    command = [args.db_bench, f"--benchmarks={','.join(steps)}",
               *db_bench_flags(args, threads, dbdir)]
    out = subprocess.run(niced(args, command), capture_output=True, text=True)
    shutil.rmtree(dbdir, ignore_errors=True)
    if out.returncode != 0:
        fail(f"db_bench failed ({out.returncode}): {' '.join(command)}\n{out.stderr[-2000:]}")
    figures = {}
    for name, micros, ops_per_sec, seconds, operations in REPORT.findall(out.stdout):
        if name not in benchmarks:
            continue
        step = figures.setdefault(name, {"micros_total": 0.0, "operations": 0, "seconds": 0.0,
                                         "printed_ops_per_sec": []})
        step["micros_total"] += float(micros) * int(operations)
        step["operations"] += int(operations)
        step["seconds"] += float(seconds)
        step["printed_ops_per_sec"].append(int(ops_per_sec))
    for step in figures.values():
        step["ops_per_sec"] = step["operations"] / step["seconds"]
        step["micros_per_op"] = step.pop("micros_total") / step["operations"]
    missing = [b for b in benchmarks if b not in figures]
    if missing:
        fail(f"db_bench printed no line for {', '.join(missing)}:\n{out.stdout[-2000:]}")
    return {"steps": figures, "command": command}


def run_ours(args, threads, benchmarks, workdir):
    output = os.path.join(workdir, "ours.json")
    sets = {"threads": threads, "fill_keys": "uniform", "durability": "os",
            "value_size": args.value_size, "compression": args.compression,
            "block_cache_size": args.cache_size, "write_buffer_size": args.write_buffer_size,
            "bloom_bits": args.bloom_bits, "max_background_jobs": args.max_background_jobs,
            # db_bench keeps no Statistics unless --statistics is given.
            "statistics": "false", "readseq_passes": args.readseq_passes}
    command = [args.host, "run", "--engine=rocksdb", f"--dataset={args.num}", "--repeat=1",
               "--warmup=0", "--counters=none", "--timeout=1h",
               f"--operation={','.join(benchmarks)}", f"--output={output}",
               f"--work-dir={workdir}"]
    for name, value in sets.items():
        command += ["--set", f"rocksdb.{name}={value}"]
    out = subprocess.run(niced(args, command), capture_output=True, text=True)
    if out.returncode != 0:
        fail(f"storh-host failed ({out.returncode}): {' '.join(command)}\n"
             f"{out.stdout[-2000:]}{out.stderr[-2000:]}")
    with open(output) as f:
        result = json.load(f)
    os.unlink(output)
    figures = {}
    for metric in result["metrics"]:
        sample = metric["samples"][0]
        figures[metric["operation"]] = {
            "ops_per_sec": sample["items"] / sample["seconds"],
            # As db_bench: each thread's time summed, per operation.
            "micros_per_op": threads * sample["seconds"] * 1e6 / sample["items"],
            "operations": sample["items"], "seconds": sample["seconds"]}
    missing = [b for b in benchmarks if b not in figures]
    if missing:
        fail(f"storh-host measured no {', '.join(missing)}")
    return {"steps": figures, "command": command}


def ratio(figures, bench):
    """ours / db_bench of one round's ops/s for `bench`."""
    return (figures["ours"]["steps"][bench]["ops_per_sec"]
            / figures["db_bench"]["steps"][bench]["ops_per_sec"])


def one_round(args, threads, benchmarks, r, tmp):
    order = ["db_bench", "ours"] if r % 2 == 0 else ["ours", "db_bench"]
    figures = {}
    for tool in order:
        wait_for_quiet(args)
        if tool == "db_bench":
            dbdir = os.path.join(tmp, f"db_bench-{threads}-{r}")
            figures[tool] = measured(lambda: run_db_bench(args, threads, benchmarks, dbdir))
        else:
            workdir = os.path.join(tmp, f"ours-{threads}-{r}")
            os.mkdir(workdir)
            figures[tool] = measured(lambda: run_ours(args, threads, benchmarks, workdir))
            shutil.rmtree(workdir, ignore_errors=True)
    return figures


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--host", default="build/storh-host")
    parser.add_argument("--db-bench", default="db_bench", help="db_bench to run (default: PATH's)")
    parser.add_argument("--num", type=int, default=1000000,
                        help="keys, and operations per thread of each benchmark (db_bench's num)")
    parser.add_argument("--value-size", type=int, default=100)
    parser.add_argument("--readseq-passes", type=int, default=5,
                        help="readseq iterations per round, timed together (db_bench: readseq "
                             "K times in --benchmarks; ours: rocksdb.readseq_passes); one pass "
                             "lasts tenths of a second, too short for a shared machine")
    parser.add_argument("--threads", default="1,2", help="thread counts, each a table")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--benchmarks", default=",".join(BENCHMARKS))
    parser.add_argument("--compression", choices=COMPRESSIONS, default="none")
    parser.add_argument("--cache-size", type=int, default=8 << 20,
                        help="block cache bytes (db_bench's default, 8 MiB)")
    parser.add_argument("--write-buffer-size", type=int, default=64 << 20)
    parser.add_argument("--bloom-bits", type=int, default=10,
                        help="bloom filter bits per key; 0: none (db_bench's default)")
    parser.add_argument("--max-background-jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1,
                        help="db_bench's --seed (0 would draw it from the clock)")
    parser.add_argument("--db-bench-extra", action="append", default=[],
                        help="one more db_bench flag (repeatable), e.g. --db-bench-extra="
                             "--enable_pipelined_write=true to see what it changes")
    parser.add_argument("--max-foreign", type=float, default=0.3,
                        help="cores other processes may use before and during a run")
    parser.add_argument("--max-wait", type=float, default=600,
                        help="seconds to wait for quiet before a run")
    parser.add_argument("--nice", type=int, default=0,
                        help="run both tools under nice -n NICE (negative needs root): on a "
                             "machine others keep busy, -10 lets them have the cores first")
    parser.add_argument("--reruns", type=int, default=5,
                        help="times a disturbed round is run again before it is kept")
    parser.add_argument("--work-dir", default=None, help="parent of the temporary directory")
    parser.add_argument("--json", help="also write every round's figures here")
    args = parser.parse_args()
    args.db_bench_extra = DB_BENCH_AS_ROCKSDB + args.db_bench_extra
    benchmarks = [b.strip() for b in args.benchmarks.split(",") if b.strip()]
    unknown = [b for b in benchmarks if b not in BENCHMARKS]
    if unknown or not benchmarks:
        fail(f"unknown benchmark {', '.join(unknown) or '(none)'} "
             f"(known: {', '.join(BENCHMARKS)})")
    args.benchmarks = [b for b in BENCHMARKS if b in benchmarks]  # db_bench's order
    try:
        args.threads = [int(t) for t in args.threads.split(",")]
    except ValueError:
        fail(f"--threads \"{args.threads}\" is not a list of numbers such as 1,2")
    if any(t < 1 or t > 64 for t in args.threads):
        fail("--threads: each count must be 1 to 64")
    if args.rounds < 1 or args.num < 1 or args.value_size < 1 or args.readseq_passes < 1:
        fail("--rounds, --num, --value-size and --readseq-passes must be at least 1")
    if shutil.which(args.db_bench) is None:
        fail(f"no {args.db_bench}: install Debian's rocksdb-tools (scripts/setup.sh does)")
    return args


# Where db_bench's defaults differ from RocksDB's Options, which our plugin keeps, these
# flags give db_bench RocksDB's (found by comparing the OPTIONS files both write). Only
# enable_pipelined_write matters here; the others are set so that the two OPTIONS files
# differ in nothing that can change a figure.
DB_BENCH_AS_ROCKSDB = [
    "--enable_pipelined_write=false",               # db_bench: true
    "--delayed_write_rate=16777216",                # db_bench: 8 MiB/s (only in a stall)
    "--table_cache_numshardbits=6",                 # db_bench: 4
    "--hard_pending_compaction_bytes_limit=274877906944",  # db_bench: 128 GiB
    "--index_shortening_mode=1",                    # db_bench: 2 (separators and successor)
    "--pin_top_level_index_and_filter=true",        # db_bench: false (partitioned only)
    "--dump_malloc_stats=false",                    # db_bench: true (its LOG only)
]


def print_pooled(paths):
    """Every round of the --json files given, pooled per thread count and benchmark."""
    pooled, disturbed, setups = {}, 0, {}
    for path in paths:
        try:
            with open(path) as f:
                document = json.load(f)
            tables, setup = document["tables"], document["setup"]
        except (OSError, ValueError, KeyError, TypeError) as error:
            fail(f"--pool {path}: not a --json file of this script ({error})")
        # Rounds, thread counts and readseq passes may differ; the work may not.
        same = {k: v for k, v in setup.items()
                if k not in ("rounds", "readseq_passes", "benchmarks", "nice")}
        for key, value in same.items():
            first = setups.setdefault(key, (path, value))
            if first[1] != value:
                fail(f"--pool: {path} has {key} {value}, {first[0]} has {first[1]}: "
                     f"rounds of different work do not pool")
        for table in tables:
            for r in table["rounds"]:
                disturbed += 1 if r.get("disturbed") else 0
                for bench in BENCHMARKS:
                    if bench in r["ours"]["steps"] and bench in r["db_bench"]["steps"]:
                        pooled.setdefault((table["threads"], bench), []).append(
                            ratio(r, bench))
    print(f"ours/db_bench over every round of {len(paths)} files"
          + (f" ({disturbed} rounds marked disturbed by other processes)" if disturbed else ""))
    for threads in sorted({t for t, _ in pooled}):
        print()
        print(f"threads {threads}")
        print()
        print("| benchmark | rounds | mean | median | min..max |")
        print("|---|---|---|---|---|")
        for bench in BENCHMARKS:
            ratios = pooled.get((threads, bench))
            if ratios:
                print(f"| {bench} | {len(ratios)} | {statistics.fmean(ratios):.3f} | "
                      f"{statistics.median(ratios):.3f} | {min(ratios):.3f}..{max(ratios):.3f} |")


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--pool":
        if len(sys.argv) < 3:
            fail("--pool needs one or more --json files")
        print_pooled(sys.argv[2:])
        return
    args = parse_args()
    if args.rounds == 1:
        print("db-bench-peer: one round gives one ratio per benchmark, and one ratio cannot "
              "tell noise from a difference; use --rounds=3 or more", file=sys.stderr)
    tmp = tempfile.mkdtemp(prefix="storh-db-bench-peer-", dir=args.work_dir)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(130))
    tables = []
    try:
        for threads in args.threads:
            rounds = []
            for r in range(args.rounds):
                for attempt in range(args.reruns + 1):
                    figures = one_round(args, threads, args.benchmarks, r, tmp)
                    foreign = max(f["host"]["foreign_cores"] for f in figures.values())
                    figures["disturbed"] = foreign >= args.max_foreign
                    figures["attempt"] = attempt + 1
                    summary = ", ".join(f"{b} {ratio(figures, b):.3f}" for b in args.benchmarks)
                    print(f"  threads {threads} round {r + 1}: ours/db_bench {summary}; "
                          f"others used {foreign:.2f} cores", file=sys.stderr)
                    if not figures["disturbed"]:
                        break
                    if attempt < args.reruns:
                        print("  (disturbed: running the round again)", file=sys.stderr)
                    else:
                        print("  (disturbed every time: kept, marked disturbed)", file=sys.stderr)
                rounds.append(figures)
            tables.append((threads, rounds))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print_tables(args, tables)
    if args.json:
        setup = {k: getattr(args, k) for k in ("num", "value_size", "compression", "cache_size",
                                               "write_buffer_size", "bloom_bits",
                                               "max_background_jobs", "seed", "rounds",
                                               "readseq_passes",
                                               "benchmarks", "db_bench_extra", "nice")}
        with open(args.json, "w") as f:
            json.dump({"setup": setup, "db_bench_version": db_bench_version(args),
                       "tables": [{"threads": t, "rounds": r} for t, r in tables]}, f, indent=1)


def db_bench_version(args):
    out = subprocess.run([args.db_bench, "--version"], capture_output=True, text=True)
    return (out.stdout + out.stderr).strip()


def print_tables(args, tables):
    print(f"db_bench and storh-host's rocksdb plugin: num {args.num}, key 16 B, value "
          f"{args.value_size} B, compression {args.compression}, cache {args.cache_size} B, "
          f"write buffer {args.write_buffer_size} B, bloom bits {args.bloom_bits}, "
          f"{args.max_background_jobs} background jobs, WAL on, no sync, readseq "
          f"{args.readseq_passes} passes; {args.rounds} rounds each")
    for threads, rounds in tables:
        disturbed = sum(1 for r in rounds if r["disturbed"])
        print()
        print(f"threads {threads}" + (f" ({disturbed} rounds disturbed by other processes)"
                                     if disturbed else ""))
        print()
        print("| benchmark | db_bench ops/s | ours ops/s | ours/db_bench (min..max) "
              "| db_bench micros/op | ours micros/op |")
        print("|---|---|---|---|---|---|")
        for bench in args.benchmarks:
            theirs = [r["db_bench"]["steps"][bench] for r in rounds]
            ours = [r["ours"]["steps"][bench] for r in rounds]
            ratios = [o["ops_per_sec"] / t["ops_per_sec"] for o, t in zip(ours, theirs)]
            spread = (f"({min(ratios):.3f}..{max(ratios):.3f})" if len(ratios) > 1
                      else "(one round)")

            def mean(values, key):
                return statistics.fmean(v[key] for v in values)
            print(f"| {bench} | {mean(theirs, 'ops_per_sec'):,.0f} | "
                  f"{mean(ours, 'ops_per_sec'):,.0f} | {statistics.fmean(ratios):.3f} {spread} | "
                  f"{mean(theirs, 'micros_per_op'):.3f} | {mean(ours, 'micros_per_op'):.3f} |")


if __name__ == "__main__":
    main()
