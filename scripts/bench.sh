#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine, builds storh-host and its plugins (Release), and
# runs a suite: suites/default.toml unless another is given. Extra arguments go to
# storh-host (e.g. --dataset=10000 --repeat=5).
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/setup.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DSTORH_BUILD_TESTS=OFF >/dev/null
cmake --build build -j"$(nproc)"
suite=suites/default.toml
if [[ $# -gt 0 && "$1" == *.toml ]]; then
  suite=$1
  shift
fi
exec ./build/storh-host "$suite" "$@"
