#!/usr/bin/env python3
"""Speed against storh PHP, measured in one session: ratio = PHP seconds / our seconds.

    scripts/php-ratios.py PHP_BEFORE.json OURS.json PHP_AFTER.json [--floors]

Both PHP files come from ../shared/tools/storh-php-bench (storh's bench.php output), run
just before and just after ours on the same machine; the PHP time of a metric is the median
of the two runs (for two runs: their mean). OURS.json is a storh-host result file; its
`results.<engine>.<operation>` holds the median seconds of its repeats. Prints one line per
metric, grouped in the classes of issue 18, and each class's geometric mean; with --floors
also each engine operation against its same-run floor operation (both per item, the ratio
taken per repeat, as the two ran in the same worker process, then its median).

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

# Same-run floors: (engine operation, floor operation), both in seconds per item.
FLOORS = [
    ("doc.put", "doc.put_floor"),
    ("doc.bulk_put", "doc.bulk_floor"),
    ("doc.jsonl_import", "doc.bulk_floor"),
    ("doc.delete", "doc.delete_floor"),
    ("log.append", "log.append_floor"),
    ("log.bulk_append", "log.bulk_floor"),
    ("queue.enqueue", "queue.append_floor"),
    ("queue.bulk_enqueue", "queue.bulk_floor"),
    ("queue.bulk_claim", "queue.bulk_floor"),
    ("queue.bulk_complete", "queue.bulk_floor"),
    ("cache.warm", "cache.stat_floor"),
    ("cache.cold", "cache.read_floor"),
    ("mirror.query", "mirror.query_direct"),
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
    """Seconds per item of one of our metrics, one value per repeat (None: not measured)."""
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
                print(f"  {op:22} {median(a) * 1e6:10.3f} us  {floor:22} {median(b) * 1e6:10.3f} us"
                      f"  {median(ratios):6.2f}x  (repeats: {spread})")


if __name__ == "__main__":
    main(sys.argv[1:])
