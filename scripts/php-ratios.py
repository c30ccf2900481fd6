#!/usr/bin/env python3
"""Speed against storh PHP, measured in one session: ratio = PHP seconds / our seconds.

    scripts/php-ratios.py PHP_BEFORE.json OURS.json PHP_AFTER.json [--floors] [--bounds]

Both PHP files are the output of storh PHP's own harness (bench.php, docs/speed-vs-php.md), run
just before and just after ours on the same machine; the PHP time of a metric is the median
of the two runs (for two runs: their mean). OURS.json is a storh-host result file; its
`results.<engine>.<operation>` holds the median seconds of its repeats. Prints one line per
metric, grouped in the classes of docs/speed-vs-php.md, and each class's geometric mean; with --floors
also each engine operation against its same-run floor operation (both per item, the ratio
taken per repeat, as the two ran in the same worker process, then its median). With
--bounds, each read whose system calls are a whole number of a same-run floor's items
(a STAT read is one fstatat per record file it checks): PHP's time over that floor time,
the best ratio any engine that makes those calls could reach, and what the other reads
would need for the class to reach a given geometric mean; then the same for the
maintenance operations with a floor (doc.delete's unlinks, the mirror's SQL alone).

Only the standard library: this is a reading aid for people, not part of the build.
"""
import json
import math
import sys

# The class of every storh metric (engine.operation). Everything not listed is a read.
CLASSES = {
    "bulk durable": [
        "doc.bulk_put", "doc.jsonl_import", "log.bulk_append", "queue.bulk_enqueue",
        "queue.bulk_claim", "queue.bulk_complete", "queue.requeue",
    ],
    "durable maintenance": [
        "doc.delete", "doc.index_build", "log.compact", "log.bulk_compact", "recovery.recover",
        "mirror.push", "mirror.reconcile", "mirror.flush", "mirror.rebuild",
    ],
    "durable single writes": [
        "doc.put", "log.append", "queue.enqueue", "queue.claim", "queue.complete",
    ],
    "CPU": [
        "uuid.monotonic", "uuid.spread", "uuid.validate", "uuid.timestamp",
        "filter.record_equal", "filter.record_range", "filter.condition_equal",
    ],
}
ORDER = ["reads and queries", "bulk durable", "durable maintenance", "durable single writes", "CPU"]

# Same-run floors: (engine operation, floor operation), both in seconds per item; a floor
# written a+b is the sum of two floor operations of the same repeat.
FLOORS = [
    ("doc.put", "doc.put_floor"),
    ("doc.get", "doc.get_floor"),
    ("doc.bulk_put", "doc.bulk_floor"),
    ("doc.jsonl_import", "doc.bulk_floor"),
    ("doc.delete", "doc.delete_floor"),
    ("log.append", "log.append_floor+log.roll_floor"),
    ("log.bulk_append", "log.bulk_floor"),
    ("queue.enqueue", "queue.append_floor"),
    ("queue.bulk_enqueue", "queue.bulk_rows_floor"),
    ("queue.bulk_claim", "queue.bulk_floor"),
    ("queue.bulk_complete", "queue.bulk_floor"),
    ("cache.warm", "cache.stat_floor"),
    ("cache.cold", "cache.read_floor"),
    ("cache.cold", "cache.read_floor+cache.decode_floor"),
    ("mirror.query", "mirror.query_direct"),
    ("mirror.push", "mirror.push_direct"),
    ("mirror.rebuild", "mirror.push_direct"),
    ("mirror.flush", "mirror.flush_direct"),
]


