#!/usr/bin/env python3
"""pgbench and storh-host's pg load, side by side on one PostgreSQL server.

Run through scripts/pgbench-peer.sh (which sets up and builds first). One throwaway
cluster is made (initdb once, listening only on a Unix socket in a temporary directory)
and removed at the end, also on Ctrl-C. At each point (script, clients C, transactions
per client T), each round runs both tools, the order alternating from round to round:

  pgbench      pgbench -i -s SCALE (untimed), then
               pgbench -n -c C -j C -t T -M MODE [-N|-S] -l  (one thread per client)
  storh-host   storh-host run --engine=pg --operation=SCRIPT --clients=C --transactions=T
               on the same server (pg.server=dsn): its cell loads the same tables into
               a database of its own, untimed, then runs one thread and one connection
               per client

With --script=FILE[@W] (repeatable), the scripts mode instead (pgbench_peer_scripts.py):
pgbench -f FILE@W ... -r beside storh-host's `custom` transaction with the same scripts,
seed, clients (--clients=1,4), transactions and -D variables, and each script command's
latency both ways.

With --server-cpus=LIST and --client-cpus=LIST (taskset's lists: 0, 1, 0-3,6), the
server is started on the first CPUs (its backends inherit them) and both tools' processes
(pgbench -i and pgbench; storh-host and its workers) run on the second, as pgbench's docs
advise a client on another machine than the server. Default: no pinning.

Both start from freshly loaded tables, and neither vacuums before its timed phase.
Printed per point: each tool's mean tps without connection set-up, the ratio
storh-host / pgbench (the mean of the rounds' ratios, with min..max), and latency p50 and
p99 (pgbench's from its per-transaction log, storh-host's from its result file), the
difference of the mean latencies, and the client side's CPU time per transaction (user +
system of the client processes: pgbench -i and pgbench; storh-host, its worker and the
cell's own table load, plus the start of two processes and the plugin), and the
checkpoints the server began during each tool's runs (pg_stat_bgwriter; a whole run,
its table load included; the JSON also has the WAL bytes per transaction). A second
table pairs the client CPU round by round: the geometric mean of the rounds' ratios
storh-host / pgbench with its 95 % interval, which the machine's drift between rounds
(both tools' runs move together) does not widen as it does the means.

When --points has one script and client count at two or more transaction counts
(select_only:8/500,select_only:8/2500), a third table splits each tool's client CPU
into a cost per transaction and a fixed cost per run (start, table load, connections):
the least-squares line of a run's CPU seconds against its transactions, over every
round of those points.
"""
import argparse
import json
import os
import pwd
import re
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

from pgbench_peer_pinning import parse_cpu_list, pinned, pinning_title
from pgbench_peer_ratio import paired_cpu, ratio_cell

STUDY_POINTS = (
    "tpcb_like:10/100,tpcb_like:50/100,tpcb_like:100/100,"
    "tpcb_like:1/1000,tpcb_like:1/3000,tpcb_like:1/5000,"
    "tpcb_like:30/300,tpcb_like:50/500,"
    "select_only:10/100,select_only:30/300,select_only:50/500,"
    "select_only:1/20000"  # one client on a tiny table: the client's own cost shows
)
SCRIPT_FLAGS = {"tpcb_like": [], "simple_update": ["-N"], "select_only": ["-S"]}


def find_bindir():
    try:
        out = subprocess.run(["pg_config", "--bindir"], capture_output=True, text=True,
                             check=True).stdout.strip()
        if os.access(os.path.join(out, "pgbench"), os.X_OK):
            return out
    except (OSError, subprocess.CalledProcessError):
        pass
    versions = sorted((int(v) for v in os.listdir("/usr/lib/postgresql") if v.isdigit()),
                      reverse=True) if os.path.isdir("/usr/lib/postgresql") else []
    for v in versions:
        path = f"/usr/lib/postgresql/{v}/bin"
        if os.access(os.path.join(path, "pgbench"), os.X_OK):
            return path
    sys.exit("pgbench-peer: no PostgreSQL found: install Debian's postgresql-15 "
             "(scripts/setup.sh does)")


