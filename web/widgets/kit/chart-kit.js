// chart-kit.js — the d3 chart helpers shared by the chart widgets (<layernorm-explorer>, <ffn-explorer>,
// <gelu-explorer>, <gpt-explorer>, …): createChart (linear scales, labelled axes), charts sized to their box so text
// stays legible on a phone, HTML legends, overlaid histograms, grouped bars on d3 band scales, heatmaps with keyboard cursors, pointer
// reading and colour legends. No widget state.
import { bin, max, range } from 'd3-array';
import { axisBottom, axisLeft } from 'd3-axis';
import { scaleBand, scaleLinear } from 'd3-scale';
import { pointer, select } from 'd3-selection';

import { h } from './base.js';

/**
 * A responsive SVG chart: viewBox-based so it scales down to narrow screens; returns the d3 selection of the
 * plot group, the scales and a redraw of the axes with labels (units in the label text).
 */
export function createChart(container, { width = 560, height = 300, margin = { top: 12, right: 16, bottom: 44, left: 56 },
  xLabel, yLabel, title, description } = {}) {
  const svg = select(container).append('svg')
    .attr('viewBox', `0 0 ${width} ${height}`)
    .attr('role', 'img')
    .attr('preserveAspectRatio', 'xMidYMid meet');
  if (title) svg.append('title').text(title);
  if (description) svg.append('desc').text(description);
  const innerW = width - margin.left - margin.right;
  const innerH = height - margin.top - margin.bottom;
  const root = svg.append('g').attr('transform', `translate(${margin.left},${margin.top})`);
  const x = scaleLinear().range([0, innerW]);
  const y = scaleLinear().range([innerH, 0]);
  const gx = root.append('g').attr('class', 'axis x-axis').attr('transform', `translate(0,${innerH})`);
  const gy = root.append('g').attr('class', 'axis y-axis');
  root.append('text').attr('class', 'axis-label').attr('x', innerW / 2).attr('y', innerH + 36)
    .attr('text-anchor', 'middle').text(xLabel ?? '');
  root.append('text').attr('class', 'axis-label').attr('transform', 'rotate(-90)')
    .attr('x', -innerH / 2).attr('y', -42).attr('text-anchor', 'middle').text(yLabel ?? '');
  const plot = root.append('g').attr('class', 'plot');
  const drawAxes = ({ xTicks = 7, yTicks = 6 } = {}) => {
    gx.call(axisBottom(x).ticks(xTicks));
    gy.call(axisLeft(y).ticks(yTicks));
  };
  return { svg, root, plot, x, y, innerW, innerH, drawAxes, margin };
}

/**
 * Histograms of several series on one chart from createChart, binned alike (the x domain cut at chart.x.ticks(ticks))
 * and drawn overlaid, one <g class="cls"> of rects per series: series = [{values, fill, opacity?, cls?}]. Set the x
 * domain first; this sets the y domain (0 to the tallest bin) — draw the axes after. Returns each series' bins.
 */
export function overlaidHistogram(chart, series, { ticks = 40 } = {}) {
  const binner = bin().domain(chart.x.domain()).thresholds(chart.x.ticks(ticks));
  const binned = series.map((s) => binner(s.values));
  chart.y.domain([0, max(binned.flat(), (b) => b.length)]).nice();
  series.forEach((s, i) => {
    chart.plot.append('g').attr('class', s.cls ?? null).selectAll('rect').data(binned[i]).join('rect')
      .attr('x', (b) => chart.x(b.x0) + 0.5).attr('width', (b) => Math.max(0, chart.x(b.x1) - chart.x(b.x0) - 1))
      .attr('y', (b) => chart.y(b.length)).attr('height', (b) => chart.y(0) - chart.y(b.length))
      .attr('fill', s.fill).attr('fill-opacity', s.opacity ?? null);
  });
  return binned;
}

/** Gives a chart's SVG its natural size (1 viewBox unit = 1 CSS px; it still shrinks to fit its box). */
export function naturalSize(chart, width, height) {
  chart.svg.attr('width', width).attr('height', height);
  return chart;
}

/** The width a chart drawn into `box` should have (its viewBox is then 1:1 with CSS pixels). */
export function chartWidth(box, { min = 280, max = 680 } = {}) {
  const w = Math.floor(box.getBoundingClientRect().width || box.clientWidth || max);
  return Math.max(min, Math.min(max, w));
}

