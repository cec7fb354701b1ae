// residual-chart.js — <residual-flow-explorer>'s log-scale chart of each layer's weight-gradient norm (both nets,
// zeros and overflows on the edges) and the number formats its readouts use: norms and ratios as the lesson prints
// them (3 decimals, 3 significant digits, scientific notation when tiny or huge), in the widget's language
// (`host.num`: 0,0523 and 1,23e−5 in German). Chart tick labels stay as d3 writes them. Helpers, no custom element.
import { range } from 'd3-array';
import { axisBottom, axisLeft } from 'd3-axis';
import { scaleLog } from 'd3-scale';
import { line, symbol, symbolCircle, symbolSquare } from 'd3-shape';

import { createChart, naturalSize } from '../kit/chart-kit.js';

const SYMBOLS = { circle: symbolCircle, square: symbolSquare };
const SUPERSCRIPT = { '-': '⁻', 0: '⁰', 1: '¹', 2: '²', 3: '³', 4: '⁴', 5: '⁵', 6: '⁶', 7: '⁷', 8: '⁸', 9: '⁹' };
const minus = (s) => s.replace(/-/g, '−');

/** `text`, a number as JavaScript writes it without an exponent ("0.0523"), in host's language with its decimals. */
export const asWritten = (host, text) => host.num(Number(text), (text.split('.')[1] ?? '').length);

/** v in scientific notation with `digits` decimals: 1.23e−5 (English), 1,23e−5 (German). */
export function sciText(host, v, digits) {
  const [m, e] = v.toExponential(digits).split('e');
  return `${host.num(Number(m), digits)}e${minus(e)}`;
}

/** A gradient norm for reading: 3 decimals like the lesson's printout (3 digits below 1), scientific notation when
 * tiny or huge. */
export function formatNorm(host, v) {
  if (v === 0) return host.num(0);
  if (!Number.isFinite(v)) return Number.isNaN(v) ? 'NaN' : '∞';
  if (v >= 1e5 || v < 1e-2) return sciText(host, v, 2);
  return v >= 1 ? host.num(v, 3) : asWritten(host, v.toPrecision(3));
}

/** A ratio for reading: 3 significant digits, scientific notation when tiny or huge. */
export function formatRatio(host, r) {
  if (r === 0) return host.num(0);
  if (!Number.isFinite(r)) return Number.isNaN(r) ? host.t('residual.undefined') : '∞';
  if (r >= 1e4 || r < 1e-2) return sciText(host, r, 2);
  return asWritten(host, String(Number(r.toPrecision(3))));
}

/** 1e-7 -> "10⁻⁷"; 0.01 … 1000 as plain numbers; 20, 0.5 as they are. */
function tickLabel(v) {
  const k = Math.log10(v);
  const K = Math.round(k);
  if (Math.abs(k - K) > 1e-9) return minus(String(Number(v.toPrecision(2))));
  if (K >= -2 && K <= 3) return String(Number(`1e${K}`));
  return `10${[...String(K)].map((c) => SUPERSCRIPT[c]).join('')}`;
}

/** Tick values for a log axis: powers of ten (every 1, 2, 5, 10, … decades, at most ~6) or 1-2-5 within a decade. */
function logTicks(y) {
  const [lo, hi] = y.domain();
  const k0 = Math.ceil(Math.log10(lo));
  const k1 = Math.floor(Math.log10(hi));
  if (k1 - k0 >= 1) {
    const step = [1, 2, 3, 5, 10, 20, 50].find((s) => Math.floor(k1 / s) - Math.ceil(k0 / s) + 1 <= 6) ?? 100;
    return range(Math.ceil(k0 / step) * step, k1 + 1, step).map((k) => Number(`1e${k}`));
  }
  return y.ticks().filter((v) => [1, 2, 5].includes(Number((v / 10 ** Math.floor(Math.log10(v) + 1e-9)).toPrecision(1))));
}

/**
 * Draws series [{key, label, color, dash, symbol: 'circle'|'square', values: number[] (layer 1 first)}] on a
 * log-scale y axis. Zeros (float32 underflow) sit on the bottom edge as hollow marks and overflows (∞, NaN) on the
 * top edge; lines break there. Returns {zeros, overflows}: how many values could not be placed on the scale.
 */
export function drawNormChart(box, { series, width, height, title, description, xLabel, yLabel }) {
  const depth = series[0].values.length;
  const chart = createChart(box, {
    width, height, margin: { top: 14, right: 18, bottom: 44, left: 66 }, xLabel, yLabel, title, description,
  });
  naturalSize(chart, width, height);
  chart.root.selectAll('.axis-label').filter((_, i) => i === 1).attr('y', -52);
  const all = series.flatMap((s) => s.values);
  const placed = all.filter((v) => v > 0 && Number.isFinite(v));
  const lo = placed.length ? Math.min(...placed) : 1e-3;
  const hi = placed.length ? Math.max(...placed) : 1;
  const y = scaleLog().domain([lo / 1.8, hi * 1.8]).range([chart.innerH, 0]);
  const x = chart.x.domain(depth === 1 ? [0.5, 1.5] : [1, depth]);
  const every = Math.ceil(depth / Math.max(2, Math.floor(chart.innerW / 36)));
  chart.root.select('.x-axis').call(axisBottom(x).tickValues(range(1, depth + 1).filter((l) => l === 1 || l % every === 0))
    .tickFormat((l) => String(l)));
  const yTicks = logTicks(y);
  chart.root.select('.y-axis').call(axisLeft(y).tickValues(yTicks).tickFormat(tickLabel));
  chart.plot.append('g').attr('class', 'grid').selectAll('line').data(yTicks).join('line')
    .attr('x1', 0).attr('x2', chart.innerW).attr('y1', (v) => y(v)).attr('y2', (v) => y(v));
  const ok = (v) => v > 0 && Number.isFinite(v);
  const yOf = (v) => (ok(v) ? y(v) : v === 0 ? chart.innerH : 0);
  const path = line().defined(ok).x((_, i) => x(i + 1)).y((v) => y(v));
  for (const s of series) {
    const g = chart.plot.append('g').attr('data-series', s.key);
    g.append('path').attr('d', path(s.values)).attr('fill', 'none').attr('stroke', s.color).attr('stroke-width', 2)
      .attr('stroke-dasharray', s.dash);
    g.selectAll('path.mark').data(s.values).join('path').attr('class', 'mark')
      .attr('d', symbol(SYMBOLS[s.symbol], 48))
      .attr('transform', (v, i) => `translate(${x(i + 1)},${yOf(v)})`)
      .attr('fill', (v) => (ok(v) ? s.color : 'var(--bs-bg)'))
      .attr('stroke', s.color).attr('stroke-width', 1.5)
      .attr('data-layer', (_, i) => i + 1).attr('data-value', (v) => v);
  }
  return { zeros: all.filter((v) => v === 0).length, overflows: all.filter((v) => !Number.isFinite(v)).length };
}