class Server:
    """initdb + postgres on a Unix socket in a temporary directory; as `postgres` for root.
    With `cpus`, both run on those CPUs, and so every backend the server forks."""

    def __init__(self, bindir, max_connections, cpus=None):
        self.dir = tempfile.mkdtemp(prefix="storh-peer-")
        self.proc = None
        demote = None
        if os.geteuid() == 0:
            user = pwd.getpwnam("postgres")
            os.chown(self.dir, user.pw_uid, user.pw_gid)

            def demote():
                os.setgroups([])
                os.setgid(user.pw_gid)
                os.setuid(user.pw_uid)
        demote = pinned(cpus, demote)
        data = os.path.join(self.dir, "data")
        log = open(os.path.join(self.dir, "server.log"), "ab")
        subprocess.run([f"{bindir}/initdb", "-D", data, "-U", "storh", "--auth=trust",
                        "-E", "UTF8", "--locale=C", "--no-sync", "--no-instructions"],
                       stdout=log, stderr=log, check=True, preexec_fn=demote)
        self.proc = subprocess.Popen(
            [f"{bindir}/postgres", "-D", data, "-k", self.dir, "-p", "5432",
             "-c", "listen_addresses=", "-c", f"max_connections={max_connections}"],
            stdout=log, stderr=log, preexec_fn=demote, start_new_session=True)
        deadline = time.time() + 60
        while subprocess.run([f"{bindir}/pg_isready", "-q", "-h", self.dir, "-p", "5432"]
                             ).returncode != 0:
            if self.proc.poll() is not None or time.time() > deadline:
                self.stop()
                sys.exit("pgbench-peer: the server did not start; see its log above")
            time.sleep(0.05)

    def dsn(self, dbname="postgres"):
        return f"host={self.dir} port=5432 user=storh dbname={dbname}"

    def activity(self, bindir):
        """Checkpoints begun and WAL bytes written so far, server-wide (psql)."""
        out = subprocess.run(
            [f"{bindir}/psql", "-X", "-At", "-d", self.dsn(), "-c",
             "SELECT checkpoints_timed + checkpoints_req, "
             "pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint FROM pg_stat_bgwriter"],
            capture_output=True, text=True, check=True).stdout.strip().split("|")
        return {"checkpoints": int(out[0]), "wal_bytes": int(out[1])}

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)  # fast shutdown
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


def percentile(sorted_values, q):
    if not sorted_values:
        return float("nan")
    index = min(len(sorted_values) - 1, max(0, int(round(q * len(sorted_values) + 0.5)) - 1))
    return sorted_values[index]