/** Calls onResize() when the element's width changes by more than `step` px (redraws charts at the new size). */
export function watchWidth(element, onResize, step = 24) {
  let last = null;
  let frame = 0;
  const ro = new ResizeObserver(([entry]) => {
    const w = entry.contentRect.width;
    if (last !== null && Math.abs(w - last) < step) return;
    const first = last === null;
    last = w;
    if (first) return;
    cancelAnimationFrame(frame);
    frame = requestAnimationFrame(onResize);
  });
  ro.observe(element);
  return () => ro.disconnect();
}

/**
 * Places a text annotation for the point (px, py) of `chart`'s plot (plot coordinates, px) where it covers none of the
 * `avoid` points (the plotted lines' vertices in px; a line's points at most a few px apart), inside the plot area:
 * the first free spot of a ring of candidates around the point, nearest first, else the one covering fewest points.
 * A label set apart from its point gets a thin leader line. Returns the <text> selection (class `cls`).
 */
export function placeLabel(chart, { px, py, text, avoid, cls = 'annotation', color = 'var(--bs-muted)' }) {
  const g = chart.plot.append('g').attr('class', cls);
  const label = g.append('text').attr('paint-order', 'stroke').attr('stroke', 'var(--bs-bg)').attr('stroke-width', 4)
    .attr('dominant-baseline', 'middle').text(text);
  const w = label.node().getComputedTextLength?.() || 7 * text.length;
  const hgt = 14;
  const spots = [];
  for (const dy of [-16, 16, -32, 32, -48, 48, -64, 64, -84, -104]) {
    // Ending left of the point, starting right of it, centred on it, against the plot's left or right edge: the
    // label's left edge x0 and its middle y.
    for (const x0 of [px - 8 - w, px + 8, px - w / 2, 4, chart.innerW - 4 - w]) spots.push([x0, py + dy]);
  }
  const hits = ([x0, yc]) => {
    if (x0 < 2 || x0 + w > chart.innerW - 2 || yc - hgt / 2 < 2 || yc + hgt / 2 > chart.innerH - 2) return Infinity;
    let n = 0;
    for (const [x, y] of avoid) if (x >= x0 - 3 && x <= x0 + w + 3 && y >= yc - hgt / 2 - 3 && y <= yc + hgt / 2 + 3) n++;
    return n;
  };
  let best = null;
  let fewest = Infinity;
  for (const spot of spots) {
    const n = hits(spot);
    if (n < fewest) [best, fewest] = [spot, n];
    if (n === 0) break;
  }
  best ??= [Math.max(2, px - w / 2), Math.max(hgt, py - 16)];
  label.attr('x', best[0]).attr('y', best[1]);
  if (Math.abs(best[1] - py) > 20) {
    const ex = Math.min(Math.max(px, best[0]), best[0] + w);
    const ey = best[1] + (best[1] < py ? hgt / 2 : -hgt / 2);
    g.insert('line', 'text').attr('class', 'leader').attr('x1', px).attr('y1', py + Math.sign(ey - py) * 6)
      .attr('x2', ex).attr('y2', ey).attr('stroke', color).attr('stroke-width', 1);
  }
  return label;
}

/**
 * Whether the page's primary pointer is a finger ((pointer: coarse): phones, tablets), where nothing can hover.
 * Instructions for reading a chart then speak of tapping and dragging.
 */
export function coarsePointer() {
  return typeof matchMedia === 'function' && matchMedia('(pointer: coarse)').matches;
}

/** The message key of a chart's reading instructions: `key`, or `key.touch` where coarsePointer(). */
export function pointerKey(key) {
  return coarsePointer() ? `${key}.touch` : key;
}

/** A legend in HTML (wraps on narrow screens): [{label, color, outline?}] -> <ul>. Decorative for screen readers
 * only when the numbers are in a table nearby. */
export function legend(items) {
  return h('ul', { class: 'legend', 'aria-hidden': 'true' },
    ...items.map(({ label, color, outline }) => h('li', {},
      h('span', { class: 'swatch', style: outline ? `border: 2px solid ${color}` : `background: ${color}` }), label)));
}

