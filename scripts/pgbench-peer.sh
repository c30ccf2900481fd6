#!/usr/bin/env bash
# pgbench as the yardstick for storh-host's pg load driver (docs/pg.md): one throwaway
# PostgreSQL server (initdb once, Unix socket only), then at every point of the pgbench
# study's matrix, several rounds of pgbench and storh-host alternating on that server,
# and one table: tps both ways, their ratio with its spread, latency p50/p99 both ways.
#
#   scripts/pgbench-peer.sh [--rounds=3] [--scale=1] [--mode=simple|prepared]
#                           [--points=tpcb_like:10/100,select_only:1/20000,...]
#                           [--json=FILE] [--no-pgbench-log]
#                           [--server-cpus=LIST] [--client-cpus=LIST]
#   scripts/pgbench-peer.sh --script=FILE[@W] [--script=...] [--clients=1,4]
#                           [--transactions=2000] [-D NAME=VALUE ...] [--seed=7]
#                           [--rounds=3] [--scale=1] [--mode=simple|prepared|extended]
#
# The second form runs pgbench -f FILE@W ... -r beside storh-host's `custom`
# transaction with the same scripts, seed, clients, transactions and variables, and
# prints both tps and both per-command latencies (docs/pg.md, "pgbench beside, for
# scripts").
#
# --server-cpus and --client-cpus (taskset lists: 0, 1,3, 0-2) pin the server and both
# tools to separate CPUs, in either form; default: no pinning.
#
# Sets up and builds first, as scripts/bench.sh does. The table goes to stdout.
set -euo pipefail
cd "$(dirname "$0")/.."

# Help and bad flags answer before anything is installed or built.
for arg in "$@"; do
  if [[ $arg == -h || $arg == --help ]]; then exec python3 scripts/pgbench_peer.py --help; fi
done

source scripts/build_common.sh
storh_release_build
exec python3 scripts/pgbench_peer.py --host=build/storh-host "$@"
