#!/usr/bin/env python3
"""Compares the counters of two result files of one build, metric by metric.

Usage: compare_counts.py A.json B.json [--tolerance=0.5] [--all]

Prints every counter of every metric both files count whose relative difference
exceeds the tolerance (percent; --all prints every counter), and exits 1 if any
does. involuntary_switches depends on the machine's load and is never compared
(docs/counters.md); the other getrusage counters are listed, marked "rusage".
"""
import json
import sys

NOT_COMPARED = {"involuntary_switches"}
RUSAGE = {"minor_faults", "major_faults", "voluntary_switches"}


def counters_by_metric(path):
    with open(path) as f:
        result = json.load(f)
    out = {}
    for metric in result["metrics"]:
        key = metric["key"]
        if metric.get("params"):
            key += " " + ",".join(f"{k}={v}" for k, v in sorted(metric["params"].items()))
        out[key] = metric.get("counters") or {}
    return out


def relative_percent(a, b):
    if a == b:
        return 0.0
    return abs(a - b) / max(abs(a), abs(b)) * 100


def main(argv):
    paths = [a for a in argv if not a.startswith("--")]
    tolerance = 0.5
    show_all = "--all" in argv
    for a in argv:
        if a.startswith("--tolerance="):
            tolerance = float(a.split("=", 1)[1])
    if len(paths) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    first, second = (counters_by_metric(p) for p in paths)
    worst = 0.0
    failing = 0
    compared = 0
    for key in sorted(first.keys() & second.keys()):
        for name in sorted(first[key].keys() & second[key].keys()):
            if name in NOT_COMPARED:
                continue
            a, b = first[key][name], second[key][name]
            diff = relative_percent(a, b)
            compared += 1
            worst = max(worst, diff) if name not in RUSAGE else worst
            over = diff > tolerance
            if over and name not in RUSAGE:
                failing += 1
            if over or show_all:
                tag = " rusage" if name in RUSAGE else ""
                print(f"{key:48} {name:20} {a:14.6g} {b:14.6g} {diff:8.3f}%{tag}")
    only = sorted(first.keys() ^ second.keys())
    for key in only:
        print(f"{key}: in one file only")
    print(f"{compared} counters compared, {failing} differ by more than {tolerance}% "
          f"(largest {worst:.3f}%, rusage counters excluded)")
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
