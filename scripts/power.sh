#!/usr/bin/env bash
# Measures the gate's power on this machine: how often it cries wolf when nothing
# changed (A/A) and how often it catches an injected slowdown of 5%, 10% and 25%,
# per metric, in the A/B mode and in the stored-baseline mode (docs/compare-gate.md).
#
#   scripts/power.sh [SUITE.toml] [-- extra storh-host arguments]
#
# Environment: RUNS (trials per slowdown, default 10), SLOWDOWNS (percent, default
# "0 5 10 25"), BUILD (a built tree, default: build, made Release here like bench.sh),
# BASELINE_FLAGS (the stored-baseline gate's flags, default ci.toml's:
# "--threshold=5 --significant --calibration=suites/calibration/ci.json"), COUNTER_RUNS
# (trials per counter case, default 10; 0 skips them). Each trial is one `storh-host ab` run with
# --inject-slowdown on the head side; its A/B verdict is the A/B mode's, and its head
# side gated against a stored baseline (the head side of a first A/A run) is the
# stored-baseline mode's. The time trials skip the counting pass (--counters=none);
# the counter gates are measured after them with the power plugin: A/A, one extra
# fsync per record, and 2% more mixing rounds (+2% instructions).
# Then the extra-call trials and whole A/A runs with counters (EXTRA_RUNS, default 3;
# AA_RUNS, default 20; see the end of this script).
# Not a test: it prints rates, it asserts nothing.
set -euo pipefail
cd "$(dirname "$0")/.."

