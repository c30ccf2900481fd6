#!/usr/bin/env bash
# Fuzzes the readers of storh-host and its engines with clang's libFuzzer (docs/fuzzing.md).
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]
#
# SECONDS per target (default 60); TARGETs among: suite result doc_record doc_index
# log_segment log_manifest queue_log (default: all, one after the other: one fuzzer
# process at a time). Installs clang and libFuzzer when missing (Debian 12), configures
# and builds build-fuzz/ (-DSTORH_FUZZ=ON, ASan + UBSan), seeds a working corpus per
# target from fuzz/corpus/<target>/ plus the shipped suites and result files, fuzzes,
# and prints per target the executions, exec/s and crashes. Exit status 1 when any
# target crashed.
#
# Environment:
#   STORH_FUZZ_MERGE=1     afterwards merge what was found into fuzz/corpus/<target>/
#                          (libFuzzer -merge=1: only inputs that add coverage) and copy
#                          every crashing input there, as a regression test
#   STORH_FUZZ_RUNS=N      also stop a target once it has run N inputs (libFuzzer -runs),
#                          so that SECONDS is a time limit and N the goal
#   STORH_FUZZ_BUILD_JOBS  parallel compile jobs (default: nproc)
#   STORH_FUZZ_OUT         where logs, working corpora and crash files go
#                          (default: build-fuzz/fuzz-out)
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-60}
shift || true
all_targets=(suite result doc_record doc_index log_segment log_manifest queue_log)
targets=("$@")
if ((${#targets[@]} == 0)); then targets=("${all_targets[@]}"); fi
for t in "${targets[@]}"; do
  if [[ ! " ${all_targets[*]} " == *" $t "* ]]; then
    echo "fuzz: unknown target \"$t\" (known: ${all_targets[*]})" >&2
    exit 2
  fi
done
if ! [[ $seconds =~ ^[0-9]+$ ]] || ((seconds < 1)); then
  echo "fuzz: SECONDS must be a whole number >= 1, got \"$seconds\"" >&2
  exit 2
fi
goal=${STORH_FUZZ_RUNS:-0}
if ! [[ $goal =~ ^[0-9]+$ ]]; then
  echo "fuzz: STORH_FUZZ_RUNS must be a whole number, got \"$goal\"" >&2
  exit 2
fi

# The build's own packages, then clang and its libFuzzer runtime, each only when missing.
./scripts/setup.sh
missing=()
for p in clang libclang-rt-14-dev; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]} > 0)); then
  sudo_cmd=()
  if [[ $(id -u) -ne 0 ]]; then sudo_cmd=(sudo); fi
  echo "fuzz: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

build=build-fuzz
# -O2 -g without -DNDEBUG: asserts stay on, they are findings too.
cmake -S . -B "$build" -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DSTORH_FUZZ=ON -DSTORH_BUILD_TESTS=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g" "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O2 -g" >/dev/null
cmake --build "$build" -j"${STORH_FUZZ_BUILD_JOBS:-$(nproc)}" \
  --target "${targets[@]/#/fuzz_}"

out=${STORH_FUZZ_OUT:-$build/fuzz-out}
mkdir -p "$out"

max_len() {  # <target>: the largest input worth mutating; longer inputs cost exec/s
  case $1 in
    result) echo 8192 ;;  # the shipped result files are 3-20 KB
    suite) echo 4096 ;;
    doc_index | log_manifest) echo 2048 ;;
    *) echo 1024 ;;  # records and lines: a dozen lines of ~100 bytes
  esac
}

seed() {  # <target> <dir>: the shipped files a target reads, besides its corpus
  case $1 in
    suite) cp suites/*.toml tests/fixtures/suites/*.toml "$2"/ ;;
    result)
      cp tests/fixtures/golden/result-v1.json tests/fixtures/storh-php/*.json "$2"/
      cp suites/baselines/*.json suites/calibration/*.json "$2"/ 2>/dev/null || true
      ;;
  esac
}

# Sums libFuzzer's final stats over the runs of one target (a crash ends a run; the
# target is restarted without the crashing input until its time is used up).
stat_of() {  # <log> <name>
  sed -n "s/^stat::$2: *\([0-9]*\).*/\1/p" "$1" | tail -1
}

failed=0
summary=()
for t in "${targets[@]}"; do
  work="$out/$t/corpus"
  artifacts="$out/$t/artifacts"
  rm -rf "${out:?}/$t"
  mkdir -p "$work" "$artifacts"
  cp fuzz/corpus/"$t"/* "$work"/ 2>/dev/null || true
  seed "$t" "$work"

  runs=0
  crashes=()
  start=$(date +%s)
  run=0
  while :; do
    left=$((seconds - ($(date +%s) - start)))
    ((left > 0)) || break
    ((run < 50)) || break  # a target that crashes this often needs a fix, not more runs
    limit=()
    if ((goal > 0)); then
      ((runs < goal)) || break
      limit=(-runs=$((goal - runs)))
    fi
    log="$out/$t/run-$run.log"
    set +e
    "$build/fuzz/fuzz_$t" "$work" -max_total_time="$left" -max_len="$(max_len "$t")" \
      -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 "${limit[@]}" \
      -artifact_prefix="$artifacts/" >"$log" 2>&1
    status=$?
    set -e
    executed=$(stat_of "$log" number_of_executed_units)
    runs=$((runs + ${executed:-0}))
    run=$((run + 1))
    ((status != 0)) || break
    artifact=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -1)
    if [[ -z $artifact || ! -f $artifact ]]; then
      echo "fuzz: $t: fuzzer failed (exit $status) without a crash file; see $log" >&2
      crashes+=("(no input: see $log)")
      break
    fi
    crashes+=("$artifact")
    echo "fuzz: $t: crash ($(grep -m1 -E '^==[0-9]+==ERROR|runtime error|deadly signal|uncaught|timeout|out-of-memory' "$log" || echo "exit $status")): $artifact" >&2
    # A crashing input of the corpus itself crashes every restart: take it out.
    sum=$(sha1sum <"$artifact" | cut -d' ' -f1)
    for f in "$work"/*; do
      if [[ $(sha1sum <"$f" | cut -d' ' -f1) == "$sum" ]]; then rm -f "$f"; fi
    done
  done
  elapsed=$(($(date +%s) - start))
  rate=$((runs / (elapsed > 0 ? elapsed : 1)))

  if [[ ${STORH_FUZZ_MERGE:-0} == 1 ]]; then
    "$build/fuzz/fuzz_$t" -merge=1 -max_len="$(max_len "$t")" -timeout=10 \
      fuzz/corpus/"$t" "$work" >"$out/$t/merge.log" 2>&1 || true
    for c in "${crashes[@]}"; do
      if [[ -f $c ]]; then cp "$c" fuzz/corpus/"$t"/; fi
    done
  fi

  ((${#crashes[@]} == 0)) || failed=1
  summary+=("$(printf '%-13s %12d runs %8d exec/s %6ds %3d crash(es)' \
    "$t" "$runs" "$rate" "$elapsed" "${#crashes[@]}")")
  for c in "${crashes[@]}"; do summary+=("                crash input: $c"); done
done

echo
echo "fuzz: $seconds s per target, logs in $out"
printf '%s\n' "${summary[@]}"
exit "$failed"
