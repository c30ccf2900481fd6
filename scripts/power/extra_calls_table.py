#!/usr/bin/env python3
"""Tabulates scripts/power.sh's extra-call and A/A trials: per metric, how many runs
failed it on a counter and how many on wall time, for each case, and how many whole
runs failed.

    extra_calls_table.py CASE=RUN.out[,RUN.out...] ...

CASE is a column label ("A/A", "1 in 10", ...); each RUN.out is the text report of one
`storh-host ci --base` run, and RUN.out.code its exit status (0 passed, 1 regressed),
which decides whether the whole run failed. Standard library only.
"""
import re
import sys

# "uuid.validate instructions/item: base 143.2 head 165.5 (tolerance +1.00%) FAIL"
COUNTER_LINE = re.compile(r"^(\S+) (\S+)/item: base .* \(tolerance [^)]*\)( FAIL)?$")
# A metric's row of the verdict table: its key, figures, and a verdict that ends in
# FAIL when the metric failed ("REGRESSION confirmed FAIL").
TABLE_ROW = re.compile(r"^([a-z_]+\.[a-z_0-9]+)\s{2,}.*?(\bFAIL)?$")


def tally(paths):
    """{key: [counter fails, time fails]}, whole-run fails, trials, counters that fired."""
    per_key, runs_failed, fired = {}, 0, {}
    for path in paths:
        with open(path + ".code", encoding="utf-8") as f:
            code = f.read().strip()
        if code not in ("0", "1"):
            sys.exit(f"extra_calls_table: {path}: the run itself failed (exit {code})")
        runs_failed += code == "1"
        counted, timed = set(), set()
        with open(path, encoding="utf-8") as f:
            for line in f:
                line = line.rstrip("\n")
                if m := COUNTER_LINE.match(line):
                    per_key.setdefault(m[1], [0, 0])
                    if m[3]:
                        counted.add(m[1])
                        fired.setdefault(m[1], set()).add(m[2])
                elif m := TABLE_ROW.match(line):
                    per_key.setdefault(m[1], [0, 0])
                    if m[2]:
                        timed.add(m[1])
        for key in counted:
            per_key[key][0] += 1
        for key in timed - counted:  # a metric whose counter rose fails on that first
            per_key[key][1] += 1
    return per_key, runs_failed, len(paths), fired


def main(argv):
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    cases = []
    for arg in argv:
        label, _, files = arg.partition("=")
        paths = [p for p in files.split(",") if p]
        if not paths:
            print(f"extra_calls_table: no runs for {label!r}", file=sys.stderr)
            return 2
        cases.append((label, *tally(paths)))
    keys = sorted({k for case in cases for k in case[1]})
    header = ["metric"] + [f"{c[0]}: counter, time" for c in cases]
    rows = [header]
    for key in keys:
        row = [key]
        for _, per_key, _, trials, _ in cases:
            counter, time = per_key.get(key, [0, 0])
            row.append(f"{counter}/{trials}, {time}/{trials}")
        rows.append(row)
    rows.append(["(whole run failed)"] + [f"{c[2]}/{c[3]}" for c in cases])
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    for row in rows:
        print("  ".join(cell.ljust(widths[i]) if i == 0 else cell.rjust(widths[i])
                        for i, cell in enumerate(row)))
    for label, _, _, _, fired in cases:
        for key in sorted(fired):
            print(f"{label}: {key} failed on {', '.join(sorted(fired[key]))}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
