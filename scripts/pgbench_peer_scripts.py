"""pgbench-peer's scripts mode: pgbench -f and storh-host's `custom` transaction.

scripts/pgbench_peer.py calls run() when it is given --script. On one throwaway server
(pgbench_peer.Server), for each client count, each round runs both tools, the order
alternating from round to round, with the same scripts and weights, seed, clients,
transactions per client, query mode and -D variables:

  pgbench      pgbench -i -s SCALE (untimed), then
               pgbench -n -c C -j C -t T -M MODE -f FILE@W ... -D N=V --random-seed=SEED -r
  storh-host   a one-cell suite of the pg `custom` transaction (pg.server = dsn, the
               scripts as pg.scripts, statement_latencies = true, no warm-up): its cell
               loads the same tables into a database of its own, untimed

With --server-cpus and --client-cpus, the server and both tools are pinned as in
pgbench_peer.py. Both time every command (pgbench -r), so both pay for it. Printed per client count:
each tool's mean tps without connection set-up, the ratio storh-host / pgbench (mean of
the rounds' ratios, with min..max), and the client side's CPU time per transaction;
then per script command the mean latency both ways (pgbench's -r block parsed, ours from
the result file's "statements"), and their ratio.
"""
import json
import os
import re
import statistics
import subprocess
import sys

from pgbench_peer_pinning import pinned, pinning_title
from pgbench_peer_ratio import ratio_cell

LATENCY_LINE = re.compile(r"^\s+(-?[0-9.]+)\s+(\d+)(?:\s+(\d+))?\s+(\S.*)$")


def parse_script_arg(text):
    """FILE[@W] -> (absolute file, weight), split at the last '@' as pgbench splits it."""
    path, weight = text, 1
    if "@" in text:
        path, _, w = text.rpartition("@")
        if not w.isdigit():
            sys.exit(f"pgbench-peer: --script={text}: the weight after '@' must be a number")
        weight = int(w)
    if not os.path.isfile(path):
        sys.exit(f"pgbench-peer: --script={text}: no such file")
    return os.path.abspath(path), weight


def parse_statements(out):
    """pgbench -r's blocks: a list per script of (latency ms, failures, retries, command)."""
    scripts, current, reading = [], None, False
    for line in out.splitlines():
        if re.match(r"^SQL script \d+:", line):
            current = []
            scripts.append(current)
            reading = False
            continue
        if "statement latencies in milliseconds" in line:
            if current is None:  # one script: no "SQL script" heading
                current = []
                scripts.append(current)
            reading = True
            continue
        if reading:
            match = LATENCY_LINE.match(line)
            if not match:
                reading = False
                continue
            current.append((float(match.group(1)), int(match.group(2)),
                            int(match.group(3) or 0), match.group(4)))
    return scripts


def run_pgbench(ctx, server, clients):
    args = ctx["args"]
    env = dict(os.environ, PGHOST=server.dir, PGPORT="5432", PGUSER="storh")
    cpu_before = ctx["cpu"]()
    pin = pinned(args.client_cpus)
    subprocess.run([f"{ctx['bindir']}/pgbench", "-i", "-q", "-s", str(args.scale), "postgres"],
                   env=env, check=True, capture_output=True, preexec_fn=pin)
    command = [f"{ctx['bindir']}/pgbench", "-n", "-r", "-c", str(clients), "-j", str(clients),
               "-t", str(args.transactions), "-M", args.mode, f"--random-seed={args.seed}"]
    for path, weight in ctx["scripts"]:
        command += ["-f", f"{path}@{weight}"]
    for define in args.define:
        command += ["-D", define]
    out = subprocess.run(command + ["postgres"], env=env, check=True, capture_output=True,
                         text=True, preexec_fn=pin).stdout
    tps = float(re.search(r"tps = ([0-9.]+) \(without initial connection time\)", out).group(1))
    statements = parse_statements(out)
    if len(statements) != len(ctx["scripts"]):
        sys.exit(f"pgbench-peer: found {len(statements)} statement blocks in pgbench's "
                 f"output, expected {len(ctx['scripts'])}:\n{out}")
    return {"tps": tps, "statements": statements,
            "cpu_per_tx": (ctx["cpu"]() - cpu_before) / (clients * args.transactions)}


def suite_text(args, server, scripts, clients):
    mix = ",".join(f"{path}@{weight}" for path, weight in scripts)
    variables = ";".join(args.define)
    return (f'name = "pgbench-peer-scripts"\ndatasets = [1]\nrepeat = 1\ntimeout = "30m"\n'
            f"[load]\nclients = [{clients}]\ntransactions = [{args.transactions}]\n"
            f'warmup = 0\nprogress = 0\nmode = "threads"\n'
            f'[engines.pg]\noperations = ["custom"]\n[engines.pg.params]\n'
            f'server = "dsn"\ndsn = {json.dumps(server.dsn())}\nscale = {args.scale}\n'
            f'query_mode = "{args.mode}"\nrandom_seed = {args.seed}\n'
            f"scripts = {json.dumps(mix)}\nvars = {json.dumps(variables)}\n"
            f"statement_latencies = true\n")


