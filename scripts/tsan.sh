#!/usr/bin/env bash
# ThreadSanitizer build of the concurrency tests: the memory cache's shards,
# load mode's client threads (in the worker processes, which are the TSan-built host),
# the queue's worker processes, the UUIDv7 generator and SharedText across threads.
# They are one test executable, concurrency_test (tests/CMakeLists.txt); this builds
# only what it needs, in build-tsan/. A data race fails the test (TSan's exit code
# 66 in the test binary or in a worker, which its test then reports as a failure).
#
#   scripts/tsan.sh            build and run them
#   STORH_TSAN_JOBS=1 ...      fewer parallel jobs
set -euo pipefail
cd "$(dirname "$0")/.."

source scripts/build_common.sh

./scripts/setup.sh
storh_test_build_options
jobs=${STORH_TSAN_JOBS:-$(nproc)}

# A unity build, as scripts/test.sh builds; -g1: line tables are all a race report needs.
storh_configure build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG" -DSTORH_BUILD_TESTS=ON \
  -DSTORH_SANITIZE_THREAD=ON -DSTORH_WARNINGS_AS_ERRORS=ON "${storh_test_build_options[@]}"
cmake --build build-tsan -j"$jobs" --target storh-host storh_plugin_uuid storh_plugin_filter \
  storh_plugin_cache storh_plugin_queue concurrency_test
# halt_on_error: the first race fails its test, with both stacks in the output.
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 ${TSAN_OPTIONS:-}"
ctest --test-dir build-tsan -j"$jobs" --output-on-failure --timeout 900 -L '^concurrency_test$'
