// storh-host HTML pages: draws each <canvas data-chart="K"> from charts[K] of the JSON
// in #storh-data with Chart.js 3 (inlined before this script). Chart kinds and their
// fields: docs/html-report.md.
//
// After drawing, every canvas carries data-drawn="yes" (the chart has elements at
// finite positions and painted pixels), "blank" or "error" (with the message shown
// under the chart), and <body> carries data-charts (how many), data-drawn (how many
// drew) and data-state="done" or "failed". The browser test reads these attributes.
(function () {
  'use strict';

  const palette = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b',
                   '#e377c2', '#7f7f7f', '#bcbd22', '#17becf'];
  const color = (i) => palette[i % palette.length];

  // Seconds with 4 significant digits in ns, us, ms or s (report/format.h's style).
  function seconds(value) {
    if (value === null || value === undefined || !isFinite(value)) return '-';
    if (value === 0) return '0 s';
    const units = [['s', 1], ['ms', 1e-3], ['us', 1e-6], ['ns', 1e-9]];
    for (const [unit, scale] of units) {
      if (Math.abs(value) >= scale || unit === 'ns') {
        return (value / scale).toPrecision(4) + ' ' + unit;
      }
    }
    return String(value);
  }

  // A tick label: as seconds() without trailing zeros ("2 us", "1.5 ms").
  function compactSeconds(value) {
    // Zero first: stripping trailing zeros from "0 s" would leave " s".
    if (value === 0) return '0';
    return seconds(value).replace(/\.?0+ /, ' ');
  }

  // Log axes choose their own ticks (niceLogTicks): Chart.js 3 puts one at every 1..9 x
  // 10^k and its auto-skip then hides the labelled ones, leaving two labels over two
  // decades, and at the bounds it adds ticks that overlap their neighbours (x0.67 over
  // x0.70).

  // Tick values a reader knows, per decade (x 10^k), coarse to fine.
  const decadeLadders = [[1], [1, 3], [1, 2, 5], [1, 1.5, 2, 3, 5, 7],
                         [1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 7, 8, 9]];

  // Each ladder's ticks in [min, max]; for wide ranges every 2nd, 3rd or 5th power of
  // ten; for narrow ones even steps (0.95, 1, 1.05 ...): 1, 2, 2.5 or 5 x 10^k apart.
  function tickCandidates(min, max) {
    const clean = (value) => Number(value.toPrecision(6));
    const candidates = [2, 3, 5].map(function (every) {
      const ticks = [];
      for (let k = Math.ceil(Math.log10(min) / every - 1e-9) * every; Math.pow(10, k) <= max; k += every) {
        ticks.push(clean(Math.pow(10, k)));
      }
      return ticks;
    });
    decadeLadders.forEach(function (ladder) {
      const ticks = [];
      for (let k = Math.floor(Math.log10(min)) - 1; Math.pow(10, k) <= max; k += 1) {
        ladder.forEach(function (m) {
          const value = clean(m * Math.pow(10, k));
          if (value >= min && value <= max) ticks.push(value);
        });
      }
      candidates.push(ticks);
    });
    for (let k = Math.floor(Math.log10(max - min)) - 2; k <= Math.floor(Math.log10(max)); k += 1) {
      [1, 2, 2.5, 5].forEach(function (m) {
        const step = m * Math.pow(10, k);
        if ((max - min) / step > 60) return;
        const ticks = [];
        for (let i = Math.ceil(min / step - 1e-9); i * step <= max * (1 + 1e-9); i += 1) {
          if (i > 0) ticks.push(clean(i * step));
        }
        candidates.push(ticks);
      });
    }
    return candidates;
  }

  // Ticks for a log axis from min to max with room for `slots` labels: of the
  // candidates (containing `include` when it is in range, x1 on a ratio axis), the one
  // with the most ticks whose closest two are still 3/4 of a slot apart, so labels never
  // crowd, Chart.js hides none, and no stretch of the axis goes without one.
  function niceLogTicks(min, max, slots, include) {
    if (!(min > 0) || !(max > min)) return null;
    const room = 0.75 * Math.log(max / min) / slots;
    let best = null;
    tickCandidates(min, max).forEach(function (ticks) {
      if (include >= min && include <= max && !ticks.includes(include)) return;
      for (let i = 1; i < ticks.length; i += 1) {
        if (Math.log(ticks[i] / ticks[i - 1]) < room) return;
      }
      if (best === null || ticks.length > best.length) best = ticks;
    });
    return best;
  }

  // A number without float noise or trailing zeros: 0.96, 1.04, 20.
  const plainNumber = (value) => String(Number(Number(value).toPrecision(6)));

  // A log axis whose ticks niceLogTicks chooses over the range Chart.js settled on
  // (or min .. max, when given), labelled by `label`.
  // An axis title as Chart.js lines: a long one breaks before its parenthesis, since a
  // title longer than its axis is cut off at the canvas's edges (a y title on a short
  // history chart, an x title on a phone).
  function axisTitle(text) {
    const at = text.indexOf(' (');
    const lines = text.length > 30 && at > 0 ? [text.slice(0, at), text.slice(at + 1)] : text;
    return { display: true, text: lines };
  }

  function logAxis(title, label, bounds) {
    const axis = {
      type: 'logarithmic',
      title: axisTitle(title),
      afterBuildTicks: function (scale) {
        // A slot per 60 px across (a label such as "x0.96" or "20 ms" is about 40) or
        // 25 px up (one line), 3 to 12 of them: fewer labels on a phone, not crowded ones.
        const horizontal = scale.isHorizontal();
        const length = horizontal ? scale.maxWidth : scale.maxHeight;
        const slots = Math.max(3, Math.min(12, Math.floor(length / (horizontal ? 60 : 25))));
        const ticks = niceLogTicks(scale.min, scale.max, slots, bounds && bounds.include);
        if (ticks) scale.ticks = ticks.map((value) => ({ value: value }));
      },
      ticks: { callback: label },
    };
    if (bounds) Object.assign(axis, { min: bounds.min, max: bounds.max });
    return axis;
  }

  function logTimeAxis(title) {
    return logAxis(title, compactSeconds);
  }

  // Options every chart shares (drawn at once: no animation), its scales, the text of
  // an element's tooltip, and `more` (indexAxis for horizontal bars).
  function options(scales, tooltipLabel, more) {
    return Object.assign({
      animation: false,
      responsive: true,
      maintainAspectRatio: false,
      scales: scales,
      plugins: { legend: { position: 'bottom' }, tooltip: { callbacks: { label: tooltipLabel } } },
    }, more || {});
  }

  // A log axis of ratios spanning `values` and 1, with a little room on both sides
  // (Chart.js would widen it to whole powers of ten), x1 among its ticks.
  function ratioAxis(values, title) {
    const finite = values.filter((v) => v !== null && isFinite(v) && v > 0).concat([1]);
    return logAxis(title, (value) => 'x' + plainNumber(value), {
      min: Math.min.apply(null, finite) / 1.05,
      max: Math.max.apply(null, finite) * 1.05,
      include: 1,
    });
  }

  // kind "metrics": labels, median, min, max, runs (one entry per operation).
  function metricsChart(spec) {
    return {
      type: 'bar',
      data: {
        labels: spec.labels,
        datasets: [
          {
            label: 'min .. max',
            data: spec.labels.map((_, i) => [spec.min[i], spec.max[i]]),
            backgroundColor: 'rgba(31, 119, 180, 0.35)',
            borderColor: 'rgba(31, 119, 180, 0.8)',
            borderWidth: 1,
            minBarLength: 3,
          },
          {
            type: 'line',
            label: 'median',
            data: spec.median,
            showLine: false,
            pointStyle: 'rectRot',
            pointRadius: 6,
            pointHoverRadius: 8,
            backgroundColor: '#d62728',
            borderColor: '#7f1416',
          },
        ],
      },
      options: options({ x: logTimeAxis('time of one step') }, function (item) {
        const i = item.dataIndex;
        return item.datasetIndex === 0
          ? 'min ' + seconds(spec.min[i]) + ' .. max ' + seconds(spec.max[i]) +
              ' (' + spec.runs[i] + ' runs)'
          : 'median ' + seconds(spec.median[i]);
      }, { indexAxis: 'y' }),
    };
  }

  // kind "range": series of {label, fit, points: [[n, s]...], fitted: [[n, s]...]}.
  function rangeChart(spec) {
    const datasets = [];
    spec.series.forEach(function (series, i) {
      datasets.push({
        label: series.label + ' (' + series.fit + ')',
        data: series.points.map((p) => ({ x: p[0], y: p[1] })),
        showLine: true,
        borderColor: color(i),
        backgroundColor: color(i),
        pointRadius: 4,
      });
      if (series.fitted.length > 0) {
        datasets.push({
          label: series.label + ' fitted',
          fitted: true,
          data: series.fitted.map((p) => ({ x: p[0], y: p[1] })),
          showLine: true,
          borderColor: color(i),
          borderDash: [6, 4],
          borderWidth: 1,
          pointRadius: 0,
        });
      }
    });
    const chartOptions = options({
      x: logAxis('dataset size (n)', plainNumber),
      y: logTimeAxis('median time of one step'),
    }, (item) => item.dataset.label + ': n=' + item.parsed.x + ', ' + seconds(item.parsed.y));
    chartOptions.plugins.legend.labels = {
      filter: (item, data) => !data.datasets[item.datasetIndex].fitted,
    };
    return { type: 'scatter', data: { datasets: datasets }, options: chartOptions };
  }

  // kind "latency": labels (one per load cell), series of {label, values}.
  function latencyChart(spec) {
    return {
      type: 'bar',
      data: {
        labels: spec.labels,
        datasets: spec.series.map((series, i) => ({
          label: series.label,
          data: series.values,
          backgroundColor: color(i),
        })),
      },
      options: options({
        x: { title: axisTitle('clients x transactions per client (or duration)') },
        y: logTimeAxis('latency'),
      }, (item) => item.dataset.label + ': ' + seconds(item.parsed.y)),
    };
  }

  // kind "ratios": labels, ratio, low, high (confidence interval), significant, verdict
  // (one entry per metric: slower, faster, same, failed); ratio = new / base of the
  // median, 1 = unchanged; axis and legend, when given, say what else the ratio is.
  function ratioChart(spec) {
    const shade = (i) => ({ slower: '#d62728', faster: '#2ca02c', failed: '#ff7f0e' })[spec.verdict[i]] || '#7f7f7f';
    return {
      type: 'bar',
      data: {
        labels: spec.labels.map((label, i) => (spec.significant[i] ? '* ' : '') + label),
        datasets: [
          {
            label: 'confidence interval of the ratio',
            data: spec.labels.map((_, i) =>
              spec.low[i] === null || spec.high[i] === null ? null : [spec.low[i], spec.high[i]]),
            backgroundColor: spec.labels.map((_, i) => shade(i) + '55'),
            borderColor: spec.labels.map((_, i) => shade(i)),
            borderWidth: 1,
            minBarLength: 3,
          },
          {
            type: 'line',
            label: spec.legend || 'ratio new / base',
            data: spec.ratio,
            showLine: false,
            pointStyle: 'rectRot',
            pointRadius: 6,
            backgroundColor: spec.labels.map((_, i) => shade(i)),
            borderColor: '#222',
          },
        ],
      },
      options: options({
        x: ratioAxis(spec.ratio.concat(spec.low, spec.high),
          spec.axis || 'ratio new / base of the median (log axis; x1 = unchanged)'),
      }, function (item) {
        const i = item.dataIndex;
        const interval = spec.low[i] === null ? 'no interval'
          : spec.low[i].toFixed(3) + ' .. ' + spec.high[i].toFixed(3);
        return 'ratio ' + spec.ratio[i].toFixed(3) + ' (' + interval + '), ' + spec.verdict[i];
      }, { indexAxis: 'y' }),
    };
  }

  // kind "matrix": labels (metrics), series of {label (a file), values (its ratio to the
  // first file, or null)}; each bar runs from 1 to the ratio.
  function matrixChart(spec) {
    return {
      type: 'bar',
      data: {
        labels: spec.labels,
        datasets: spec.series.map((series, i) => ({
          label: series.label,
          data: series.values.map((v) => (v === null ? null : [1, v])),
          backgroundColor: color(i + 1),
          minBarLength: 3,
        })),
      },
      options: options({
        x: ratioAxis([].concat.apply([], spec.series.map((series) => series.values)),
          'ratio to the first file (log axis; x1 = equal)'),
      }, (item) => item.dataset.label + ': x' +
        spec.series[item.datasetIndex].values[item.dataIndex].toFixed(3), { indexAxis: 'y' }),
    };
  }

  // kind "trend": labels (one per run, oldest first), seconds (values are times, else
  // scores in `unit`), series of {label (an environment), values (null where it has no
  // run), changes (indices of the first run after each change point)}.
  function trendChart(spec) {
    const show = (value) => spec.seconds ? seconds(value) : Number(value).toPrecision(4) + ' ' + spec.unit;
    const datasets = [];
    spec.series.forEach(function (series, i) {
      datasets.push({
        label: series.label,
        data: series.values,
        borderColor: color(i),
        backgroundColor: color(i),
        spanGaps: true,
        pointRadius: 3,
        tension: 0,
      });
      if (series.changes.length > 0) {
        datasets.push({
          label: series.label + ' change point',
          data: series.values.map((value, at) => (series.changes.includes(at) ? value : null)),
          borderColor: '#d62728',
          backgroundColor: '#d62728',
          showLine: false,
          pointStyle: 'triangle',
          pointRadius: 9,
        });
      }
    });
    return {
      type: 'line',
      data: { labels: spec.labels, datasets: datasets },
      options: options({
        x: { title: axisTitle('run (commit)') },
        // From zero, not zoomed to the data: zoomed, a few percent of noise fills the
        // chart and looks like a trend.
        y: {
          min: 0,
          title: axisTitle((spec.seconds ? 'median time of one step' : spec.unit) + ' (axis from 0)'),
          ticks: { callback: (value) => (spec.seconds ? compactSeconds(value) : value) },
        },
      }, (item) => item.dataset.label + ': ' + show(item.parsed.y)),
    };
  }

  // kind "timeline": labels (each interval's end, seconds from the start), tps and p99
  // (seconds) per interval: a load cell over time, tps on the left axis, p99 on the right.
  function timelineChart(spec) {
    return {
      type: 'line',
      data: {
        labels: spec.labels.map((t) => Number(t).toPrecision(3) + ' s'),
        datasets: [
          { label: 'tps', data: spec.tps, yAxisID: 'y', borderColor: color(0), backgroundColor: color(0), pointRadius: 2, tension: 0 },
          { label: 'latency p99', data: spec.p99, yAxisID: 'p99', borderColor: color(1), backgroundColor: color(1), pointRadius: 2, tension: 0 },
        ],
      },
      options: options({
        x: { title: { display: true, text: 'time from the start (end of each interval)' } },
        y: { min: 0, position: 'left', title: { display: true, text: 'tps (axis from 0)' } },
        p99: {
          min: 0,
          position: 'right',
          grid: { drawOnChartArea: false },
          title: { display: true, text: 'latency p99 (axis from 0)' },
          ticks: { callback: (value) => compactSeconds(value) },
        },
      }, (item) => item.dataset.label + ': ' +
        (item.datasetIndex === 0 ? item.parsed.y.toFixed(1) + ' tps' : seconds(item.parsed.y))),
    };
  }

  const builders = {
    metrics: metricsChart,
    range: rangeChart,
    latency: latencyChart,
    ratios: ratioChart,
    matrix: matrixChart,
    trend: trendChart,
    timeline: timelineChart,
  };

  // Some dataset has an element at a finite position, and the canvas has ink.
  function drew(chart, canvas) {
    const placed = chart.data.datasets.some((_, d) =>
      chart.getDatasetMeta(d).data.some((el) => isFinite(el.x) && isFinite(el.y)));
    if (!placed || canvas.width === 0 || canvas.height === 0) return false;
    const pixels = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
    for (let i = 3; i < pixels.length; i += 4) {
      if (pixels[i] !== 0) return true;
    }
    return false;
  }

  function showProblem(canvas, text) {
    const note = document.createElement('p');
    note.className = 'chart-problem';
    note.textContent = text;
    canvas.closest('figure').appendChild(note);
  }

  const body = document.body.dataset;
  let charts = [];
  try {
    charts = JSON.parse(document.getElementById('storh-data').textContent).charts;
  } catch (error) {
    body.state = 'failed';
    body.problem = 'page data: ' + error.message;
    return;
  }
  const canvases = document.querySelectorAll('canvas[data-chart]');
  let drawn = 0;
  canvases.forEach(function (canvas) {
    const spec = charts[Number(canvas.dataset.chart)];
    try {
      const build = spec && builders[spec.kind];
      if (!build) throw new Error('unknown chart kind ' + (spec ? spec.kind : '(no data)'));
      const chart = new Chart(canvas, build(spec));
      if (drew(chart, canvas)) {
        canvas.dataset.drawn = 'yes';
        drawn += 1;
      } else {
        canvas.dataset.drawn = 'blank';
        showProblem(canvas, 'This chart has nothing to draw.');
      }
    } catch (error) {
      canvas.dataset.drawn = 'error';
      showProblem(canvas, 'This chart could not be drawn: ' + error.message);
    }
  });
  body.charts = String(canvases.length);
  body.drawn = String(drawn);
  body.state = drawn === canvases.length ? 'done' : 'failed';
})();