# Reads bound by a floor: (metric, floor, number of floor items the read's system calls
# amount to, as a function of the dataset size n and d = min(100, n)). The doc scans
# revalidate every record file (STAT: one fstatat each; scan_floor is the readdir of
# every shard directory plus those fstatats); a doc get makes one fstatat per record
# (doc.get_floor: as many files, same worker, right after the gets; results older
# than that floor have none and print no bound for doc.get); an index query that
# returns k records makes k fstatats (the cache engine's stat_floor: one fstatat per
# file, shard directories open), plus an index file read, not counted, so the bound is
# generous.
BOUNDS = [
    ("doc.get", "doc.get_floor", lambda n, d: min(1000, n)),
    ("doc.stream", "doc.scan_floor", lambda n, d: n),
    ("doc.unindexed_first", "doc.scan_floor", lambda n, d: n),
    ("doc.unindexed_count", "doc.scan_floor", lambda n, d: n - d),
    ("doc.unindexed_limit_count", "doc.scan_floor", lambda n, d: n - d),
    ("doc.full", "doc.scan_floor", lambda n, d: n - d),
    ("doc.jsonl_export", "doc.scan_floor", lambda n, d: n),
    ("doc.indexed", "cache.stat_floor", lambda n, d: min(100, len(range(d + d % 2, n, 2)))),
    ("doc.indexed_first", "cache.stat_floor", lambda n, d: 1),
    ("doc.id_first", "cache.stat_floor", lambda n, d: 1),
    ("doc.id_filtered_first", "cache.stat_floor", lambda n, d: 1),
    ("doc.indexed_range", "cache.stat_floor", lambda n, d: len(range(max(d, 10), min(n, 201)))),
    ("doc.indexed_range_ordered", "cache.stat_floor", lambda n, d: min(100, n - d)),
    ("doc.indexed_range_ordered_first", "cache.stat_floor", lambda n, d: 1),
    ("doc.indexed_range_ordered_desc", "cache.stat_floor", lambda n, d: min(100, n - d)),
    ("doc.indexed_range_ordered_desc_first", "cache.stat_floor", lambda n, d: 1),
    ("cache.warm", "cache.stat_floor", lambda n, d: n),
    ("cache.cold", "cache.read_floor", lambda n, d: n),
    ("mirror.query", "mirror.query_direct", lambda n, d: 1),
]

# Maintenance bound the same way: doc.delete makes d unlinks and directory syncs
# (delete_floor); the mirror's writes are their SQL through a bare sqlite3 handle
# (push_direct: n INSERTs in one transaction, which a rebuild makes after its DELETE;
# flush_direct: d DELETE + INSERT pairs in one transaction).
MAINTENANCE_BOUNDS = [
    ("doc.delete", "doc.delete_floor", lambda n, d: d),
    ("mirror.push", "mirror.push_direct", lambda n, d: n),
    ("mirror.rebuild", "mirror.push_direct", lambda n, d: n),
    ("mirror.flush", "mirror.flush_direct", lambda n, d: d),
]

# The bulk writes bound the same way, by floors that make the same writes and syncs with
# no engine: doc.bulk_put and doc.jsonl_import write n records in batches (bulk_floor);
# queue.bulk_enqueue builds n rows and writes their lines in MiB chunks, one fdatasync
# (bulk_rows_floor). log.bulk_append has no floor; the queue's claims and completes write
# shorter lines than queue.bulk_floor's, and requeue has no floor: they count as measured.
BULK_BOUNDS = [
    ("doc.bulk_put", "doc.bulk_floor", lambda n, d: n),
    ("doc.jsonl_import", "doc.bulk_floor", lambda n, d: n),
    ("queue.bulk_enqueue", "queue.bulk_rows_floor", lambda n, d: n),
]


def class_of(metric):
    for name, members in CLASSES.items():
        if metric in members:
            return name
    return "reads and queries"


def flat(results):
    return {f"{e}.{op}": s for e, ops in results.items() if isinstance(ops, dict)
            for op, s in ops.items() if isinstance(s, (int, float)) and s > 0}


def per_item(doc, metric):
    """Seconds per item of one of our metrics, one value per repeat (None: not measured);
    for "a+b", the sum of a's and b's, repeat by repeat."""
    if "+" in metric:
        parts = [per_item(doc, part) for part in metric.split("+")]
        if any(not p or len(p) != len(parts[0]) for p in parts):
            return None
        return [sum(values) for values in zip(*parts)]
    engine, op = metric.split(".", 1)
    for m in doc.get("metrics", []):
        if m.get("engine") == engine and m.get("operation") == op:
            return [s["seconds"] / (s.get("items") or 1) for s in m.get("samples", [])]
    return None


def median(values):
    values = sorted(values)
    mid = len(values) // 2
    return values[mid] if len(values) % 2 else (values[mid - 1] + values[mid]) / 2