/** CSS for legend(), vector cells and change highlights, shared by the widgets that use this kit. */
export const KIT_CSS = `
.legend { list-style: none; display: flex; flex-wrap: wrap; gap: 0.2rem 1rem; padding: 0; margin: 0.25rem 0; font-size: 0.9rem; }
.legend li { display: inline-flex; align-items: center; gap: 0.35rem; }
.swatch { display: inline-block; width: 0.9rem; height: 0.9rem; border-radius: 2px; }
.vec { display: flex; flex-wrap: wrap; gap: 0 0.6rem; justify-content: flex-end; }
.vec span { white-space: nowrap; }
.changed { background: color-mix(in srgb, var(--bs-c5) 28%, transparent); outline: 1px solid var(--bs-c5); border-radius: 3px; }
@media (prefers-reduced-motion: no-preference) {
  .changed { animation: bs-flash 700ms ease-out; }
  @keyframes bs-flash { from { background: color-mix(in srgb, var(--bs-c5) 70%, transparent); } }
}
fieldset { border: 1px solid var(--bs-border); border-radius: 6px; margin: 0.5rem 0; padding: 0.4rem 0.6rem 0.6rem; min-width: 0; }
legend.fs { font-weight: 600; padding: 0 0.3rem; }
h4 { font-size: 1rem; margin: 0.9rem 0 0.3rem; }
.chart { margin: 0.25rem 0; }
.chart svg { width: auto; max-width: 100%; height: auto; }
select { max-width: 100%; min-width: 0; }
dl.stats { display: grid; grid-template-columns: max-content auto; gap: 0.1rem 0.8rem; margin: 0.3rem 0; }
dl.stats dt { color: var(--bs-muted); }
dl.stats dd { margin: 0; font-variant-numeric: tabular-nums; font-family: ui-monospace, "SF Mono", Menlo, Consolas, monospace; }
.note { border-left: 3px solid var(--bs-c4); padding: 0.2rem 0.6rem; background: var(--bs-panel); border-radius: 0 4px 4px 0; }
/* Two columns (a chart and its table) when the widget is wide, one column otherwise. */
.pair { display: grid; grid-template-columns: minmax(0, 1fr); gap: 0.25rem 1.5rem; align-items: start; }
@container (min-width: 860px) { .pair { grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); } .pair.even { grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); } }
@container (max-width: 420px) { table { font-size: 0.85rem; } th, td { padding: 0.15rem 0.3rem; } }
`;

/**
 * Grouped vertical bars: groups along x (band), one bar per series inside each group, values from 0.
 * series: [{key, label, color, values: number[] (one per group)}]; returns the chart from createChart.
 */
export function groupedBars(box, { groups, series, width, height = 250, xLabel, yLabel, title, description,
  extraY = [], margin }) {
  const chart = createChart(box, { width, height, xLabel, yLabel, title, description,
    margin: margin ?? { top: 12, right: 12, bottom: 44, left: 56 } });
  const x = scaleBand().domain(groups).range([0, chart.innerW]).paddingInner(0.22).paddingOuter(0.1);
  const inner = scaleBand().domain(series.map((s) => s.key)).range([0, x.bandwidth()]).padding(0.08);
  const all = [0, ...extraY, ...series.flatMap((s) => s.values)];
  chart.y.domain([Math.min(...all), Math.max(...all)]).nice();
  chart.root.select('.x-axis').call(axisBottom(x).tickSizeOuter(0));
  // Values of a million or more tick as 8e+29, not as 30 digits that would run out of the margin.
  const big = Math.max(...chart.y.domain().map(Math.abs)) >= 1e6;
  chart.root.select('.y-axis').call(axisLeft(chart.y).ticks(Math.max(3, Math.round(chart.innerH / 45)), big ? '~e' : undefined));
  chart.plot.append('line').attr('class', 'zero').attr('x1', 0).attr('x2', chart.innerW)
    .attr('y1', chart.y(0)).attr('y2', chart.y(0)).attr('stroke', 'var(--bs-muted)');
  for (const s of series) {
    chart.plot.append('g').attr('data-series', s.key).attr('fill', s.color)
      .selectAll('rect').data(s.values).join('rect')
      .attr('x', (_, i) => x(groups[i]) + inner(s.key))
      .attr('width', inner.bandwidth())
      .attr('y', (v) => chart.y(Math.max(0, v)))
      .attr('height', (v) => Math.abs(chart.y(v) - chart.y(0)))
      .attr('data-value', (v) => v);
  }
  chart.band = x;
  return naturalSize(chart, width, height);
}

// Colour ramps as d3 interpolators (scaleLinear over colour stops): viridis for magnitudes, a blue–red diverging
// ramp for signed values. Both read on light and dark backgrounds.
export const VIRIDIS = scaleLinear().domain([0, 0.25, 0.5, 0.75, 1]).range(['#440154', '#3b528b', '#21918c', '#5ec962', '#fde725']);
export const DIVERGING = scaleLinear().domain([0, 0.25, 0.5, 0.75, 1]).range(['#2166ac', '#67a9cf', '#f7f7f7', '#ef8a62', '#b2182b']);

