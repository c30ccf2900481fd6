#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine, builds storh-host and its plugins (Release), and
# runs a suite: suites/default.toml unless another is given. Extra arguments go to
# storh-host (e.g. --dataset=10000 --repeat=5).
set -euo pipefail
cd "$(dirname "$0")/.."

source scripts/build_common.sh
storh_release_build
suite=suites/default.toml
if [[ $# -gt 0 && "$1" == *.toml ]]; then
  suite=$1
  shift
fi
exec ./build/storh-host "$suite" "$@"