def main(argv):
    args = [a for a in argv if not a.startswith("--")]
    if len(args) != 3:
        sys.exit(__doc__)
    with open(args[0]) as f:
        before = flat(json.load(f)["results"])
    with open(args[1]) as f:
        ours_doc = json.load(f)
    with open(args[2]) as f:
        after = flat(json.load(f)["results"])
    ours = flat(ours_doc["results"])
    rows = {}
    for metric, php_a in before.items():
        if metric not in after or metric not in ours:
            continue
        php = (php_a + after[metric]) / 2
        rows.setdefault(class_of(metric), []).append((php / ours[metric], metric, php, ours[metric]))
    print(f"{'class':24} {'n':>3} {'geomean':>8}  weakest")
    for name in ORDER:
        got = sorted(rows.get(name, []))
        if not got:
            continue
        geo = math.exp(sum(math.log(r[0]) for r in got) / len(got))
        weakest = ", ".join(f"{m} {r:.2f}x" for r, m, _, _ in got[:5])
        print(f"{name:24} {len(got):3} {geo:7.2f}x  {weakest}")
    print()
    for name in ORDER:
        for ratio, metric, php, us in sorted(rows.get(name, [])):
            print(f"  {name[:10]:10} {metric:42} php {php:11.6f} s  ours {us:11.6f} s  {ratio:8.2f}x")
    if "--bounds" in argv:
        print_bounds(ours_doc, ours, rows.get("reads and queries", []), BOUNDS, "reads", 10.0)
        print_bounds(ours_doc, ours, rows.get("durable maintenance", []), MAINTENANCE_BOUNDS,
                     "maintenance", 4.0)
        print_bounds(ours_doc, ours, rows.get("bulk durable", []), BULK_BOUNDS, "bulk", 6.0)
    if "--floors" in argv:
        # A floor and its operation run in the same worker process, minutes apart at most;
        # file-create and fsync costs drift between repeats, so each repeat's ratio is
        # taken on its own and the median of those ratios is the figure.
        print("\nagainst same-run floors (per item, medians; ratio = median of per-repeat ratios):")
        for op, floor in FLOORS:
            a, b = per_item(ours_doc, op), per_item(ours_doc, floor)
            if a and b and len(a) == len(b):
                ratios = [x / y for x, y in zip(a, b)]
                spread = " ".join(f"{r:.2f}" for r in ratios)
                print(f"  {op:22} {median(a) * 1e6:10.3f} us  {floor:32} {median(b) * 1e6:10.3f} us"
                      f"  {median(ratios):6.2f}x  (repeats: {spread})")


def print_bounds(ours_doc, ours, reads, bounds, label, target):
    n = int(ours_doc.get("dataset") or 0)
    if n <= 0:
        print("\nbounds: the result file names no single dataset size")
        return
    d = min(100, n)
    php_of = {metric: php for _, metric, php, _ in reads}
    print(f"\n{label} against the floor of their system calls (n = {n}; best = PHP time / "
          "floor time, what an engine making only those calls would reach):")
    bound = {}
    for metric, floor, files in bounds:
        per_file = per_item(ours_doc, floor)
        if metric not in php_of or metric not in ours or not per_file:
            continue
        floor_s = median(per_file) * files(n, d)
        bound[metric] = php_of[metric] / floor_s
        print(f"  {metric:38} php {php_of[metric] * 1e6:11.1f} us  floor {floor_s * 1e6:11.1f} us"
              f"  ({files(n, d)} x {floor})  best {bound[metric]:6.2f}x"
              f"  ours {php_of[metric] / ours[metric]:6.2f}x")
    if not bound or not reads:
        return
    others = [r for r, metric, _, _ in reads if metric not in bound]
    log_bound = sum(math.log(b) for b in bound.values())
    at_floor = math.exp((log_bound + sum(math.log(r) for r in others)) / len(reads))
    needed = math.exp((len(reads) * math.log(target) - log_bound) / max(1, len(others)))
    now = math.exp(sum(map(math.log, others)) / len(others)) if others else float("nan")
    print(f"  the {len(bound)} bound {label} at their floors, the other {len(others)} as measured:"
          f" {label} geomean {at_floor:.2f}x; for {target:g}x the other {len(others)} would need a"
          f" geomean of {needed:.2f}x (now {now:.2f}x)")
    print(f"  bound {label} whose best is under 3x: "
          + (", ".join(f"{m} {b:.2f}x" for m, b in sorted(bound.items(), key=lambda x: x[1])
                       if b < 3) or "none"))


if __name__ == "__main__":
    main(sys.argv[1:])
