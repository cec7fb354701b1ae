// block-charts.js — <block-explorer>'s views of the core's inspection: the step's statistics averaged over tokens,
// per-token bars and table, and the residual stream's L2 norm across depth (pre- vs post-norm). Functions of their
// boxes and data, no widget state.
import { extent, max, mean } from 'd3-array';
import { axisBottom, axisLeft } from 'd3-axis';
import { scaleBand } from 'd3-scale';
import { line } from 'd3-shape';

import { fmt, h } from '../kit/base.js';
import { createChart } from '../kit/chart-kit.js';

export const METRICS = {
  norm: { label: 'L2 norm', axis: 'L2 norm of x (per token)' },
  mean: { label: 'mean', axis: 'mean of x over features (per token)' },
  var: { label: 'variance', axis: 'variance of x over features (per token)' },
};
const avg = (arr) => mean(arr);

/** The step's mean, variance and L2 norm averaged over tokens, next to what a LayerNorm output would show. */
export function renderSummary({ table, caption }, step, { isEmbedding, d }) {
  const row = (label, key, values, ref) => h('tr', {}, h('th', { scope: 'row' }, label),
    h('td', { class: 'num', 'data-stat': key }, fmt(avg(values), 4)), h('td', { class: 'muted' }, ref));
  caption.textContent = `Averaged over the ${step.mean.length} tokens (each token's value is ` +
    `from the core)${isEmbedding ? '; the input of block 1 is the embedding sum' : ''}:`;
  table.replaceChildren(
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'statistic'), h('th', { scope: 'col' }, 'value'),
      h('th', { scope: 'col' }, 'after LayerNorm'))),
    h('tbody', {},
      row('mean', 'mean', step.mean, '0'),
      row('variance', 'var', step.var, '≈ 1'),
      row('L2 norm', 'norm', step.norm, `≈ √${d} = ${fmt(Math.sqrt(d), 2)}`)),
  );
}

/** One bar per token: the step's `metric` (norm | mean | var), with the LayerNorm reference line. */
export function renderBars(box, step, { metric, tokens, d, xLabel = 'token (prompt position)' }) {
  const values = Array.from(step[metric]);
  const width = Math.max(280, Math.min(720, box.clientWidth || 560));
  box.replaceChildren();
  const chart = createChart(box, {
    width, height: 220, margin: { top: 10, right: 12, bottom: 48, left: 56 },
    xLabel, yLabel: METRICS[metric].axis,
    title: `${METRICS[metric].label} of x per token after this step`,
    description: values.map((v, t) => `${tokens[t]}: ${fmt(v, 3)}`).join(', '),
  });
  chart.svg.style('max-width', `${width}px`);
  const x = scaleBand().domain(values.map((_, t) => t)).range([0, chart.innerW]).padding(0.15);
  const [lo, hi] = extent([...values, 0]);
  chart.y.domain([lo, hi === lo ? lo + 1 : hi]).nice();
  const every = Math.ceil(12 / Math.max(1, x.bandwidth()));
  chart.root.select('.x-axis').call(axisBottom(x).tickValues(x.domain().filter((t) => t % every === 0))
    .tickFormat((t) => tokens[t]));
  chart.root.select('.y-axis').call(axisLeft(chart.y).ticks(5));
  chart.plot.selectAll('rect').data(values).join('rect').attr('class', 'bar').attr('data-position', (_, t) => t)
    .attr('x', (_, t) => x(t)).attr('width', x.bandwidth())
    .attr('y', (v) => chart.y(Math.max(0, v))).attr('height', (v) => Math.abs(chart.y(v) - chart.y(0)))
    .append('title').text((v, t) => `${tokens[t]} (position ${t}): ${fmt(v, 4)}`);
  const ref = metric === 'norm' ? Math.sqrt(d) : metric === 'var' ? 1 : null;
  if (ref != null && ref <= chart.y.domain()[1]) {
    chart.plot.append('line').attr('class', 'ref').attr('x1', 0).attr('x2', chart.innerW)
      .attr('y1', chart.y(ref)).attr('y2', chart.y(ref));
    chart.plot.append('text').attr('x', chart.innerW - 4).attr('y', chart.y(ref) - 4).attr('text-anchor', 'end')
      .attr('class', 'ref-label').text(metric === 'norm' ? `√emb_dim = ${fmt(ref, 2)}` : 'variance 1');
  }
}

/** The step's per-token numbers as a table. */
export function renderTokenTable(table, step, tokens) {
  table.replaceChildren(
    h('caption', { class: 'visually-hidden' }, 'Per-token statistics after this step, from the core'),
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, h('abbr', { title: 'position' }, 'pos.')),
      ...['token', 'mean', 'variance', 'L2 norm'].map((c) => h('th', { scope: 'col' }, c)))),
    h('tbody', {}, ...tokens.map((tok, t) => h('tr', { 'data-position': String(t) },
      h('td', {}, String(t)), h('th', { scope: 'row' }, tok),
      h('td', { class: 'num', 'data-stat': 'mean' }, fmt(step.mean[t], 4)),
      h('td', { class: 'num', 'data-stat': 'var' }, fmt(step.var[t], 4)),
      h('td', { class: 'num', 'data-stat': 'norm' }, fmt(step.norm[t], 4))))),
  );
}