/** Marks axis tick labels that have a title (e.g. a byte shown as <0xNN>): class byte-label and a tooltip. */
function titleTicks(axis, titleOf) {
  if (!titleOf) return;
  axis.selectAll('.tick').each(function (d) {
    const title = titleOf(d);
    if (!title) return;
    select(this).select('text').classed('byte-label', true).append('title').text(title);
  });
}

/**
 * A rows × cols heatmap with d3 band scales and axes, as wide as `maxWidth` (its box) or narrower: the cells shrink to
 * fit down to `minCell` px, and only a map whose cells would be narrower than that is drawn wider than the box, which
 * then scrolls horizontally (the page does not). The x-axis title sits right under the (rotated) tick labels, however
 * long they are. `skip(r, c)` leaves a cell out;
 * `rowTitle(r)` / `colTitle(c)` give a tick label a tooltip (and the byte-label class) when they return text.
 * Returns the scales, `cursor(r, c)` to move the highlight and `highlight({rows, cols})` to outline linked rows and columns.
 */
export function heatmap(box, { rows, cols, value, color, rowLabel, colLabel, rowTitle, colTitle, xLabel, yLabel, title,
  description, maxWidth, cellH, square = false, skip = () => false, minCell = 8, onCell }) {
  const margin = { top: 8, right: 10, bottom: 66, left: 70 };
  const avail = Math.max(160, maxWidth - margin.left - margin.right);
  const cw = Math.max(minCell, Math.min(square ? 28 : 40, avail / cols));
  const ch = square ? cw : cellH;
  const innerW = cw * cols;
  const innerH = ch * rows;
  const W = Math.ceil(innerW + margin.left + margin.right);
  const H = Math.ceil(innerH + margin.top + margin.bottom);
  box.replaceChildren();
  const svg = select(box).append('svg').attr('class', 'heat').attr('width', W).attr('height', H)
    .attr('viewBox', `0 0 ${W} ${H}`).attr('role', 'img')
    .style('touch-action', 'pan-y').style('-webkit-user-select', 'none').style('user-select', 'none');
  svg.append('title').text(title);
  svg.append('desc').text(description);
  const root = svg.append('g').attr('transform', `translate(${margin.left},${margin.top})`);
  const x = scaleBand().domain(range(cols)).range([0, innerW]);
  const y = scaleBand().domain(range(rows)).range([0, innerH]);
  const cells = [];
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) if (!skip(r, c)) cells.push([r, c, value(r, c)]);
  root.append('g').selectAll('rect').data(cells).join('rect')
    .attr('x', (d) => x(d[1])).attr('y', (d) => y(d[0])).attr('width', x.bandwidth() + 0.4).attr('height', y.bandwidth() + 0.4)
    .attr('fill', (d) => color(d[2]))
    .on('pointerenter', (_, d) => onCell?.(d[0], d[1]));
  // Touch: a tap or a drag across the cells moves the readout. The SVG captures the pointer (so the drag keeps
  // reading when the finger strays onto the axes) and reads the cell under it from the band scales; pointerenter
  // would not fire on the cells a captured finger crosses. touch-action: pan-y gives sideways drags to this reading
  // while vertical swipes still scroll the page; a heatmap wider than the screen still scrolls sideways with its
  // box's scrollbar (overflow-x: auto) — reading cells is what a sideways drag on the cells is for.
  const cellAt = (e) => {
    const [px, py] = pointer(e, root.node());
    const c = Math.floor(px / cw);
    const r = Math.floor(py / ch);
    return r >= 0 && r < rows && c >= 0 && c < cols && !skip(r, c) ? [r, c] : null;
  };
  let dragging = null;
  svg.on('pointerdown', (e) => {
    if (e.pointerType === 'mouse') return; // a mouse reads by hovering (pointerenter)
    dragging = e.pointerId;
    try { svg.node().setPointerCapture(e.pointerId); } catch { /* a synthetic event has no active pointer */ }
    const cell = cellAt(e);
    if (cell) onCell?.(...cell);
  });
  svg.on('pointermove', (e) => {
    if (e.pointerId !== dragging) return;
    const cell = cellAt(e);
    if (cell) onCell?.(...cell);
  });
  svg.on('pointerup pointercancel', (e) => {
    if (e.pointerId === dragging) dragging = null;
  });
  const everyX = Math.ceil(13 / x.bandwidth());
  const gx = root.append('g').attr('class', 'axis').attr('transform', `translate(0,${innerH})`)
    .call(axisBottom(x).tickValues(x.domain().filter((c) => c % everyX === 0)).tickFormat(colLabel).tickSizeOuter(0));
  gx.selectAll('text').attr('transform', 'rotate(-55)').attr('text-anchor', 'end').attr('dx', '-0.5em').attr('dy', '0.1em');
  titleTicks(gx, colTitle);
  const everyY = Math.ceil(13 / y.bandwidth());
  const gy = root.append('g').attr('class', 'axis')
    .call(axisLeft(y).tickValues(y.domain().filter((r) => r % everyY === 0)).tickFormat(rowLabel).tickSizeOuter(0));
  titleTicks(gy, rowTitle);
  // The title under the tick labels' real extent (getBBox; 0 while the box is hidden: then the default margin).
  const ticksH = Math.ceil(gx.node().getBBox?.().height || 0) || margin.bottom - 18;
  margin.bottom = ticksH + 22;
  const fullH = Math.ceil(innerH + margin.top + margin.bottom);
  svg.attr('height', fullH).attr('viewBox', `0 0 ${W} ${fullH}`);
  root.append('text').attr('class', 'axis-label x-title').attr('x', innerW / 2).attr('y', innerH + ticksH + 16)
    .attr('text-anchor', 'middle').text(xLabel);
  root.append('text').attr('class', 'axis-label y-title').attr('transform', 'rotate(-90)').attr('x', -innerH / 2)
    .attr('y', -margin.left + 12).attr('text-anchor', 'middle').text(yLabel);
  const bands = root.append('g').attr('class', 'linked-bands');
  const cursor = root.append('rect').attr('class', 'cursor').attr('width', x.bandwidth()).attr('height', y.bandwidth())
    .attr('visibility', 'hidden');
  return {
    x, y,
    cursor(r, c) {
      cursor.attr('x', x(c)).attr('y', y(r)).attr('visibility', 'visible');
    },
    /** Outlines whole rows and columns (linked selection, kit/linked-selection.js) and marks their tick labels. */
    highlight({ rows: rs = [], cols: cs = [] } = {}) {
      const spans = [...rs.filter((r) => r >= 0 && r < rows).map((r) => ({ cls: 'row', r, x: 0, y: y(r), w: innerW, h: y.bandwidth() })),
        ...cs.filter((c) => c >= 0 && c < cols).map((c) => ({ cls: 'col', c, x: x(c), y: 0, w: x.bandwidth(), h: innerH }))];
      bands.selectAll('rect').data(spans).join('rect').attr('class', (d) => `linked-band ${d.cls}`)
        .attr('data-index', (d) => d.r ?? d.c).attr('x', (d) => d.x).attr('y', (d) => d.y).attr('width', (d) => d.w).attr('height', (d) => d.h);
      gx.selectAll('.tick text').classed('linked', (c) => cs.includes(c));
      gy.selectAll('.tick text').classed('linked', (r) => rs.includes(r));
    },
  };
}

