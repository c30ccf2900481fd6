"""pgbench-peer's tps ratio, storh-host / pgbench, for both of its modes.

pgbench_peer.py (the built-in transactions) and pgbench_peer_scripts.py (--script) keep
a point's rounds alike, [{"pgbench": {"tps": ...}, "ours": {"tps": ...}}, ...], and print
the same table cell from them: the mean of the rounds' ratios and their min..max.
"""
import math
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


# Student's t at 97.5 % for 1..30 degrees of freedom; above, the normal's 1.96.
_T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
         2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
         2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042]


def paired_cpu(rounds):
    """Client CPU per transaction, storh-host / pgbench, paired by round: (the geometric
    mean of the rounds' ratios, the low and high ends of its 95 % interval (t over the
    logs of the ratios), the rounds used: those with CPU above 0 in both tools), or None
    for fewer than two such rounds. A round's two runs alternate on one server, so
    pairing takes out what moves both (the machine's drift between rounds)."""
    logs = [math.log(r["ours"]["cpu_per_tx"] / r["pgbench"]["cpu_per_tx"]) for r in rounds
            if r["ours"]["cpu_per_tx"] > 0 and r["pgbench"]["cpu_per_tx"] > 0]
    if len(logs) < 2:
        return None
    mean = statistics.fmean(logs)
    t = _T975[len(logs) - 2] if len(logs) - 1 <= len(_T975) else 1.96
    half = t * statistics.stdev(logs) / math.sqrt(len(logs))
    return math.exp(mean), math.exp(mean - half), math.exp(mean + half), len(logs)