/** The residual stream's L2 norm after every block, pre-norm vs post-norm ({pre, post}: {perToken, mean}). */
export function renderDepth({ box, text, table }, { pre, post }, { d, currentBlock, perToken }) {
  const L = pre.mean.length - 1;
  const width = Math.max(280, Math.min(720, box.clientWidth || 560));
  box.replaceChildren();
  const chart = createChart(box, {
    width, height: 280, margin: { top: 14, right: 16, bottom: 48, left: 56 },
    xLabel: 'block (0 = token + position embeddings)', yLabel: 'residual-stream L2 norm',
    title: 'Residual-stream L2 norm after each block, pre-norm vs post-norm',
    description: `Pre-norm: ${pre.mean.map((v) => fmt(v, 2)).join(', ')}. Post-norm: ${post.mean.map((v) => fmt(v, 2)).join(', ')}.`,
  });
  chart.svg.style('max-width', `${width}px`);
  const all = perToken ? [...pre.perToken.flat(), ...post.perToken.flat()] : [...pre.mean, ...post.mean];
  chart.x.domain([0, L]);
  chart.y.domain([0, max([...all, Math.sqrt(d)]) * 1.05]).nice();
  chart.root.select('.x-axis').call(axisBottom(chart.x).ticks(Math.min(L, width < 400 ? 6 : 12)).tickFormat((v) => (Number.isInteger(v) ? v : '')));
  chart.root.select('.y-axis').call(axisLeft(chart.y).ticks(6));
  const sqrtD = Math.sqrt(d);
  chart.plot.append('line').attr('class', 'ref').attr('x1', 0).attr('x2', chart.innerW)
    .attr('y1', chart.y(sqrtD)).attr('y2', chart.y(sqrtD));
  chart.plot.append('line').attr('class', 'current-block').attr('x1', chart.x(currentBlock + 1)).attr('x2', chart.x(currentBlock + 1))
    .attr('y1', 0).attr('y2', chart.innerH).attr('stroke', 'var(--bs-accent)').attr('stroke-opacity', 0.35).attr('stroke-width', 6);
  const path = line().x((_, k) => chart.x(k)).y((v) => chart.y(v));
  const series = [
    { key: 'pre', data: pre, color: 'var(--bs-c1)', dash: null, label: 'pre-norm' },
    { key: 'post', data: post, color: 'var(--bs-c2)', dash: '7 4', label: 'post-norm' },
  ];
  for (const s of series) {
    if (perToken) {
      const T = s.data.perToken[0].length;
      for (let t = 0; t < T; t++) {
        chart.plot.append('path').attr('d', path(s.data.perToken.map((a) => a[t]))).attr('fill', 'none')
          .attr('stroke', s.color).attr('stroke-opacity', 0.25).attr('stroke-width', 1);
      }
    }
    chart.plot.append('path').attr('class', `line-${s.key}`).attr('d', path(s.data.mean)).attr('fill', 'none')
      .attr('stroke', s.color).attr('stroke-width', 2.5).attr('stroke-dasharray', s.dash);
    chart.plot.append('g').selectAll('circle').data(s.data.mean).join('circle')
      .attr('cx', (_, k) => chart.x(k)).attr('cy', (v) => chart.y(v)).attr('r', 3).attr('fill', s.color)
      .append('title').text((v, k) => `${s.label}, block ${k}: ${fmt(v, 3)}`);
  }
  // The √emb_dim label goes last, at the right end and clear below the line: post-norm's markers (r = 3) sit on the
  // line itself, and the .ref-label halo keeps it legible over the per-token lines and the current-block band.
  chart.plot.append('text').attr('class', 'ref-label').attr('x', chart.innerW - 4).attr('y', chart.y(sqrtD) + 19)
    .attr('text-anchor', 'end').text(`√emb_dim = √${d} = ${fmt(sqrtD, 2)}`);
  text.textContent = `Pre-norm: ${fmt(pre.mean[0], 2)} at the embeddings, ${fmt(pre.mean[L], 2)} after block ${L} — ` +
    'the shortcut carries the input through every block untouched and each block adds its contribution, so the ' +
    `norm grows with depth. Post-norm: ${fmt(post.mean[1], 2)} after block 1 and ${fmt(post.mean[L], 2)} after block ${L} — ` +
    `every block ends in a LayerNorm that renormalizes the stream to ≈ √${d} = ${fmt(sqrtD, 2)}. These are forward ` +
    'values of untrained weights; the same untouched shortcut is the path gradients take back through a pre-norm stack.';
  table.replaceChildren(
    h('caption', { class: 'visually-hidden' }, 'Residual-stream L2 norm (mean over tokens) after each block, from the core'),
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'block'), h('th', { scope: 'col' }, 'pre-norm'), h('th', { scope: 'col' }, 'post-norm'))),
    h('tbody', {}, ...pre.mean.map((v, k) => h('tr', {},
      h('th', { scope: 'row' }, k === 0 ? '0 (embeddings)' : String(k)),
      h('td', { class: 'num', 'data-placement': 'pre' }, fmt(v, 4)),
      h('td', { class: 'num', 'data-placement': 'post' }, fmt(post.mean[k], 4))))),
  );
}
