// chart-kit.js — small helpers shared by the chart widgets (<layernorm-explorer>, <ffn-explorer>, <gelu-explorer>): charts sized
// to their box so text stays legible on a phone, HTML legends, grouped bars on d3 band scales. No widget state.
import { axisBottom, axisLeft } from 'd3-axis';
import { scaleBand } from 'd3-scale';

import { createChart, h } from './base.js';

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
  chart.root.select('.y-axis').call(axisLeft(chart.y).ticks(Math.max(3, Math.round(chart.innerH / 45))));
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