/**
 * A horizontal colour legend: its label (units in the label) above the ramp, drawn as small rects, and a d3 axis
 * under it. The label heads the bar it names, so it never reads as the title of the chart above (a
 * blank band above it, inside its own SVG, so every page's CSS keeps the gap).
 */
export function colorLegend(box, { color, domain, label, width = 300 }) {
  const W = Math.min(width, 320);
  const margin = { left: 14, right: 20 };
  box.replaceChildren();
  const svg = select(box).append('svg').attr('class', 'color-legend').attr('viewBox', `0 0 ${W} 64`).attr('aria-hidden', 'true');
  const x = scaleLinear().domain(domain).range([margin.left, W - margin.right]);
  const n = 48;
  const step = (domain[1] - domain[0]) / n;
  svg.append('text').attr('class', 'axis-label legend-title').attr('x', margin.left).attr('y', 26).text(label);
  svg.append('g').attr('class', 'ramp').selectAll('rect').data(range(n)).join('rect')
    .attr('x', (i) => x(domain[0] + i * step)).attr('y', 32).attr('height', 12)
    .attr('width', (W - margin.left - margin.right) / n + 0.5).attr('fill', (i) => color(domain[0] + (i + 0.5) * step));
  svg.append('g').attr('class', 'axis').attr('transform', 'translate(0,44)').call(axisBottom(x).ticks(4).tickSizeOuter(0));
}

/** Moves a (row, col) cursor with the arrow keys / Home / End inside [0, rows) × [0, cols(row)); null for other keys. */
export function moveCell([r, c], key, rows, colsOf) {
  const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
  if (key === 'Home') return [r, 0];
  if (key === 'End') return [r, colsOf(r) - 1];
  if (!(key in moves)) return null;
  const nr = Math.min(rows - 1, Math.max(0, r + moves[key][0]));
  return [nr, Math.min(colsOf(nr) - 1, Math.max(0, c + moves[key][1]))];
}
