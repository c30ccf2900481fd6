"""pgbench-peer's tps ratio, storh-host / pgbench, for both of its modes.

pgbench_peer.py (the built-in transactions) and pgbench_peer_scripts.py (--script) keep
a point's rounds alike, [{"pgbench": {"tps": ...}, "ours": {"tps": ...}}, ...], and print
the same table cell from them: the mean of the rounds' ratios and their min..max.
"""
import statistics


def tps_ratios(rounds):
    """Each round's storh-host tps / pgbench tps, in round order."""
    return [r["ours"]["tps"] / r["pgbench"]["tps"] for r in rounds]


def ratio_cell(rounds):
    """ "1.012 (0.990..1.030)": the mean of the rounds' ratios, then their spread (one
    round has none)."""
    ratios = tps_ratios(rounds)
    spread = (f"({min(ratios):.3f}..{max(ratios):.3f})" if len(ratios) > 1
              else "(one round: no spread)")
    return f"{statistics.fmean(ratios):.3f} {spread}"
