# Sourced by scripts/test.sh, tsan.sh and lint.sh: configuring a build directory with
# Ninja, and timing the phases of a script; and by bench.sh, db-bench-peer.sh and
# pgbench-peer.sh: the Release build they run.

# storh_release_build: installs what the build needs (setup.sh) and builds storh-host
# and its plugins, Release and without tests, in build/; the build's output goes to
# stderr, so that a script's stdout holds only its results.
storh_release_build() {
  ./scripts/setup.sh
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DSTORH_BUILD_TESTS=OFF >/dev/null
  cmake --build build -j"$(nproc)" >&2
}

# storh_configure <build dir> <cmake options...>: configures with Ninja. A directory
# configured earlier with another generator (an older checkout used Make) is removed
# first, as CMake cannot switch generators in place.
storh_configure() {
  local dir=$1
  shift
  if [[ -f $dir/CMakeCache.txt ]] && ! grep -q '^CMAKE_GENERATOR:INTERNAL=Ninja$' "$dir/CMakeCache.txt"; then
    rm -rf "$dir"
  fi
  cmake -S . -B "$dir" -G Ninja "$@" >/dev/null
}

# storh_test_build_options: sets the array storh_test_build_options to the test builds'
# CMake options (scripts/test.sh and tsan.sh; call it after setup.sh has installed the
# tools):
#  - unity batches: each target's .cpp files are compiled in batches of 32, which parses
#    the heavy headers (toml++, nlohmann, fmt, Catch2) once a batch instead of once a file;
#  - LLVM's linker (Debian's lld, which setup.sh installs) where it is present: it links
#    each of the ~80 executables and modules of a test build in about a fifth of the time
#    GNU ld takes. The benchmark build (scripts/run.sh) keeps the toolchain's linker.
storh_test_build_options() {
  storh_test_build_options=(-DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=32)
  if command -v ld.lld >/dev/null; then
    storh_test_build_options+=(-DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=lld
      -DCMAKE_SHARED_LINKER_FLAGS=-fuse-ld=lld -DCMAKE_MODULE_LINKER_FLAGS=-fuse-ld=lld)
  fi
}

storh_phases=()

# storh_phase <name> <command...>: runs the command and prints its wall time on stderr;
# storh_phase_summary prints them all at the end. A failing command stops the script
# (set -e) after its time is printed.
storh_phase() {
  local name=$1
  shift
  local start=$SECONDS status=0
  "$@" || status=$?
  local took=$((SECONDS - start))
  storh_phases+=("$(printf '%-22s %3dm%02ds' "$name" $((took / 60)) $((took % 60)))")
  printf 'phase: %s took %dm%02ds%s\n' "$name" $((took / 60)) $((took % 60)) \
    "$( ((status == 0)) || echo " (failed, exit $status)")" >&2
  return "$status"
}

storh_phase_summary() {
  printf 'phases:\n' >&2
  printf '  %s\n' "${storh_phases[@]}" >&2
}
