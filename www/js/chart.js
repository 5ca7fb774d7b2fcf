// The replay chart: the context of each request without compaction and with it (after
// maybeCompact), against the context limit and the threshold. Inline SVG drawn from the
// rows of replay(); every point carries its figures as data-* attributes and a <title>.
import { describeRow, replayTotals } from './replay.js';

const NS = 'http://www.w3.org/2000/svg';
const WIDTH = 760;
const HEIGHT = 306;
const PLOT = { left: 62, right: 628, top: 56, bottom: 262 };

/** `svg('line', { x1: 0, class: 'x' }, child, …)`: an SVG element. */
function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(NS, tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null) continue;
    if (key === 'text') node.textContent = value;
    else node.setAttribute(key, String(value));
  }
  node.append(...children.flat(Infinity).filter((c) => c !== null && c !== undefined));
  return node;
}

const tokens = (n) => n.toLocaleString('en-US');
const percent = (n, limit) => `${Math.round((n / limit) * 100)} %`;

/** A round step for about five ticks up to `max`: 1, 2 or 5 times a power of ten, whole tokens. */
function tickStep(max) {
  const raw = Math.max(max / 5, 1);
  const power = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 5, 10].map((m) => m * power).find((step) => step >= raw);
}

/** Words for one request, the tooltip of its point. */
function pointTitle(row, limit) {
  const what = describeRow(row);
  return `Request ${row.request}: ${row.messages} messages, ${tokens(row.uncompacted)} tokens without compaction; `
    + `${tokens(row.before)} → ${tokens(row.after)} tokens with it (${percent(row.after, limit)} of the limit)`
    + (what ? `. ${what[0].toUpperCase()}${what.slice(1)}.` : '.');
}

/** The summary read by screen readers. */
function ariaLabel(rows, limit) {
  if (rows.length === 0) return 'Context per request: this conversation has no model call (no assistant message).';
  const t = replayTotals(rows);
  return `Context per request over ${rows.length} requests: peak ${tokens(t.peakUncompacted)} tokens `
    + `(${percent(t.peakUncompacted, limit)} of the ${tokens(limit)}-token limit) without compaction, `
    + `${tokens(t.peakAfter)} tokens (${percent(t.peakAfter, limit)}) with compaction; `
    + `${t.compactions} compaction${t.compactions === 1 ? '' : 's'}, `
    + `${t.notFitting === 0 ? 'every request fits' : `${t.notFitting} request${t.notFitting === 1 ? '' : 's'} over the limit`}.`;
}

/** Two rows: the lines, then the markers. */
function legend() {
  const line = (cls) => svg('line', { class: cls, x1: 0, y1: 0, x2: 18, y2: 0 });
  const rows = [
    [['without compaction', line('series-uncompacted')], ['with compaction (what each request sends)', line('series-compacted')],
      ['limit', line('limit-line')], ['threshold', line('threshold-line')]],
    [['compaction ran', svg('circle', { class: 'swatch compaction', cx: 9, cy: 0, r: 5 })],
      ['context before compacting', svg('g', { class: 'drop' }, svg('line', { x1: 9, x2: 9, y1: -6, y2: 6 }), svg('line', { x1: 4, x2: 14, y1: -6, y2: -6 }))],
      ['does not fit', svg('circle', { class: 'swatch over', cx: 9, cy: 0, r: 5 })]],
  ];
  return svg('g', { class: 'legend' }, rows.map((items, i) => {
    let x = PLOT.left;
    return items.map(([label, swatch]) => {
      const item = svg('g', { transform: `translate(${x} ${14 + i * 18})` }, swatch, svg('text', { x: 24, y: 4, text: label }));
      x += 40 + label.length * 6.4;
      return item;
    });
  }));
}

/**
 * Draws `rows` (from replay()) into the <svg> element `chart`, with the horizontal lines of
 * `contextLimit` and `contextLimit × threshold`.
 */
