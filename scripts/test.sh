#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine, builds, and runs every test twice: a normal build
# (build-test/) and an AddressSanitizer + UndefinedBehaviorSanitizer build (build-asan/),
# then the concurrency tests under ThreadSanitizer (scripts/tsan.sh, build-tsan/).
# After the normal build, scripts/lint.sh checks formatting (every source) and runs
# clang-tidy on the sources the last commit changed (STORH_LINT_BASE to widen it).
# STORH_TEST_SANITIZE=0 skips the sanitizer builds for a quicker local loop;
# STORH_TEST_TSAN=0 skips only the ThreadSanitizer one.
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/setup.sh --tests
jobs=$(nproc)

run_suite() {  # <build dir> <cmake options...>
  local dir=$1
  shift
  cmake -S . -B "$dir" -DSTORH_BUILD_TESTS=ON -DSTORH_WARNINGS_AS_ERRORS=ON "$@" >/dev/null
  cmake --build "$dir" -j"$jobs"
  ctest --test-dir "$dir" -j"$jobs" --output-on-failure --timeout 600
}

# Release, as the benchmarks are built: the tests check the code that is measured, and
# without -g the build takes about a quarter less time (CI has 90 minutes for all three).
run_suite build-test -DCMAKE_BUILD_TYPE=Release
./scripts/lint.sh build-test
if [[ "${STORH_TEST_SANITIZE:-1}" != 0 ]]; then
  # handle_segv=0: a fixture plugin's deliberate SIGSEGV must stay a signal.
  export ASAN_OPTIONS=handle_segv=0:detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1
  # -g1: line tables are all a sanitizer report needs, and they cost less to build.
  run_suite build-asan -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-g1 -DSTORH_SANITIZE=ON
fi
if [[ "${STORH_TEST_SANITIZE:-1}" != 0 && "${STORH_TEST_TSAN:-1}" != 0 ]]; then
  ./scripts/tsan.sh
fi
