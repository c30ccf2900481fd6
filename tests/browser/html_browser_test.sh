#!/usr/bin/env bash
# The HTML pages in a real browser: each kind of page is rendered by headless Chromium
# (Debian's chromium), and the test fails on any console message (an error, an uncaught
# exception, a warning) and unless every chart drew. The page's script marks each
# canvas data-drawn="yes" when its chart has elements at finite positions and painted
# pixels, and <body> with data-charts, data-drawn and data-state (report/html/report.js);
# this test reads them from the DOM after the page ran. Then tests/browser/probe.js,
# added to a copy of the page, reads the drawn charts and the layout: tick labels that
# overlap, log axes with too few labels, a history axis not from zero, tables wider
# than the page.
#
#   html_browser_test.sh STORH_HOST SOURCE_DIR WORK_DIR WRITE_STEPPED_RESULTS
#
# Negative controls come first: a page whose library is broken, a page that logs to
# the console, a page left to Chart.js's own log ticks and one whose table widens it
# must all be caught, so a checker that cannot fail fails.
set -euo pipefail
host=$1
src=$2
work=$3
write_stepped=$4  # tests/support/write_stepped_results.cpp

browser=$(command -v chromium || command -v chromium-browser || true)
if [[ -z $browser ]]; then
  echo "html_browser_test: chromium not found: install Debian's chromium (scripts/setup.sh --tests does)" >&2
  exit 1
fi
rm -rf "$work"
mkdir -p "$work"