def children_cpu():
    """CPU seconds (user + system) of every finished child process and its descendants."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_pgbench(bindir, server, args, script, clients, transactions, logdir):
    env = dict(os.environ, PGHOST=server.dir, PGPORT="5432", PGUSER="storh")
    cpu_before = children_cpu()
    subprocess.run([f"{bindir}/pgbench", "-i", "-q", "-s", str(args.scale), "postgres"],
                   env=env, check=True, capture_output=True, preexec_fn=pinned(args.client_cpus))
    for name in os.listdir(logdir):
        os.unlink(os.path.join(logdir, name))
    prefix = os.path.join(logdir, "tx")
    log_flags = [] if args.no_pgbench_log else ["-l", f"--log-prefix={prefix}"]
    out = subprocess.run(
        [f"{bindir}/pgbench", "-n", "-c", str(clients), "-j", str(clients), "-t",
         str(transactions), "-M", args.mode, *SCRIPT_FLAGS[script], *log_flags, "postgres"],
        env=env, check=True, capture_output=True, text=True,
        preexec_fn=pinned(args.client_cpus)).stdout
    tps = float(re.search(r"tps = ([0-9.]+) \(without initial connection time\)", out).group(1))
    if args.no_pgbench_log:
        mean = float(re.search(r"latency average = ([0-9.]+) ms", out).group(1)) / 1e3
        return {"tps": tps, "p50": float("nan"), "p99": float("nan"), "mean": mean,
                "cpu_per_tx": (children_cpu() - cpu_before) / (clients * transactions)}
    latencies = []
    for name in os.listdir(logdir):
        with open(os.path.join(logdir, name)) as log:
            for line in log:
                fields = line.split()
                latencies.append(int(fields[2]) / 1e6)  # microseconds
    latencies.sort()
    if len(latencies) != clients * transactions:
        sys.exit(f"pgbench-peer: pgbench logged {len(latencies)} transactions, "
                 f"expected {clients * transactions}")
    return {"tps": tps, "p50": percentile(latencies, 0.5), "p99": percentile(latencies, 0.99),
            "mean": statistics.fmean(latencies),
            "cpu_per_tx": (children_cpu() - cpu_before) / (clients * transactions)}


def run_ours(args, server, script, clients, transactions, workdir):
    output = os.path.join(workdir, "ours.json")
    cpu_before = children_cpu()
    subprocess.run(
        [args.host, "run", "--engine=pg", f"--operation={script}", "--dataset=1",
         f"--clients={clients}", f"--transactions={transactions}", "--repeat=1",
         f"--output={output}", f"--work-dir={workdir}",
         "--set", "pg.server=dsn", "--set", f"pg.dsn={server.dsn()}",
         "--set", f"pg.scale={args.scale}", "--set", f"pg.query_mode={args.mode}"],
        check=True, capture_output=True, text=True, preexec_fn=pinned(args.client_cpus))
    with open(output) as f:
        result = json.load(f)
    metric = next(m for m in result["metrics"] if m["key"].startswith(f"pg.{script}["))
    load = metric["load"]
    if load["failed"] or load["processed"] != clients * transactions:
        sys.exit(f"pgbench-peer: storh-host processed {load['processed']} of "
                 f"{clients * transactions} ({load['failed']} failed)")
    latency = load["latency"]
    return {"tps": load["tps_excluding_setup"], "p50": latency["p50"],
            "p99": latency["p99"] if latency["p99"] is not None else latency["max"],
            "mean": latency["mean"],
            "cpu_per_tx": (children_cpu() - cpu_before) / (clients * transactions)}


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--host", default="build/storh-host")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--scale", type=int, default=1)
    parser.add_argument("--mode", choices=["simple", "prepared", "extended"], default="simple",
                        help="pgbench -M (extended: scripts mode only)")
    parser.add_argument("--points", default=STUDY_POINTS,
                        help="script:clients/transactions,... (default: the study's matrix)")
    parser.add_argument("--json", help="also write every round's figures here")
    parser.add_argument("--server-cpus", metavar="LIST",
                        help="run the server (and its backends) on these CPUs, a taskset list "
                             "such as 0 or 0-1 (default: no pinning)")
    parser.add_argument("--client-cpus", metavar="LIST",
                        help="run pgbench, storh-host and its workers on these CPUs "
                             "(default: no pinning)")
    scripts = parser.add_argument_group(
        "scripts mode", "pgbench -f beside storh-host's custom transaction (any --script "
        "selects it; --points is then unused)")
    scripts.add_argument("--script", action="append", default=[], metavar="FILE[@W]",
                         help="a pgbench script and its weight, as pgbench -f takes it "
                              "(repeatable)")
    scripts.add_argument("--clients", default="1,4", help="client counts (default 1,4)")
    scripts.add_argument("--transactions", type=int, default=2000,
                         help="transactions per client (default 2000)")
    scripts.add_argument("-D", "--define", action="append", default=[], metavar="NAME=VALUE",
                         help="a script variable, as pgbench -D (repeatable)")
    scripts.add_argument("--seed", type=int, default=7,
                         help="pgbench --random-seed and pg.random_seed (default 7)")
    parser.add_argument("--no-pgbench-log", action="store_true",
                        help="run pgbench without -l (its per-transaction log, which the "
                             "percentiles come from), to see what the log costs it")
    args = parser.parse_args()
    if args.rounds < 1:
        sys.exit("pgbench-peer: --rounds must be at least 1")
    for flag in ("server_cpus", "client_cpus"):
        if getattr(args, flag) is not None:
            setattr(args, flag, parse_cpu_list(getattr(args, flag), "--" + flag.replace("_", "-")))
    if args.server_cpus and args.client_cpus and set(args.server_cpus) & set(args.client_cpus):
        sys.exit(f"pgbench-peer: --server-cpus and --client-cpus share CPU "
                 f"{min(set(args.server_cpus) & set(args.client_cpus))}: pinning is for "
                 f"keeping the two apart")
    if args.rounds == 1:
        print("pgbench-peer: one round gives one ratio per point, and one ratio cannot tell "
              "noise from a difference; use --rounds=3 or more before reading a ratio",
              file=sys.stderr)
    if args.script:
        run_scripts(args)
        return
    if args.mode == "extended":
        sys.exit("pgbench-peer: -M extended is for scripts (--script); the built-ins run "
                 "simple or prepared")
    points = []
    for item in args.points.split(","):
        match = re.fullmatch(r"(tpcb_like|simple_update|select_only):(\d+)/(\d+)", item.strip())
        if not match:
            sys.exit(f"pgbench-peer: point \"{item}\" is not script:clients/transactions")
        points.append((match.group(1), int(match.group(2)), int(match.group(3))))
    bindir = find_bindir()
    max_clients = max(c for _, c, _ in points)
    server = Server(bindir, max_clients + 10, args.server_cpus)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(130))
    rows = []
    try:
        workdir = tempfile.mkdtemp(prefix="storh-peer-work-")
        logdir = os.path.join(workdir, "pgbench-log")
        os.mkdir(logdir)
        for script, clients, transactions in points:
            rounds = []
            for r in range(args.rounds):
                order = ["pgbench", "ours"] if r % 2 == 0 else ["ours", "pgbench"]
                figures = {}
                for tool in order:
                    before = server.activity(bindir)
                    if tool == "pgbench":
                        figures[tool] = run_pgbench(bindir, server, args, script, clients,
                                                    transactions, logdir)
                    else:
                        figures[tool] = run_ours(args, server, script, clients, transactions,
                                                 workdir)
                    after = server.activity(bindir)
                    # Of the whole tool run (its table load too), not only its timed part.
                    figures[tool]["checkpoints"] = after["checkpoints"] - before["checkpoints"]
                    figures[tool]["wal_per_tx"] = ((after["wal_bytes"] - before["wal_bytes"])
                                                   / (clients * transactions))
                rounds.append(figures)
                print(f"  {script} {clients}/{transactions} round {r + 1}: pgbench "
                      f"{figures['pgbench']['tps']:.1f} tps, storh-host "
                      f"{figures['ours']['tps']:.1f} tps", file=sys.stderr)
            rows.append((script, clients, transactions, rounds))
        shutil.rmtree(workdir, ignore_errors=True)
    finally:
        server.stop()
    print_table(args, rows)
    print_cpu_paired(rows)
    print_cpu_slopes(rows)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"scale": args.scale, "mode": args.mode, "rounds": args.rounds,
                       "server_cpus": args.server_cpus, "client_cpus": args.client_cpus,
                       "points": [{"script": s, "clients": c, "transactions": t, "rounds": r}
                                  for s, c, t, r in rows]}, f, indent=1)


def run_scripts(args):
    import pgbench_peer_scripts  # pylint: disable=import-outside-toplevel
    if not re.fullmatch(r"\d+(,\d+)*", args.clients) or args.transactions < 1:
        sys.exit("pgbench-peer: --clients is a list like 1,4 and --transactions at least 1")
    for define in args.define:
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=.*", define):
            sys.exit(f"pgbench-peer: -D {define}: expected NAME=VALUE")
    bindir = find_bindir()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(130))
    workdir = tempfile.mkdtemp(prefix="storh-peer-work-")
    try:
        points = pgbench_peer_scripts.run(args, bindir, Server, children_cpu, workdir)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"scale": args.scale, "mode": args.mode, "rounds": args.rounds,
                       "seed": args.seed, "defines": args.define,
                       "server_cpus": args.server_cpus, "client_cpus": args.client_cpus,
                       "scripts": args.script, "points": points}, f, indent=1)


def print_table(args, rows):
    print(f"pgbench and storh-host on one server: scale {args.scale}, -M {args.mode}, "
          f"{args.rounds} rounds each, {pinning_title(args)} (tps without connection set-up; "
          f"latency in ms)")
    print()
    print("| script | clients/tx | pgbench tps | storh-host tps | ours/pgbench (min..max) "
          "| pgbench p50 / p99 | storh-host p50 / p99 | mean latency ours - pgbench "
          "| client CPU per tx, pgbench / ours | checkpoints, pgbench / ours |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for script, clients, transactions, rounds in rows:
        theirs = [r["pgbench"] for r in rounds]
        ours = [r["ours"] for r in rounds]

        def mean(values, key):
            return statistics.fmean(v[key] for v in values)
        print(f"| {script} | {clients}/{transactions} | {mean(theirs, 'tps'):.1f} | "
              f"{mean(ours, 'tps'):.1f} | {ratio_cell(rounds)} | "
              f"{mean(theirs, 'p50') * 1e3:.3f} / {mean(theirs, 'p99') * 1e3:.3f} | "
              f"{mean(ours, 'p50') * 1e3:.3f} / {mean(ours, 'p99') * 1e3:.3f} | "
              f"{(mean(ours, 'mean') - mean(theirs, 'mean')) * 1e6:+.1f} us | "
              f"{mean(theirs, 'cpu_per_tx') * 1e6:.1f} / {mean(ours, 'cpu_per_tx') * 1e6:.1f} us | "
              f"{sum(t['checkpoints'] for t in theirs)} / {sum(o['checkpoints'] for o in ours)} |")


def print_cpu_paired(rows):
    paired = [(script, clients, transactions, rounds, paired_cpu(rounds))
              for script, clients, transactions, rounds in rows]
    if all(p is None for *_, p in paired):
        return
    print()
    print("Client CPU per transaction, storh-host / pgbench, paired by round: the geometric "
          "mean of the rounds' ratios with its 95 % interval (below 1: ours is lower)")
    print()
    print("| script | clients/tx | rounds | ours / pgbench | 95 % interval "
          "| rounds where ours is lower |")
    print("|---|---|---|---|---|---|")
    for script, clients, transactions, rounds, p in paired:
        if p is None:
            continue
        lower = sum(1 for r in rounds if r["ours"]["cpu_per_tx"] < r["pgbench"]["cpu_per_tx"])
        print(f"| {script} | {clients}/{transactions} | {p[3]} | {p[0]:.3f} | "
              f"{p[1]:.3f}..{p[2]:.3f} | {lower} of {len(rounds)} |")


def fit_line(points):
    """Least squares y = a + b x over (x, y) pairs: (a, b)."""
    xs = [x for x, _ in points]
    ys = [y for _, y in points]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    b = (sum((x - mx) * (y - my) for x, y in points)
         / sum((x - mx) ** 2 for x in xs))
    return my - b * mx, b


def print_cpu_slopes(rows):
    groups = {}
    for script, clients, transactions, rounds in rows:
        groups.setdefault((script, clients), []).append((transactions, rounds))
    groups = {k: v for k, v in groups.items() if len({t for t, _ in v}) >= 2}
    if not groups:
        return
    print()
    print("Client CPU split by the slope over transaction counts (least squares over every "
          "round): per transaction, and the fixed cost of a run")
    print()
    print("| script | clients | transactions per client | runs | CPU per tx, pgbench / ours "
          "| ours / pgbench | fixed CPU per run, pgbench / ours |")
    print("|---|---|---|---|---|---|---|")
    for (script, clients), entries in groups.items():
        fits = {}
        for tool in ("pgbench", "ours"):
            fits[tool] = fit_line([(clients * t, r[tool]["cpu_per_tx"] * clients * t)
                                   for t, rounds in entries for r in rounds])
        counts = "/".join(str(t) for t in sorted({t for t, _ in entries}))
        runs = sum(len(rounds) for _, rounds in entries)
        print(f"| {script} | {clients} | {counts} | {runs} | "
              f"{fits['pgbench'][1] * 1e6:.1f} / {fits['ours'][1] * 1e6:.1f} us | "
              f"{fits['ours'][1] / fits['pgbench'][1]:.3f} | "
              f"{fits['pgbench'][0] * 1e3:.0f} / {fits['ours'][0] * 1e3:.0f} ms |")


if __name__ == "__main__":
    main()
