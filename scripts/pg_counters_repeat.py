#!/usr/bin/env python3
"""Which of PostgreSQL's engine counters repeat: runs of one seed, compared.

Usage: pg_counters_repeat.py --host=build/storh-host [--plugin-path=DIR]
                             [--transactions=500] [--seed=7] [--scale=1]
                             [--workloads=tpcb_like,simple_update,select_only]
                             [--runs=2] [--prefix=pg.stmt.] [--query-mode=simple]
                             [--keep=DIR]

Runs one load suite --runs times (each cell on its own throwaway server, as `server =
"local"` does, which preloads pg_stat_statements), at 1 client with one random seed,
and prints one row per engine counter (docs/counters.md, "Engine counters"), or per
counter whose name starts with --prefix (pg.stmt.: the per-statement ones): its value
per transaction in each run for every workload, and whether the runs agreed exactly
for all of them. The plugin's `repeats` flag is printed beside it, so a mismatch
between what the plugin claims and what was measured shows. Standard library only.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile


def run_suite(host, plugin_path, suite, output, work):
    args = [host, suite, "--output=" + output, "--work-dir=" + work]
    if plugin_path:
        args.append("--plugin-path=" + plugin_path)
    done = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        sys.exit(f"storh-host failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    with open(output) as f:
        return json.load(f)


def counters(result):
    out = {}
    for metric in result["metrics"]:
        out[metric["operation"]] = metric.get("engine_counters", {})
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--host", required=True)
    p.add_argument("--plugin-path", default="")
    p.add_argument("--transactions", type=int, default=500)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--scale", type=int, default=1)
    p.add_argument("--workloads", default="tpcb_like,simple_update,select_only")
    p.add_argument("--runs", type=int, default=2)
    p.add_argument("--prefix", default="", help="only counters whose name starts so")
    p.add_argument("--query-mode", default="simple", help="simple, extended or prepared")
    p.add_argument("--keep", default="", help="keep the suite and result files here")
    a = p.parse_args()
    if a.runs < 2:
        sys.exit("--runs: at least 2")
    workloads = a.workloads.split(",")
    with tempfile.TemporaryDirectory() as tmp:
        # The server runs as the postgres user, which must get through to its directory.
        os.chmod(tmp, 0o755)
        base = a.keep or tmp
        os.makedirs(base, exist_ok=True)
        suite = os.path.join(base, "pg-counters.toml")
        with open(suite, "w") as f:
            f.write('name = "pg-counters"\ntimeout = "600s"\n[load]\nprogress = 0\n'
                    f"clients = 1\ntransactions = {a.transactions}\n[engines.pg]\n"
                    f"operations = {json.dumps(workloads)}\n"
                    f"params = {{ random_seed = {a.seed}, scale = {a.scale}, "
                    f"query_mode = {json.dumps(a.query_mode)} }}\n")
        runs = [counters(run_suite(a.host, a.plugin_path, suite,
                                   os.path.join(base, f"run{i}.json"),
                                   os.path.join(tmp, f"work{i}")))
                for i in range(1, a.runs + 1)]
    names = sorted({n for run in runs for w in run.values() for n in w
                    if n.startswith(a.prefix)})
    order = " / ".join(str(i) for i in range(1, a.runs + 1))
    header = ["counter", "plugin says"] + [f"{w} ({order})" for w in workloads] + ["measured"]
    rows = []
    for name in names:
        claimed = {run[w][name]["repeats"] for run in runs for w in workloads
                   if name in run.get(w, {})}
        cells, same = [], True
        for w in workloads:
            values = [run.get(w, {}).get(name, {}).get("per_item") for run in runs]
            same = same and all(v == values[0] for v in values)
            if all(v is None for v in values):
                cells.append("-")
            elif all(v == values[0] for v in values):
                cells.append(f"{values[0]:.6g}")  # one value: every run agreed
            else:
                cells.append(" / ".join("-" if v is None else f"{v:.6g}" for v in values))
        rows.append([name, "repeats" if claimed == {True} else "varies"] + cells +
                    ["repeats" if same else "varies"])
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for row in rows:
        print("| " + " | ".join(row) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
