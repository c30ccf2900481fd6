// Appended by html_browser_test.sh to a copy of each page, after the page's own script
// (core/src/report/html/report.js) drew its charts: checks what a reader sees and writes
// each problem found, joined by " | ", or "ok", into <pre id="storh-probe">.
//
// - Every axis: drawn tick labels do not overlap (horizontal labels by their measured
//   width, vertical ones by their line height).
// - Every log axis: at least 4 labels, and no stretch of more than 30% of the axis
//   without one (counting from its ends), so each half of a ratio axis is labelled and
//   a value such as a 40-60 ms p99 can be read off. On a phone (the URL's fragment is
//   #narrow), where fewer labels fit, at least 3 and no stretch of more than 50%.
// - Every axis title lies inside its canvas: centred on its axis, it is no longer than
//   the canvas is high (a y title, drawn upright) or wide (an x title), else the
//   browser cuts off its ends.
// - Trend charts (history): the y axis starts at zero, and its title and the caption say so.
// - Timeline charts (a load cell over time): a sized canvas, one point per interval on
//   each line, none outside the chart area, labelled and titled axes, and a caption
//   naming the interval.
// - YCSB tables (section.ycsb, one per workload): a heading naming the workload, an
//   engine column then ops/s and p99 pairs, every row as wide as the header, and every
//   number cell a figure with its unit or "-".
// - Tables (with every <details> opened): none ends right of the page's content box,
//   and the page does not scroll sideways. On a phone a table may scroll in its box,
//   but the page must not.
(function () {
  'use strict';
  const problems = [];
  const narrow = location.hash === '#narrow';
  const fewestLabels = narrow ? 3 : 4;
  const widestGap = narrow ? 0.5 : 0.3;
  const specs = JSON.parse(document.getElementById('storh-data').textContent).charts;
  const context = document.createElement('canvas').getContext('2d');

  // The labels the scale drew, after Chart.js skipped any (3.9 keeps them in
  // _labelItems once drawn; it has no public getter yet).
  function labelsOf(scale) {
    const items = scale._labelItems || scale._computeLabelItems(scale.chart.chartArea);
    return items.filter((item) => String(item.label) !== '');
  }

  function checkOverlap(name, scale, items) {
    const horizontal = scale.isHorizontal();
    const boxes = items.map(function (item) {
      context.font = item.font.string;
      const size = horizontal ? context.measureText(String(item.label)).width : item.font.lineHeight;
      const at = item.translation[horizontal ? 0 : 1];
      return { label: String(item.label), low: at - size / 2, high: at + size / 2 };
    }).sort((a, b) => a.low - b.low);
    if (horizontal && items.some((item) => item.rotation !== 0)) return;  // measured upright only
    for (let i = 1; i < boxes.length; i += 1) {
      if (boxes[i].low < boxes[i - 1].high) {
        problems.push(name + ': tick labels "' + boxes[i - 1].label + '" and "' + boxes[i].label + '" overlap');
      }
    }
  }

  function checkLogAxis(name, scale, items) {
    const labels = items.map((item) => String(item.label));
    if (items.length < fewestLabels) {
      problems.push(name + ': log axis has ' + items.length + ' labels (' + labels.join(', ') + ')');
    }
    const horizontal = scale.isHorizontal();
    const ends = horizontal ? [scale.left, scale.right] : [scale.top, scale.bottom];
    const stops = items.map((item) => item.translation[horizontal ? 0 : 1]).concat(ends)
      .sort((a, b) => a - b);
    let widest = 0;
    for (let i = 1; i < stops.length; i += 1) widest = Math.max(widest, stops[i] - stops[i - 1]);
    const share = widest / (ends[1] - ends[0]);
    if (share > widestGap) {
      problems.push(name + ': ' + Math.round(share * 100) + '% of the log axis has no label (' +
        labels.join(', ') + ')');
    }
  }

  function checkTitle(name, chart, scale) {
    const title = scale.options.title;
    if (!title || !title.display) return;
    context.font = Chart.helpers.toFont(title.font, chart.options.font).string;
    const lines = [].concat(title.text).map(String);
    const length = Math.max(...lines.map((line) => context.measureText(line).width));
    const horizontal = scale.isHorizontal();
    const centre = horizontal ? (scale.left + scale.right) / 2 : (scale.top + scale.bottom) / 2;
    const room = horizontal ? chart.width : chart.height;
    const low = centre - length / 2;
    const high = centre + length / 2;
    if (low < 0 || high > room) {
      problems.push(name + ': its title "' + lines.join(' ') + '" runs from ' + Math.round(low) +
        'px to ' + Math.round(high) + 'px of a ' + room + 'px canvas: cut off');
    }
  }

  function checkTrend(name, chart, canvas) {
    const y = chart.scales.y;
    if (y.min !== 0) problems.push(name + ': the y axis starts at ' + y.min + ', not at zero');
    const title = [].concat(y.options.title.text).join(' ');
    if (!/from 0/.test(title)) {
      problems.push(name + ': the y axis title "' + title + '" does not say it starts at 0');
    }
    const caption = canvas.closest('figure').querySelector('figcaption').textContent;
    if (!/from zero/.test(caption)) problems.push(name + ': the caption does not say the axis starts at zero');
  }

  // A load cell over time: the canvas has a size, both lines have one point per interval
  // placed inside the chart area, and both y axes and the x axis show labels.
  function checkTimeline(name, chart, canvas, spec) {
    const box = canvas.getBoundingClientRect();
    if (box.width < 100 || box.height < 100) {
      problems.push(name + ': the canvas is ' + box.width + 'x' + box.height + ' px');
    }
    const area = chart.chartArea;
    chart.data.datasets.forEach(function (dataset, d) {
      const points = chart.getDatasetMeta(d).data;
      if (points.length !== spec.labels.length) {
        problems.push(name + ': ' + dataset.label + ' has ' + points.length + ' points for ' +
          spec.labels.length + ' intervals');
      }
      const outside = points.filter((p) => !(p.x >= area.left - 0.5 && p.x <= area.right + 0.5 &&
        p.y >= area.top - 0.5 && p.y <= area.bottom + 0.5));
      if (outside.length > 0) problems.push(name + ': ' + outside.length + ' points of ' + dataset.label + ' are clipped');
    });
    ['x', 'y', 'p99'].forEach(function (id) {
      const scale = chart.scales[id];
      if (!scale || labelsOf(scale).length < 2) problems.push(name + ': axis ' + id + ' has fewer than 2 labels');
      else if (!scale.options.title.display || !scale.options.title.text) problems.push(name + ': axis ' + id + ' has no title');
    });
    const caption = canvas.closest('figure').querySelector('figcaption').textContent;
    if (!/interval/.test(caption)) problems.push(name + ': the caption does not say the interval');
  }

  document.querySelectorAll('canvas[data-chart]').forEach(function (canvas) {
    const spec = specs[Number(canvas.dataset.chart)];
    const chart = Chart.getChart(canvas);
    const name = 'chart ' + canvas.dataset.chart + ' (' + spec.kind + ')';
    Object.values(chart.scales).forEach(function (scale) {
      const items = labelsOf(scale);
      checkOverlap(name + ' axis ' + scale.id, scale, items);
      if (scale.type === 'logarithmic') checkLogAxis(name + ' axis ' + scale.id, scale, items);
      checkTitle(name + ' axis ' + scale.id, chart, scale);
    });
    if (spec.kind === 'trend') checkTrend(name, chart, canvas);
    if (spec.kind === 'timeline') checkTimeline(name, chart, canvas, spec);
  });

  document.querySelectorAll('section.ycsb').forEach(function (section) {
    const name = 'YCSB section ' + section.id;
    const heading = section.querySelector('h2');
    if (!heading || !/^YCSB workload [a-f]$/.test(heading.textContent)) {
      problems.push(name + ': no "YCSB workload <w>" heading');
    }
    const headers = Array.from(section.querySelectorAll('thead th')).map((th) => th.textContent);
    if (headers[0] !== 'engine' || headers[1] !== 'load ops/s' || headers.length % 2 !== 0) {
      problems.push(name + ': columns ' + headers.join(', '));
    }
    const rows = section.querySelectorAll('tbody tr');
    if (rows.length === 0) problems.push(name + ': no engine rows');
    rows.forEach(function (row, i) {
      const cells = Array.from(row.querySelectorAll('td'));
      if (cells.length !== headers.length) {
        problems.push(name + ': row ' + i + ' has ' + cells.length + ' cells for ' + headers.length + ' columns');
      }
      cells.slice(1).forEach(function (cell) {
        const text = cell.textContent;
        if (text !== '-' && !/^[0-9.]+ ?[a-zA-Zµ/]+/.test(text)) {
          problems.push(name + ': row ' + i + ' shows "' + text + '" where a figure belongs');
        }
      });
    });
  });

  document.querySelectorAll('details').forEach((details) => { details.open = true; });
  const style = getComputedStyle(document.body);
  const contentRight = document.body.getBoundingClientRect().right - parseFloat(style.paddingRight);
  document.querySelectorAll('table').forEach(function (table, i) {
    if (narrow) return;
    const right = table.getBoundingClientRect().right;
    if (right > contentRight + 0.5) {
      const head = table.querySelector('th');
      problems.push('table ' + i + ' (' + (head ? head.textContent : '') + ') is ' +
        Math.round(right - contentRight) + 'px wider than the page');
    }
  });
  const page = document.scrollingElement;
  if (page.scrollWidth > page.clientWidth) {
    problems.push('the page scrolls sideways (' + page.scrollWidth + 'px in ' + page.clientWidth + 'px)');
  }

  const out = document.createElement('pre');
  out.id = 'storh-probe';
  out.textContent = problems.length > 0 ? problems.join(' | ') : 'ok';
  document.body.appendChild(out);
})();