# check_page NAME HTML MIN_CHARTS [narrow]: 0 when the page ran cleanly, every chart
# drew, and the probe (probe.js, run after the page's script) found nothing a reader
# would stumble on. The page is drawn in a 1200 px window, or with "narrow" in a 480 px
# one (a phone), where tables may scroll in their boxes but the page must not.
check_page() {
  local name=$1 html=$2 min_charts=$3 narrow=${4:-}
  local dom="$work/$name.dom.html" log="$work/$name.browser.log" probed="$work/$name.probed.html"
  local width=1200 fragment=''
  if [[ $narrow == narrow ]]; then
    width=480 fragment='#narrow'
  fi
  awk -v probe="$src/tests/browser/probe.js" '
    /^<\/body>$/ { print "<script>"; while ((getline line < probe) > 0) print line; print "</script>" }
    { print }' "$html" >"$probed"
  # --no-sandbox: CI runs as root in a container, where Chromium's sandbox cannot start.
  if ! timeout 120 "$browser" --headless --no-sandbox --disable-gpu --no-first-run \
    --user-data-dir="$work/profile-$name" --window-size="$width,900" \
    --enable-logging=stderr --v=0 --virtual-time-budget=10000 \
    --dump-dom "file://$probed$fragment" >"$dom" 2>"$log"; then
    echo "$name: chromium failed (see $log)"
    return 1
  fi
  local problems=()
  if grep -q 'CONSOLE' "$log"; then
    problems+=("console output: $(grep 'CONSOLE' "$log" | head -3 | tr '\n' ' ')")
  fi
  local body
  body=$(grep -o '<body[^>]*>' "$dom" | head -1)
  local state charts drawn
  state=$(sed -n 's/.*data-state="\([a-z]*\)".*/\1/p' <<<"$body")
  charts=$(sed -n 's/.*data-charts="\([0-9]*\)".*/\1/p' <<<"$body")
  drawn=$(sed -n 's/.*data-drawn="\([0-9]*\)".*/\1/p' <<<"$body")
  [[ $state == done ]] || problems+=("page state \"${state:-none}\" (the script did not finish, or a chart failed)")
  if [[ -z $charts || $charts -lt $min_charts ]]; then
    problems+=("${charts:-no} charts, expected at least $min_charts")
  fi
  [[ ${charts:-x} == "${drawn:-y}" ]] || problems+=("$drawn of $charts charts drew")
  local canvases yes content
  content=$(sed '/<script/,$d' "$dom")  # the page up to its scripts, whose comments name canvases
  canvases=$(grep -o '<canvas[^>]*>' <<<"$content" | wc -l)
  yes=$(grep -o '<canvas[^>]*data-drawn="yes"[^>]*>' <<<"$content" | wc -l)
  [[ $canvases == "$yes" ]] || problems+=("$yes of $canvases canvases marked drawn")
  local probe
  probe=$(sed -n 's/.*<pre id="storh-probe">\(.*\)<\/pre>.*/\1/p' "$dom")
  [[ $probe == ok ]] || problems+=("probe: ${probe:-did not run}")
  if grep -q 'class="chart-problem"' "$dom"; then
    problems+=("a chart shows a problem: $(grep -o 'class="chart-problem">[^<]*' "$dom" | head -1)")
  fi
  if ((${#problems[@]} > 0)); then
    for problem in "${problems[@]}"; do echo "$name: $problem"; done
    return 1
  fi
  echo "$name: ok ($charts charts drew)"
}

# report RESULT PAGE [ENV...]: the CLI's html report of a result file.
report() {
  local result=$1 page=$2
  shift 2
  env "$@" "$host" report "$result" --format=html -o "$page" >/dev/null
}

# check_widths NAME HTML MIN_CHARTS: check_page in a desktop window and on a phone.
check_widths() {
  local wide=0
  check_page "$1" "$2" "$3" || wide=1
  check_page "$1-narrow" "$2" "$3" narrow && return "$wide"
}

status=0

# Negative controls: each must fail the check.
printf '/*!\n * Chart.js v3.9.1\n */\nwindow.Chart = undefined;\n' >"$work/broken-chart.js"
report "$src/tests/fixtures/golden/result-v1.json" "$work/broken.html" STORH_CHARTJS="$work/broken-chart.js"
if check_page broken "$work/broken.html" 1 >"$work/broken.check"; then
  echo "negative control: a page whose charting library is broken passed the check"
  status=1
fi
{
  cat "${STORH_CHARTJS:-/usr/share/javascript/chart.js/chart.min.js}"
  echo 'console.error("control");'
} >"$work/noisy-chart.js"
report "$src/tests/fixtures/golden/result-v1.json" "$work/noisy.html" STORH_CHARTJS="$work/noisy-chart.js"
if check_page noisy "$work/noisy.html" 1 >"$work/noisy.check"; then
  echo "negative control: a page that logs to the console passed the check"
  status=1
fi

# Chart.js's own ticks on a ratio axis leave half of it unlabelled, and on a phone a
# table outside its scrolling box widens the page: the probe must say so.
fixtures="$src/tests/fixtures/html"
"$host" compare "$fixtures/ab.json" --format=html -o "$work/ab.html" >/dev/null 2>&1
sed 's/afterBuildTicks:/unusedAfterBuildTicks:/' "$work/ab.html" >"$work/plain-ticks.html"
if check_page plain-ticks "$work/plain-ticks.html" 2 >"$work/plain-ticks.check"; then
  echo "negative control: a page with Chart.js's own log ticks passed the check"
  status=1
fi
sed 's/^\.table-box {.*}$//' "$work/ab.html" >"$work/plain-tables.html"
if check_page plain-tables "$work/plain-tables.html" 2 narrow >"$work/plain-tables.check"; then
  echo "negative control: a page whose table widens it passed the check"
  status=1
fi

# Every kind of page: a report of one dataset, a range, a load run; compare.
report "$src/tests/fixtures/golden/result-v1.json" "$work/single.html"
check_widths single "$work/single.html" 1 || status=1
report "$src/tests/fixtures/html/range.json" "$work/range.html"
check_widths range "$work/range.html" 4 || status=1
report "$src/tests/fixtures/html/load.json" "$work/load.html"
check_widths load "$work/load.html" 1 || status=1
if ! grep -q 'class="num heat"' "$work/load.html"; then
  echo "load: no heat map cells"
  status=1
fi
# min_time sizes a repeated step's batches: a load run's header has no use for it.
if grep -q '<dt>min_time</dt>' "$work/load.html"; then
  echo "load: the header shows min_time"
  status=1
fi

# A load run over time (tests/fixtures/html/load-time.json: slow_tx at 1 and 2 clients
# with a rate, 100 ms intervals): a timeline chart per cell; probe.js checks each.
report "$src/tests/fixtures/html/load-time.json" "$work/load-time.html"
check_widths load-time "$work/load-time.html" 3 || status=1
sed 's/data: spec.tps,/data: spec.tps.slice(1),/' "$work/load-time.html" >"$work/short-line.html"
if check_page short-line "$work/short-line.html" 3 >"$work/short-line.check"; then
  echo "negative control: a timeline with a point missing passed the check"
  status=1
fi
if [[ $(grep -o '"kind":"timeline"' "$work/load-time.html" | wc -l) -ne 2 ]]; then
  echo "load-time: expected a timeline chart for each of the 2 cells"
  status=1
fi

# A YCSB run (tests/browser/ycsb.json: workloads a and e at 1 and 2 clients on
# the kv_memory test engine): a table per workload, the engine cells as rows; probe.js checks
# their shape.
report "$src/tests/browser/ycsb.json" "$work/ycsb.html"
check_widths ycsb "$work/ycsb.html" 0 || status=1
for letter in a e; do
  if ! grep -q "<section class=\"ycsb\" id=\"ycsb-$letter\">" "$work/ycsb.html"; then
    echo "ycsb: no table for workload $letter"
    status=1
  fi
done
if ! grep -q '<th class="num">scan p99</th>' "$work/ycsb.html"; then
  echo "ycsb: workload e's table has no scan p99 column"
  status=1
fi

# Engine counters (tests/fixtures/html/engine-counters.json: a real pg run of
# scripts/pg_counters_repeat.py): the counter table's third column, the engine's own.
report "$fixtures/engine-counters.json" "$work/engine-counters.html"
check_widths engine-counters "$work/engine-counters.html" 1 || status=1
if ! grep -q '<th>engine&#39;s counters per item</th>' "$work/engine-counters.html" ||
  ! grep -q 'pg.wal_sync ~1 syncs' "$work/engine-counters.html"; then
  echo "engine-counters: no column of the engine's counters"
  status=1
fi

# A Google Benchmark file written by a real binary (tests/fixtures/gbench): its report.
report "$src/tests/fixtures/gbench/base.json" "$work/gbench.html"
check_widths gbench "$work/gbench.html" 1 || status=1

# compare: two files (ratio bars on confidence intervals) and three (the matrix).
"$host" compare "$fixtures/compare-base.json" "$fixtures/compare-new.json" --format=html \
  -o "$work/compare-pair.html" >/dev/null 2>&1
check_widths compare-pair "$work/compare-pair.html" 2 || status=1
"$host" compare "$fixtures/compare-base.json" "$fixtures/compare-new.json" \
  "$fixtures/compare-base.json" --format=html -o "$work/compare-matrix.html" >/dev/null 2>&1
check_widths compare-matrix "$work/compare-matrix.html" 2 || status=1

# An A/B file (a real `ab` run, tests/fixtures/html/ab.json, drawn above): ratio bars
# per engine.
check_widths ab "$work/ab.html" 2 || status=1

# history show: a trend chart per metric, two environments, one change point.
"$write_stepped" "$fixtures/compare-base.json" "$work/history-runs" --second-environment
"$host" history add "$work"/history-runs/*.json --db="$work/history.db" >/dev/null
"$host" history show --db="$work/history.db" --format=html -o "$work/history.html" >/dev/null
check_widths history "$work/history.html" 7 || status=1
if ! grep -q '<h2>Change points (1)</h2>' "$work/history.html"; then
  echo "history: the page does not list the one change point"
  status=1
fi
exit "$status"
