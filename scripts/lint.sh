#!/usr/bin/env bash
# Checks the C++ sources against the repository's .clang-format and .clang-tidy, so that
# both files mean something (scripts/test.sh runs this first, before any build).
#
#   scripts/lint.sh [BUILD_DIR]     default build-lint, (re)configured here
#
# - clang-format, check mode, on every tracked .h/.cpp (a few seconds): a file that
#   clang-format would change fails the check; `clang-format -i FILE` fixes it.
# - no ';' in a Catch2 test name (see below).
# - the messages of the commits since STORH_LINT_BASE (merges aside): a subject of at
#   most 72 characters, a blank line, then a body that says why.
# - clang-tidy on the .cpp files changed since STORH_LINT_BASE (default HEAD~1: the
#   last commit; `STORH_LINT_BASE=origin/main` for a branch), as it costs ~10 s a file.
#   A warning of a check that .clang-tidy enables fails the run. It needs a build
#   directory's compile_commands.json with one entry per .cpp (not a unity build's
#   batches); configuring is enough, nothing is built (the one generated header is
#   written at configure time).
#
# Exit status 1 when a check found something, 2 on bad usage.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/build_common.sh

build=${1:-build-lint}
if [[ $# -eq 0 ]]; then  # again each time: a new source needs its entry
  storh_configure "$build" -DCMAKE_BUILD_TYPE=Release -DSTORH_BUILD_TESTS=ON
fi
if [[ ! -f $build/compile_commands.json ]]; then
  echo "lint: $build/compile_commands.json not found: configure $build first" >&2
  exit 2
fi
if grep -q '"file": ".*/Unity/unity_' "$build/compile_commands.json"; then
  echo "lint: $build is a unity build, whose compile commands name batches, not sources;" \
    "run scripts/lint.sh without a directory (it configures build-lint)" >&2
  exit 2
fi

mapfile -t sources < <(git ls-files '*.cpp' '*.h' | grep -v '^fuzz/corpus/')
unformatted=()
for f in "${sources[@]}"; do
  clang-format --dry-run --Werror "$f" >/dev/null 2>&1 || unformatted+=("$f")
done
status=0
format_said="clang-format ok"
if ((${#unformatted[@]} > 0)); then
  format_said="clang-format failed (above)"
  echo "lint: clang-format would change ${#unformatted[@]} file(s) (run clang-format -i):" >&2
  printf '  %s\n' "${unformatted[@]}" >&2
  status=1
fi

# Catch2 2.13's catch_discover_tests splits the list of test names at ';' (a CMake list),
# so a test named with one is registered under a name that matches nothing, and ctest
# reports it passed without running it.
if git grep -n 'TEST_CASE("[^"]*;' -- tests fuzz >&2; then
  echo "lint: a TEST_CASE name above holds ';', which ctest would never run" >&2
  status=1
fi

base=${STORH_LINT_BASE:-HEAD~1}
if ! git rev-parse --verify --quiet "$base^{commit}" >/dev/null; then
  echo "lint: no commit \"$base\" to diff against; commit messages and clang-tidy skipped" >&2
  exit "$status"
fi

# A history is read by its subjects (git log --oneline, blame, release notes), so each
# says in one short line what the commit does, and the body why.
while read -r commit; do
  subject=$(git log -1 --format=%s "$commit")
  second=$(git log -1 --format=%B "$commit" | sed -n 2p)
  body=$(git log -1 --format=%b "$commit" | tr -d '[:space:]')
  problem=""
  if ((${#subject} > 72)); then
    problem="its subject has ${#subject} characters (at most 72)"
  elif [[ -n $second ]]; then
    problem="its second line is not blank"
  elif [[ -z $body ]]; then
    problem="it has no body saying why"
  fi
  if [[ -n $problem ]]; then
    echo "lint: commit ${commit:0:10} \"$subject\": $problem" >&2
    status=1
  fi
done < <(git rev-list --no-merges "$base..HEAD")
# Only sources in the build: a .cpp outside compile_commands.json has no flags to use.
mapfile -t changed < <(git diff --name-only --diff-filter=AMR "$base" -- '*.cpp' |
  grep -v '^fuzz/corpus/' | while read -r f; do
    grep -q "\"file\": \"$PWD/$f\"" "$build/compile_commands.json" && echo "$f"
  done)
if ((${#changed[@]} == 0)); then
  echo "lint: $format_said; no changed .cpp since $base for clang-tidy"
  exit "$status"
fi
# GCC-only warning flags in the compile commands are not clang's business.
tidy_log=$(mktemp)
trap 'rm -f "$tidy_log"' EXIT
if ! printf '%s\n' "${changed[@]}" | xargs -P "$(nproc)" -n 4 clang-tidy -p "$build" --quiet \
  --warnings-as-errors='*' --extra-arg=-Wno-unknown-warning-option >"$tidy_log" 2>&1; then
  grep -v -e 'warnings generated' -e '^Suppressed' -e 'header-filter' -e 'display errors' \
    "$tidy_log" >&2 || true
  echo "lint: clang-tidy found problems in the ${#changed[@]} file(s) changed since $base" >&2
  status=1
else
  echo "lint: $format_said; clang-tidy ok on ${#changed[@]} file(s) changed since $base"
fi
exit "$status"
