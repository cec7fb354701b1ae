// block-charts.js — <block-explorer>'s views of the core's inspection: the step's statistics averaged over tokens,
// per-token bars and table, and the residual stream's L2 norm across depth (pre- vs post-norm). Functions of their
// boxes and data, no widget state; `m` is the widget's Messages (i18n.js: t, num), so every word and number is in the
// widget's language.
import { extent, max, mean } from 'd3-array';
import { axisBottom, axisLeft } from 'd3-axis';
import { scaleBand } from 'd3-scale';
import { line } from 'd3-shape';

import { h } from '../kit/base.js';
import { createChart } from '../kit/chart-kit.js';

/** The per-token statistics: message keys of their names and axis titles. */
export const METRICS = {
  norm: { label: 'block.metric.norm', axis: 'block.metric.normAxis' },
  mean: { label: 'block.metric.mean', axis: 'block.metric.meanAxis' },
  var: { label: 'block.metric.var', axis: 'block.metric.varAxis' },
};
const avg = (arr) => mean(arr);
/** Numbers listed in a sentence ("1.20, 3.40" in English; "1,20; 3,40" where the decimal mark is a comma). */
const series = (m, values, digits) => values.map((v) => m.num(v, digits)).join(m.t('block.listSeparator'));

/** The step's mean, variance and L2 norm averaged over tokens, next to what a LayerNorm output would show. */
export function renderSummary({ table, caption }, step, { isEmbedding, d }, m) {
  const row = (key, values, ref) => h('tr', {}, h('th', { scope: 'row' }, m.t(METRICS[key].label)),
    h('td', { class: 'num', 'data-stat': key }, m.num(avg(values), 4)), h('td', { class: 'muted' }, ref));
  caption.textContent = m.t(isEmbedding ? 'block.summary.captionEmbedding' : 'block.summary.caption', { count: step.mean.length });
  table.replaceChildren(
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, m.t('block.summary.statistic')),
      h('th', { scope: 'col' }, m.t('block.summary.value')), h('th', { scope: 'col' }, m.t('block.summary.afterNorm')))),
    h('tbody', {},
      row('mean', step.mean, '0'),
      row('var', step.var, `≈ ${m.num(1)}`),
      row('norm', step.norm, `≈ √${d} = ${m.num(Math.sqrt(d), 2)}`)),
  );
}

/** One bar per token: the step's `metric` (norm | mean | var), with the LayerNorm reference line. */
export function renderBars(box, step, { metric, tokens, d, xLabel }, m) {
  const values = Array.from(step[metric]);
  const width = Math.max(280, Math.min(720, box.clientWidth || 560));
  box.replaceChildren();
  const chart = createChart(box, {
    width, height: 220, margin: { top: 10, right: 12, bottom: 48, left: 56 },
    xLabel: xLabel ?? m.t('block.bars.xLabel'), yLabel: m.t(METRICS[metric].axis),
    title: m.t('block.bars.title', { metric: m.t(METRICS[metric].label) }),
    description: values.map((v, t) => `${tokens[t]}: ${m.num(v, 3)}`).join(m.t('block.listSeparator')),
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
    .append('title').text((v, t) => m.t('block.bars.barTitle', { token: tokens[t], position: t, value: m.num(v, 4) }));
  const ref = metric === 'norm' ? Math.sqrt(d) : metric === 'var' ? 1 : null;
  if (ref != null && ref <= chart.y.domain()[1]) {
    chart.plot.append('line').attr('class', 'ref').attr('x1', 0).attr('x2', chart.innerW)
      .attr('y1', chart.y(ref)).attr('y2', chart.y(ref));
    chart.plot.append('text').attr('x', chart.innerW - 4).attr('y', chart.y(ref) - 4).attr('text-anchor', 'end')
      .attr('class', 'ref-label').text(metric === 'norm' ? `√emb_dim = ${m.num(ref, 2)}` : m.t('block.bars.varianceOne'));
  }
}

/** The step's per-token numbers as a table. */
export function renderTokenTable(table, step, tokens, m) {
  table.replaceChildren(
    h('caption', { class: 'visually-hidden' }, m.t('block.tokens.caption')),
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, h('abbr', { title: m.t('block.tokens.position') }, m.t('block.tokens.pos'))),
      ...['block.tokens.token', METRICS.mean.label, METRICS.var.label, METRICS.norm.label].map((c) => h('th', { scope: 'col' }, m.t(c))))),
    h('tbody', {}, ...tokens.map((tok, t) => h('tr', { 'data-position': String(t) },
      h('td', {}, m.num(t)), h('th', { scope: 'row' }, tok),
      h('td', { class: 'num', 'data-stat': 'mean' }, m.num(step.mean[t], 4)),
      h('td', { class: 'num', 'data-stat': 'var' }, m.num(step.var[t], 4)),
      h('td', { class: 'num', 'data-stat': 'norm' }, m.num(step.norm[t], 4))))),
  );
}

/** The residual stream's L2 norm after every block, pre-norm vs post-norm ({pre, post}: {perToken, mean}). */
export function renderDepth({ box, text, table }, { pre, post }, { d, currentBlock, perToken }, m) {
  const L = pre.mean.length - 1;
  const width = Math.max(280, Math.min(720, box.clientWidth || 560));
  box.replaceChildren();
  const chart = createChart(box, {
    width, height: 280, margin: { top: 14, right: 16, bottom: 48, left: 56 },
    xLabel: m.t('block.depth.xLabel'), yLabel: m.t('block.depth.yLabel'),
    title: m.t('block.depth.chartTitle'),
    description: m.t('block.depth.description', { pre: series(m, pre.mean, 2), post: series(m, post.mean, 2) }),
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
  const lines = [
    { key: 'pre', data: pre, color: 'var(--bs-c1)', dash: null, label: m.t('block.placement.preShort') },
    { key: 'post', data: post, color: 'var(--bs-c2)', dash: '7 4', label: m.t('block.placement.postShort') },
  ];
  for (const s of lines) {
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
      .append('title').text((v, k) => m.t('block.depth.pointTitle', { placement: s.label, block: k, value: m.num(v, 3) }));
  }
  // The √emb_dim label goes last, at the right end and clear below the line: post-norm's markers (r = 3) sit on the
  // line itself, and the .ref-label halo keeps it legible over the per-token lines and the current-block band.
  chart.plot.append('text').attr('class', 'ref-label').attr('x', chart.innerW - 4).attr('y', chart.y(sqrtD) + 19)
    .attr('text-anchor', 'end').text(`√emb_dim = √${d} = ${m.num(sqrtD, 2)}`);
  text.textContent = m.t('block.depth.text', { preStart: m.num(pre.mean[0], 2), preEnd: m.num(pre.mean[L], 2),
    postStart: m.num(post.mean[1], 2), postEnd: m.num(post.mean[L], 2), blocks: L, d, sqrtD: m.num(sqrtD, 2) });
  table.replaceChildren(
    h('caption', { class: 'visually-hidden' }, m.t('block.depth.tableCaption')),
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, m.t('block.depth.block')),
      h('th', { scope: 'col' }, m.t('block.placement.preShort')), h('th', { scope: 'col' }, m.t('block.placement.postShort')))),
    h('tbody', {}, ...pre.mean.map((v, k) => h('tr', {},
      h('th', { scope: 'row' }, k === 0 ? m.t('block.depth.embeddingsRow') : m.num(k)),
      h('td', { class: 'num', 'data-placement': 'pre' }, m.num(v, 4)),
      h('td', { class: 'num', 'data-placement': 'post' }, m.num(post.mean[k], 4))))),
  );
}
