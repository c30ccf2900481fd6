#!/usr/bin/env bash
# Installs the Debian 12 packages storh-host builds against, only when one is missing.
# Safe to run again: it does nothing when everything is present.
#
#   scripts/setup.sh [--tests]
#
# --tests also installs what only the tests need: Debian's chromium, in which
# tests/browser/html_browser_test.sh renders the HTML pages, clang-tidy for
# scripts/lint.sh, and libbenchmark-dev, against which tests/fixtures/gbench/regenerate.sh
# builds the program that writes the Google Benchmark fixtures.
set -euo pipefail

packages=(
  build-essential cmake            # g++ 12, CMake 3.25
  ninja-build                      # scripts/test.sh builds with Ninja
  lld                              # LLVM's linker: the test builds link with it (build_common.sh)
  libboost-dev                     # Boost 1.74 headers, Boost.DLL included (header-only)
  libtomlplusplus-dev              # toml++ 3.3: suite files with source positions
  libfmt-dev                       # fmt 9: formatting of reports and messages
  catch2                           # Catch2 2.13: the test framework
  libxxhash-dev                    # xxHash 0.8: checksums and fingerprints
  libsqlite3-dev                   # SQLite 3.40: the mirror and sqlite engines
  libpq-dev                        # libpq: the pg engine's client library
  librocksdb-dev                   # RocksDB 7.8: the rocksdb engine (found with pkg-config)
  libleveldb-dev                   # LevelDB 1.23: the leveldb engine (built with snappy)
  liblmdb-dev                      # LMDB 0.9.24: the lmdb engine (found with pkg-config)
  liburing-dev                     # liburing 2.3: the doc store's NOTIFY bell (io_uring)
  python3                          # scripts/pgbench_peer.py and php-ratios.py (standard library only)
  postgresql-15                    # the server the pg engine starts, and pgbench (docs/pg.md)
  rocksdb-tools                    # RocksDB's db_bench: scripts/db-bench-peer.sh (docs/ycsb.md)
  nlohmann-json3-dev               # nlohmann-json 3.11: result files in and out
  clang-format                     # formatting check (.clang-format)
  valgrind                         # callgrind: the "instructions" counters (docs/counters.md)
  libjs-chart.js                   # Chart.js 3.9: inlined into HTML reports (docs/html-report.md)
)
if [[ ${1:-} == --tests ]]; then
  packages+=(chromium)             # headless browser for the HTML page tests
  packages+=(clang-tidy)           # scripts/lint.sh: .clang-tidy on the changed sources
  packages+=(libbenchmark-dev)     # Google Benchmark 1.7: tests/fixtures/gbench/regenerate.sh
elif [[ $# -gt 0 ]]; then
  echo "setup: unknown option \"$1\" (valid: --tests)" >&2
  exit 2
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  exit 0
fi

sudo_cmd=()
if [[ $(id -u) -ne 0 ]]; then sudo_cmd=(sudo); fi
echo "setup: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
