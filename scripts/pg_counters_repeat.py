#!/usr/bin/env python3
"""Which of PostgreSQL's engine counters repeat: two runs of one seed, compared.

Usage: pg_counters_repeat.py --host=build/storh-host [--plugin-path=DIR]
                             [--transactions=500] [--seed=7] [--scale=1]
                             [--workloads=tpcb_like,simple_update,select_only]
                             [--keep=DIR]

Runs one load suite twice (each cell on its own throwaway server, as `server =
"local"` does), at 1 client with one random seed, and prints one row per engine
counter (docs/counters.md, "Engine counters"): its value per transaction in each run
for every workload, and whether the two runs agreed exactly for all of them. The
plugin's `repeats` flag is printed beside it, so a mismatch between what the plugin
claims and what was measured shows. Standard library only.
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
    p.add_argument("--keep", default="", help="keep the suite and result files here")
    a = p.parse_args()
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
                    f"params = {{ random_seed = {a.seed}, scale = {a.scale} }}\n")
        runs = [counters(run_suite(a.host, a.plugin_path, suite,
                                   os.path.join(base, f"run{i}.json"),
                                   os.path.join(tmp, f"work{i}"))) for i in (1, 2)]
    names = sorted({n for run in runs for w in run.values() for n in w})
    header = ["counter", "plugin says"] + [f"{w} (1 / 2)" for w in workloads] + ["measured"]
    rows = []
    for name in names:
        claimed = {run[w][name]["repeats"] for run in runs for w in workloads if name in run[w]}
        cells, same = [], True
        for w in workloads:
            a1 = runs[0].get(w, {}).get(name, {}).get("per_item")
            a2 = runs[1].get(w, {}).get(name, {}).get("per_item")
            same = same and a1 == a2
            cells.append(f"{a1:.6g} / {a2:.6g}" if a1 is not None and a2 is not None else "-")
        rows.append([name, "repeats" if claimed == {True} else "varies"] + cells +
                    ["repeats" if same else "varies"])
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for row in rows:
        print("| " + " | ".join(row) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