def run_ours(ctx, server, clients, workdir):
    args = ctx["args"]
    suite = os.path.join(workdir, "peer.toml")
    output = os.path.join(workdir, "ours.json")
    with open(suite, "w") as f:
        f.write(suite_text(args, server, ctx["scripts"], clients))
    cpu_before = ctx["cpu"]()
    done = subprocess.run([args.host, suite, f"--output={output}", f"--work-dir={workdir}"],
                          capture_output=True, text=True,
                          preexec_fn=pinned(args.client_cpus))
    if done.returncode != 0:
        sys.exit(f"pgbench-peer: storh-host failed ({done.returncode}):\n{done.stderr}")
    with open(output) as f:
        result = json.load(f)
    metric = next(m for m in result["metrics"] if m["operation"] == "custom")
    load = metric["load"]
    expected = clients * args.transactions
    if load["failed"] or load["processed"] != expected:
        sys.exit(f"pgbench-peer: storh-host processed {load['processed']} of {expected} "
                 f"({load['failed']} failed)")
    by_script = {}
    for row in load.get("statements", []):
        by_script.setdefault(row["script"], []).append(
            (row["mean"] * 1e3, row["failures"], row["retries"], row["command"]))
    return {"tps": load["tps_excluding_setup"], "statements": list(by_script.values()),
            "cpu_per_tx": (ctx["cpu"]() - cpu_before) / expected}


def run(args, bindir, server_class, children_cpu, workdir):
    """Runs every round; returns the JSON-ready rows, printing the tables."""
    ctx = {"args": args, "bindir": bindir, "cpu": children_cpu,
           "scripts": [parse_script_arg(s) for s in args.script]}
    clients_list = [int(c) for c in args.clients.split(",")]
    server = server_class(bindir, max(clients_list) + 10, args.server_cpus)
    points = []
    try:
        for clients in clients_list:
            rounds = []
            for r in range(args.rounds):
                order = ["pgbench", "ours"] if r % 2 == 0 else ["ours", "pgbench"]
                figures = {}
                for tool in order:
                    figures[tool] = (run_pgbench(ctx, server, clients) if tool == "pgbench"
                                     else run_ours(ctx, server, clients, workdir))
                rounds.append(figures)
                print(f"  {clients} client(s) round {r + 1}: pgbench "
                      f"{figures['pgbench']['tps']:.1f} tps, storh-host "
                      f"{figures['ours']['tps']:.1f} tps", file=sys.stderr)
            points.append({"clients": clients, "transactions": args.transactions,
                           "rounds": rounds})
    finally:
        server.stop()
    print_tables(args, ctx, points)
    return points


def print_tables(args, ctx, points):
    scripts = ctx["scripts"]
    names = ", ".join(f"{os.path.relpath(p)}@{w}" for p, w in scripts)
    print(f"pgbench -f and storh-host's custom transaction on one server: {names}; scale "
          f"{args.scale}, -M {args.mode}, seed {args.seed}, {args.transactions} transactions "
          f"per client, {args.rounds} rounds each, {pinning_title(args)}, both timing every "
          f"command (-r)")
    print()
    print("| clients | pgbench tps | storh-host tps | ours/pgbench (min..max) "
          "| client CPU per tx, pgbench / ours |")
    print("|---|---|---|---|---|")
    for point in points:
        theirs = [r["pgbench"] for r in point["rounds"]]
        ours = [r["ours"] for r in point["rounds"]]
        print(f"| {point['clients']} | {statistics.fmean(t['tps'] for t in theirs):.1f} | "
              f"{statistics.fmean(o['tps'] for o in ours):.1f} | "
              f"{ratio_cell(point['rounds'])} | "
              f"{statistics.fmean(t['cpu_per_tx'] for t in theirs) * 1e6:.1f} / "
              f"{statistics.fmean(o['cpu_per_tx'] for o in ours) * 1e6:.1f} us |")
    print()
    print("Per command, mean latency in ms over the rounds (pgbench -r's, and ours):")
    print()
    print("| clients | script | command | pgbench ms | storh-host ms | ours/pgbench |")
    print("|---|---|---|---|---|---|")
    for point in points:
        for s, (path, _) in enumerate(scripts):
            theirs = [r["pgbench"]["statements"][s] for r in point["rounds"]]
            ours = [r["ours"]["statements"][s] if s < len(r["ours"]["statements"]) else []
                    for r in point["rounds"]]
            for c, row in enumerate(theirs[0]):
                pg_ms = statistics.fmean(t[c][0] for t in theirs)
                our_values = [o[c][0] for o in ours if c < len(o)]
                our_ms = statistics.fmean(our_values) if our_values else float("nan")
                ratio = f"{our_ms / pg_ms:.3f}" if pg_ms > 0 else "-"
                command = row[3].replace("|", "\\|")
                print(f"| {point['clients']} | {os.path.basename(path)} | `{command}` | "
                      f"{pg_ms:.3f} | {our_ms:.3f} | {ratio} |")
