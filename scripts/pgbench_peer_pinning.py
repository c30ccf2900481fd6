"""pgbench-peer's CPU pinning: --server-cpus and --client-cpus, for both of its modes.

A list is taskset's ("1", "0,2", "0-3,6"). pinned() makes the preexec_fn that moves a
child process onto a list before it runs; its threads and children inherit it, so the
server's backends run where the server was started, and storh-host's worker where
storh-host was.
"""
import os
import re
import sys


def parse_cpu_list(text, flag):
    """A taskset-style CPU list ("1", "0,2", "0-3,6") -> a sorted list of CPU numbers, each
    one this process may run on."""
    cpus = set()
    for item in text.split(","):
        match = re.fullmatch(r"(\d+)(?:-(\d+))?", item.strip())
        if not match or (match.group(2) and int(match.group(2)) < int(match.group(1))):
            sys.exit(f"pgbench-peer: {flag}={text}: expected a CPU list like 0 or 0-3,6")
        cpus.update(range(int(match.group(1)), int(match.group(2) or match.group(1)) + 1))
    allowed = os.sched_getaffinity(0)
    if not cpus <= allowed:
        sys.exit(f"pgbench-peer: {flag}={text}: CPU {min(cpus - allowed)} is not one this "
                 f"process may use ({format_cpus(sorted(allowed))})")
    return sorted(cpus)


def format_cpus(cpus):
    """[0, 1, 2, 5] -> "0-2,5"."""
    parts, start = [], None
    for i, cpu in enumerate(cpus):
        if start is None:
            start = cpu
        if i + 1 == len(cpus) or cpus[i + 1] != cpu + 1:
            parts.append(str(start) if start == cpu else f"{start}-{cpu}")
            start = None
    return ",".join(parts)


def pinned(cpus, then=None):
    """A preexec_fn that moves the child onto `cpus` (None: leaves it where it is), then
    calls `then`; None when there is nothing to do. Children inherit the affinity."""
    if not cpus and then is None:
        return None

    def preexec():
        if cpus:
            os.sched_setaffinity(0, cpus)
        if then is not None:
            then()
    return preexec


def pinning_title(args):
    if not args.server_cpus and not args.client_cpus:
        return "no CPU pinning"
    return (f"server on CPUs {format_cpus(args.server_cpus) if args.server_cpus else 'any'}, "
            f"clients on CPUs {format_cpus(args.client_cpus) if args.client_cpus else 'any'}")
