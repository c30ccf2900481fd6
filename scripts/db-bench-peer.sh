#!/usr/bin/env bash
# RocksDB's db_bench (Debian's rocksdb-tools) as the yardstick for storh-host's rocksdb
# plugin (docs/ycsb.md, "db_bench beside"): alternating rounds of db_bench and
# storh-host with the same num, key and value sizes, threads, compression, cache and
# write-buffer options over db_bench's six core benchmarks, and one table per thread
# count: ops/s and micros/op both ways and their ratio with its spread.
#
#   scripts/db-bench-peer.sh [--num=1000000] [--value-size=100] [--threads=1,2]
#                            [--rounds=3] [--benchmarks=fillseq,fillrandom,...]
#                            [--compression=none|lz4|zstd|snappy] [--json=FILE]
#
# Sets up and builds first, as scripts/bench.sh does. The table goes to stdout.
set -euo pipefail
cd "$(dirname "$0")/.."

# Help answers before anything is installed or built, and --pool only reads files.
for arg in "$@"; do
  if [[ $arg == -h || $arg == --help ]]; then exec python3 scripts/db_bench_peer.py --help; fi
done
if [[ ${1:-} == --pool ]]; then exec python3 scripts/db_bench_peer.py "$@"; fi

source scripts/build_common.sh
storh_release_build
exec python3 scripts/db_bench_peer.py --host=build/storh-host "$@"