suite=suites/ci.toml
if [[ $# -gt 0 && "$1" == *.toml ]]; then
  suite=$1
  shift
fi
[[ "${1:-}" == "--" ]] && shift
runs=${RUNS:-10}
slowdowns=${SLOWDOWNS:-"0 5 10 25"}
calibration=suites/calibration/ci.json
default_flags="--threshold=5 --significant"
[[ -f $calibration ]] && default_flags+=" --calibration=$calibration"
baseline_flags=${BASELINE_FLAGS:-$default_flags}
build=${BUILD:-build}

if [[ -z "${BUILD:-}" ]]; then
  ./scripts/setup.sh
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DSTORH_BUILD_TESTS=OFF >/dev/null
  cmake --build build -j"$(nproc)" >/dev/null
fi
host=$build/storh-host
plugins=$build/plugins
work=$(mktemp -d)
[[ -n "${KEEP_WORK:-}" ]] || trap 'rm -rf "$work"' EXIT

# key failed(0/1) per line, from a JSON verdict: `"key": "x"` then `"failed": true`.
verdicts() {
  awk -F'"' '/"key":/ {key=$4} /"failed":/ {print key, ($0 ~ /true/ ? 1 : 0)}' "$1"
}

# One trial: ab with the head slowed by $1 percent; appends to $work/ab-$1 and $work/base-$1.
trial() {
  local pct=$1 n=$2
  shift 2
  local fraction
  fraction=$(awk -v p="$pct" 'BEGIN { printf "%.4f", p / 100 }')
  local out=$work/trial-$pct-$n
  "$host" ab "$suite" --base="$plugins" --head="$plugins" --inject-slowdown="$fraction" \
    --counters=none --format=json --output="$out.json" "$@" >"$out.verdict" 2>"$out.err" || true
  sed -n '/^{/,/^}/p' "$out.verdict" >"$out.verdict.json"
  verdicts "$out.verdict.json" >>"$work/ab-$pct"
  # shellcheck disable=SC2086
  "$host" gate "$work/baseline.json" "$out.json" $baseline_flags --format=json \
    >"$out.gate" 2>/dev/null || true
  verdicts "$out.gate" >>"$work/base-$pct"
}

if ((runs > 0)); then
echo "power: suite $suite, $runs trial(s) per slowdown (${slowdowns// /, } %), $(date -u +%FT%TZ)" >&2
"$host" ab "$suite" --base="$plugins" --head="$plugins" --inject-slowdown=0 \
  --counters=none --output="$work/baseline.json" "$@" >/dev/null 2>&1 || true
for pct in $slowdowns; do
  for n in $(seq 1 "$runs"); do
    echo "  slowdown $pct%: trial $n/$runs" >&2
    trial "$pct" "$n" "$@"
  done
done

# Rates per metric: failed / trials, for each mode and slowdown.
header="metric"
for mode in ab base; do
  for pct in $slowdowns; do
    label=$([[ $mode == ab ]] && echo "A/B" || echo "stored")
    header+=$'\t'"$label $([[ $pct == 0 ]] && echo "A/A" || echo "+$pct%")"
  done
done
{
  echo "$header"
  keys=$(cat "$work"/ab-* | awk '{print $1}' | sort -u)
  for key in $keys; do
    line=$key
    for mode in ab base; do
      for pct in $slowdowns; do
        line+=$'\t'$(awk -v k="$key" '$1 == k {n++; f += $2} END {
          if (n == 0) print "-"; else printf "%d/%d", f, n }' "$work/$mode-$pct" 2>/dev/null || echo -)
      done
    done
    echo "$line"
  done
  # Whole gate runs: a run fails when any metric fails.
  line="(whole run)"
  for mode in ab base; do
    for pct in $slowdowns; do
      failed=0
      for n in $(seq 1 "$runs"); do
        file=$work/trial-$pct-$n.$([[ $mode == ab ]] && echo verdict.json || echo gate)
        grep -q '"failed": true' "$file" 2>/dev/null && failed=$((failed + 1))
      done
      line+=$'\t'"$failed/$runs"
    done
  done
  echo "$line"
} | awk -F'\t' '{ for (i = 1; i <= NF; i++) { cell[NR, i] = $i; if (length($i) > w[i]) w[i] = length($i) }
                  if (NF > cols) cols = NF }
  END { for (r = 1; r <= NR; r++) { line = sprintf("%-" w[1] "s", cell[r, 1])
          for (i = 2; i <= cols; i++) line = line sprintf("  %" w[i] "s", cell[r, i])
          print line } }'
echo "A/A columns are false alarms; the others are detections. Each trial is one" \
  "\`storh-host ab $suite\` run." >&2
fi

# Counters: deterministic, so a handful of items and one pair per trial suffice; the
# time verdict is switched off (--lenient, a huge threshold) so only counters decide.
counter_runs=${COUNTER_RUNS:-10}
if ((counter_runs > 0)); then
  cat >"$work/counters.toml" <<'SUITE'
datasets = [50]
repeat   = 1
counters = ["syscalls", "instructions"]
[engines.power]
SUITE
  echo "power: counters, $counter_runs trial(s) per case" >&2
  printf '%-34s  %s\n' "counter case" "gate failed"
  for case in "A/A (nothing changed)|power.slowdown=0" "one extra fsync per record|power.extra_fsync=true" \
    "+2% instructions|power.slowdown=0.02"; do
    label=${case%%|*}
    set_arg=${case#*|}
    failed=0
    for n in $(seq 1 "$counter_runs"); do
      args=(ab "$work/counters.toml" --base="$plugins" --head="$plugins" --pairs=1 --lenient
        --threshold=100000 --counter=fsync=1 --counter=fdatasync=1 --counter=instructions=1
        --output="$work/counters-$n.json")
      args+=(--head-set "$set_arg")
      "$host" "${args[@]}" >"$work/counters-$n.out" 2>&1 || failed=$((failed + 1))
    done
    printf '%-34s  %s\n' "$label" "$failed/$counter_runs"
  done
fi

# Extra calls inside engine operations, from a scratch build of the plugins with
# scripts/power/extra-calls.patch applied (one operation of each engine in the CI suite
# makes one extra engine call every STORH_POWER_EXTRA_EVERY items or batches: the table
# in docs/compare-gate.md lists them), gated as CI gates: `storh-host ci --base` with
# the suite's counters and tolerances (EXTRA_PAIRS pairs, default 2, and --lenient:
# counters do not vary, so few pairs suffice, and too few for a time verdict pass). Then AA_RUNS whole A/A runs of
# `ci --base`, both sides this build, with the suite's own pairs. Each run's verdict is
# ci's exit status, its per-metric verdicts the FAIL marks of its report.
# EXTRA_RUNS=0 / AA_RUNS=0 skip them.
extra_runs=${EXTRA_RUNS:-3}
aa_runs=${AA_RUNS:-20}
cases=()
verdict_of() {  # <name> <head plugins> [ci flags...]: one ci run; prints its report file
  local name=$1 head=$2 code=0
  shift 2
  "$host" ci "$suite" --base="$plugins" --plugin-path="$head" --output="$work/$name.json" \
    "$@" >"$work/$name.out" 2>"$work/$name.err" || code=$?
  echo "$code" >"$work/$name.out.code"
  echo "$work/$name.out"
}
if ((extra_runs > 0)); then
  echo "power: extra calls: building the patched plugins in $work/extra" >&2
  mkdir -p "$work/extra/src"
  git ls-files -z | xargs -0 cp --parents -t "$work/extra/src"
  patch -s -p1 -d "$work/extra/src" <scripts/power/extra-calls.patch
  cmake -S "$work/extra/src" -B "$work/extra/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DSTORH_BUILD_TESTS=OFF >/dev/null
  cmake --build "$work/extra/build" -j"$(nproc)" --target storh_plugin_uuid \
    storh_plugin_filter storh_plugin_doc storh_plugin_log storh_plugin_queue \
    storh_plugin_cache storh_plugin_mirror >/dev/null
  for every in 10 4; do
    files=()
    for n in $(seq 1 "$extra_runs"); do
      echo "  one extra call in $every: trial $n/$extra_runs" >&2
      files+=("$(STORH_POWER_EXTRA_EVERY=$every verdict_of "extra-$every-$n" \
        "$work/extra/build/plugins" --pairs="${EXTRA_PAIRS:-2}" --lenient)")
    done
    cases+=("1 in $every=$(IFS=,; echo "${files[*]}")")
  done
fi
if ((aa_runs > 0)); then
  files=()
  for n in $(seq 1 "$aa_runs"); do
    echo "  A/A, ci --base with counters: trial $n/$aa_runs" >&2
    files+=("$(verdict_of "aa-$n" "$plugins")")
  done
  cases+=("A/A=$(IFS=,; echo "${files[*]}")")
fi
if ((${#cases[@]} > 0)); then
  echo "power: per metric, verdicts failed on a counter / on wall time, of the trials" >&2
  python3 scripts/power/extra_calls_table.py "${cases[@]}"
fi