export function drawChart(chart, rows, { contextLimit, threshold }) {
  const thresholdTokens = contextLimit * threshold;
  const t = replayTotals(rows);
  const highest = Math.max(t.peakUncompacted, t.peakBefore, contextLimit) * 1.05;
  const step = tickStep(highest);
  const yMax = step * Math.ceil(highest / step);
  const y = (v) => PLOT.bottom - (v / yMax) * (PLOT.bottom - PLOT.top);
  const x = (request) => (rows.length <= 1
    ? (PLOT.left + PLOT.right) / 2
    : PLOT.left + ((request - 1) / (rows.length - 1)) * (PLOT.right - PLOT.left));
  const round = (v) => Math.round(v * 10) / 10;

  const yTicks = [];
  for (let v = 0; v <= yMax; v += step) {
    yTicks.push(svg('g', { class: 'tick' },
      svg('line', { class: 'grid', x1: PLOT.left, x2: PLOT.right, y1: round(y(v)), y2: round(y(v)) }),
      svg('text', { x: PLOT.left - 8, y: round(y(v)) + 4, 'text-anchor': 'end', text: tokens(v) })));
  }
  const every = Math.ceil(rows.length / 16);
  const xTicks = rows.filter((row) => (row.request - 1) % every === 0 || row.request === rows.length)
    .map((row) => svg('text', { class: 'tick', x: round(x(row.request)), y: PLOT.bottom + 16, 'text-anchor': 'middle', text: row.request }));

  // The labels of the two horizontal lines, apart when the lines are close.
  const limitY = round(y(contextLimit));
  const thresholdY = round(y(thresholdTokens));
  const thresholdLabelY = Math.max(thresholdY + 4, limitY + 16);
  const level = (cls, value, lineY, labelY, label) => svg('g', {},
    svg('line', { class: cls, x1: PLOT.left, x2: PLOT.right, y1: lineY, y2: lineY, 'data-value': value }),
    svg('text', { class: `${cls}-label`, x: PLOT.right + 10, y: labelY, text: label }));

  const polyline = (cls, key) => svg('polyline', {
    class: cls, points: rows.map((row) => `${round(x(row.request))},${round(y(row[key]))}`).join(' '),
  });
  // What each compaction cut: from the context before it down to the point sent.
  const drops = rows.filter((row) => row.outcome !== null && row.before !== row.after).map((row) => {
    const cx = round(x(row.request));
    const top = round(y(row.before));
    return svg('g', { class: 'drop' },
      svg('line', { x1: cx, x2: cx, y1: top, y2: round(y(row.after)) }),
      svg('line', { x1: cx - 5, x2: cx + 5, y1: top, y2: top }));
  });
  const points = rows.map((row) => {
    const kind = !row.fits ? ' over' : row.outcome !== null ? ' compaction' : '';
    return svg('circle', {
      class: `point${kind}`,
      cx: round(x(row.request)),
      cy: round(y(row.after)),
      r: kind ? 5 : 3,
      'data-request': row.request,
      'data-messages': row.messages,
      'data-uncompacted': row.uncompacted,
      'data-before': row.before,
      'data-after': row.after,
      'data-fits': row.fits,
      'data-compaction': row.outcome !== null,
    }, svg('title', { text: pointTitle(row, contextLimit) }));
  });

  chart.setAttribute('viewBox', `0 0 ${WIDTH} ${HEIGHT}`);
  chart.setAttribute('aria-label', ariaLabel(rows, contextLimit));
  Object.assign(chart.dataset, { requests: rows.length, yMax, plotTop: PLOT.top, plotBottom: PLOT.bottom });
  chart.replaceChildren(...[
    legend(),
    svg('g', { class: 'axis y' }, yTicks,
      svg('text', { class: 'axis-label', transform: `translate(14 ${(PLOT.top + PLOT.bottom) / 2}) rotate(-90)`, 'text-anchor': 'middle', text: 'tokens' })),
    svg('g', { class: 'axis x' }, xTicks,
      svg('line', { class: 'baseline', x1: PLOT.left, x2: PLOT.right, y1: PLOT.bottom, y2: PLOT.bottom }),
      svg('text', { class: 'axis-label', x: (PLOT.left + PLOT.right) / 2, y: HEIGHT - 8, 'text-anchor': 'middle', text: 'request (one model call before each assistant message)' })),
    level('threshold-line', thresholdTokens, thresholdY, thresholdLabelY, `threshold ${tokens(Math.round(thresholdTokens))}`),
    level('limit-line', contextLimit, limitY, limitY + 4, `limit ${tokens(contextLimit)}`),
    rows.length === 0 ? svg('text', { class: 'empty', x: (PLOT.left + PLOT.right) / 2, y: (PLOT.top + PLOT.bottom) / 2, 'text-anchor': 'middle', text: 'No model call to replay (no assistant message).' }) : null,
    polyline('series-uncompacted', 'uncompacted'),
    svg('g', { class: 'drops' }, drops),
    polyline('series-compacted', 'after'),
    svg('g', { class: 'points' }, points),
  ].filter((node) => node !== null));
}
