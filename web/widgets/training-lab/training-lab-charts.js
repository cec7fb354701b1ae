// training-lab-charts.js — <training-lab>'s two d3 charts: the loss curves of both runs against the step (training
// loss per step, its moving average, validation loss, where a run failed) and the gradient norm of every layer
// (embeddings, blocks, head) on a log scale, now and at step 1. Built once per size, then only their paths move.
// No model work here: they draw what training-lab-runs.js recorded. Their words come from the widget's messages (port:
// the element's panelPort, t and num).
import { axisBottom, axisLeft } from 'd3-axis';
import { scaleLog, scalePoint } from 'd3-scale';
import { line } from 'd3-shape';

import { chartWidth, createChart, naturalSize } from '../kit/chart-kit.js';
import { UNIFORM_LOSS } from './training-lab-runs.js';

export const RUN_COLORS = { a: 'var(--bs-c1)', b: 'var(--bs-c2)' };
const RUN_DASH = { a: null, b: '7 3' }; // not by colour alone

export const CHARTS_CSS = `
.chart-box { margin: 0.25rem 0; min-height: 12rem; }
.chart-box svg { width: auto; max-width: 100%; height: auto; }
svg .marker-label { font-size: 12px; paint-order: stroke; stroke: var(--bs-bg); stroke-width: 4px; stroke-linejoin: round; }
svg .ref line { stroke: var(--bs-muted); stroke-dasharray: 2 4; }
svg .ref text { fill: var(--bs-muted); font-size: 11px; }
`;

/** The losses averaged over a trailing window that grows with the step (1 at first, up to 25), so the average
 * does not lag behind the fast early fall. */
export function smooth(values) {
  const prefix = [0];
  for (const v of values) prefix.push(prefix.at(-1) + v);
  return values.map((_, i) => {
    const w = Math.min(25, 1 + Math.floor(i / 10));
    return (prefix[i + 1] - prefix[i + 1 - w]) / w;
  });
}

const SUPERSCRIPT = { '-': '⁻', 0: '⁰', 1: '¹', 2: '²', 3: '³', 4: '⁴', 5: '⁵', 6: '⁶', 7: '⁷', 8: '⁸', 9: '⁹' };
/** 10^k as text: 10⁻⁵ */
function powerOfTen(k) {
  return `10${[...String(k)].map((c) => SUPERSCRIPT[c]).join('')}`;
}

function size(box) {
  const width = chartWidth(box, { min: 280, max: 720 });
  return { width, height: Math.round(Math.min(320, Math.max(220, width * 0.5))) };
}

/** The loss chart: x = step (0 … the schedule's steps), y = loss in nats per byte. */
export class LossChart {
  constructor(box, port) {
    this.box = box;
    this.port = port;
    this.chart = null;
  }

  /** (Re)builds the axes and empty paths at the box's width, for a schedule of `steps`. */
  build(steps, labels) {
    const { t } = this.port;
    const { width, height } = size(this.box);
    this.box.replaceChildren();
    const chart = createChart(this.box, {
      width, height, xLabel: t('lab.loss.xLabel'), yLabel: t('lab.loss.yLabel'), title: t('lab.loss.title'),
      description: t('lab.loss.description', labels),
    });
    naturalSize(chart, width, height);
    chart.x.domain([0, steps]);
    this.ref = chart.plot.append('g').attr('class', 'ref');
    this.ref.append('line').attr('x1', 0).attr('x2', chart.innerW);
    this.ref.append('text').attr('x', chart.innerW - 4).attr('text-anchor', 'end').attr('dy', '1.1em')
      .text(t('lab.loss.uniform', { loss: this.port.num(UNIFORM_LOSS, 2) }));
    this.marks = chart.plot.append('g').attr('class', 'schedule-changes');
    this.paths = {};
    for (const key of ['a', 'b']) {
      const g = chart.plot.append('g').attr('data-run', key).attr('fill', 'none').attr('stroke', RUN_COLORS[key]);
      this.paths[key] = {
        raw: g.append('path').attr('class', 'train-raw').attr('stroke-width', 1).attr('stroke-opacity', 0.28),
        smooth: g.append('path').attr('class', 'train').attr('stroke-width', 2.25).attr('stroke-dasharray', RUN_DASH[key]),
        val: g.append('path').attr('class', 'val').attr('stroke-width', 1.5).attr('stroke-dasharray', '2 3'),
        dots: g.append('g').attr('class', 'val-dots').attr('fill', RUN_COLORS[key]),
        marker: g.append('g').attr('class', 'failed'),
      };
    }
    this.chart = chart;
    this.steps = steps;
    this.width = width;
  }

  /**
   * Redraws both runs' curves (runs: the RunPair's two Run objects) and marks each step from which a new schedule
   * applied (`changes`: RunPair.changes, a learning rate changed while training).
   */
  draw(runs, changes = []) {
    const { chart } = this;
    const all = runs.flatMap((r) => [...r.steps.filter((s) => s.finite).map((s) => s.loss), ...r.vals.map((v) => v.valLoss)]);
    const lo = all.length ? Math.min(...all) : 2;
    const top = UNIFORM_LOSS + 0.35;
    chart.y.domain([Math.max(0, Math.min(lo, top - 0.5) - 0.1), top]).nice();
    const [yMin, yMax] = chart.y.domain();
    chart.drawAxes({ xTicks: Math.max(3, Math.round(chart.innerW / 90)), yTicks: 6 });
    const clampY = (v) => chart.y(Math.min(yMax, Math.max(yMin, v)));
    this.ref.selectAll('line').attr('y1', chart.y(UNIFORM_LOSS)).attr('y2', chart.y(UNIFORM_LOSS));
    this.ref.select('text').attr('y', chart.y(UNIFORM_LOSS));
    const path = line().x((d) => chart.x(d[0])).y((d) => clampY(d[1]));
    for (const run of runs) {
      const p = this.paths[run.key];
      const ok = run.steps.filter((s) => s.finite);
      const ema = smooth(ok.map((s) => s.loss));
      p.raw.attr('d', path(ok.map((s) => [s.step, s.loss])));
      p.smooth.attr('d', path(ok.map((s, i) => [s.step, ema[i]])));
      p.val.attr('d', path(run.vals.map((v) => [v.step, v.valLoss])));
      p.dots.selectAll('circle').data(run.vals).join('circle').attr('r', 2.6)
        .attr('cx', (v) => chart.x(v.step)).attr('cy', (v) => clampY(v.valLoss));
      this.drawFailure(p.marker, run, clampY);
    }
    this.drawChanges(changes);
  }

  /** A dashed vertical line with "lr → 0.005" where a new schedule took over (its tooltip says it all). */
  drawChanges(changes) {
    const { chart } = this;
    const { t, num } = this.port;
    const lr = (v) => (v >= 1e-3 ? num(Number(v.toPrecision(2))) : v.toExponential(1));
    const g = this.marks.selectAll('g.schedule-change').data(changes).join((enter) => {
      const mark = enter.append('g').attr('class', 'schedule-change');
      mark.append('title');
      mark.append('line').attr('stroke', 'var(--bs-muted)').attr('stroke-dasharray', '4 3');
      mark.append('text').attr('class', 'marker-label').attr('fill', 'var(--bs-muted)').attr('y', 12);
      return mark;
    });
    g.attr('transform', (c) => `translate(${chart.x(c.step)},0)`);
    g.select('line').attr('y1', 0).attr('y2', chart.innerH);
    g.select('text').attr('x', (c) => (chart.x(c.step) < chart.innerW * 0.7 ? 4 : -4))
      .attr('text-anchor', (c) => (chart.x(c.step) < chart.innerW * 0.7 ? 'start' : 'end'))
      .text((c) => t('lab.loss.lrChange', { lr: lr(c.lr) }));
    g.select('title').text((c) => t('lab.loss.lrChangeTitle', { step: c.step, lr: lr(c.lr), warmup: c.warmup, steps: c.steps }));
  }

  drawFailure(g, run, clampY) {
    g.selectAll('*').remove();
    this.drawSpikes(g.append('g').attr('class', 'spikes'), run);
    if (!run.failed) return;
    const { step } = run.failed;
    const last = run.steps.filter((s) => s.finite && s.step <= step).at(-1);
    const x = this.chart.x(step);
    const y = run.failed.reason === 'non-finite' || !last ? this.chart.y(this.chart.y.domain()[1]) : clampY(last.loss);
    const mark = g.append('g').attr('class', 'diverged').attr('transform', `translate(${x},${y})`);
    mark.append('path').attr('d', 'M-6,-6L6,6M-6,6L6,-6').attr('stroke-width', 3);
    const right = x < this.chart.innerW * 0.6;
    mark.append('text').attr('class', 'marker-label').attr('x', right ? 10 : -10).attr('y', run.key === 'a' ? 16 : 32)
      .attr('text-anchor', right ? 'start' : 'end').attr('fill', RUN_COLORS[run.key]).attr('stroke', 'var(--bs-bg)')
      .text(this.port.t('lab.loss.diverged', { run: run.key.toUpperCase(), step }));
  }

  /** Loss spikes: small triangles on the top edge, each with a tooltip (the notes under the table list them too). */
  drawSpikes(g, run) {
    const { x } = this.chart;
    const { t, num } = this.port;
    g.selectAll('path').data(run.spikes).join('path').attr('d', 'M-5,8L5,8L0,0Z').attr('fill', RUN_COLORS[run.key])
      .attr('transform', (s) => `translate(${x(s.step)},0)`)
      .append('title').text((s) => t('lab.loss.spike', { run: run.key.toUpperCase(), step: s.step, loss: num(s.loss, 2) }));
  }
}

/** The gradient-norm chart: x = layer (embeddings, block 1 … L, head), y = ‖gradient‖ on a log scale. */
export class GradChart {
  constructor(box, port) {
    this.box = box;
    this.port = port;
    this.chart = null;
  }

  build(layers, labels) {
    const { t } = this.port;
    const { width, height } = size(this.box);
    this.box.replaceChildren();
    const chart = createChart(this.box, {
      width, height, xLabel: t('lab.grad.xLabel'), yLabel: t('lab.grad.yLabel'),
      margin: { top: 12, right: 16, bottom: 44, left: 62 },
      title: t('lab.grad.title'), description: t('lab.grad.description', labels),
    });
    naturalSize(chart, width, height);
    this.names = ['embeddings', ...Array.from({ length: layers }, (_, i) => `trf_blocks.${i}`), 'head'];
    this.x = scalePoint().domain(this.names).range([0, chart.innerW]).padding(0.3);
    this.y = scaleLog().range([chart.innerH, 0]);
    const ends = { embeddings: t('lab.grad.tickEmbeddings'), head: t('lab.grad.tickHead') };
    const tick = (name) => ends[name] ?? String(Number(name.split('.')[1]) + 1);
    chart.root.select('.x-axis').call(axisBottom(this.x).tickFormat(tick).tickSizeOuter(0));
    this.groups = {};
    for (const key of ['a', 'b']) {
      const g = chart.plot.append('g').attr('data-run', key).attr('fill', 'none').attr('stroke', RUN_COLORS[key]);
      this.groups[key] = {
        first: g.append('path').attr('class', 'first').attr('stroke-width', 1.25).attr('stroke-dasharray', '2 3').attr('stroke-opacity', 0.6),
        now: g.append('path').attr('class', 'now').attr('stroke-width', 2.25).attr('stroke-dasharray', RUN_DASH[key]),
        dots: g.append('g').attr('fill', RUN_COLORS[key]),
      };
    }
    this.chart = chart;
    this.width = width;
  }

  draw(runs) {
    const { chart, x, y } = this;
    const values = runs.flatMap((r) => [...(r.layerAvg ?? []), ...(r.firstLayers ?? [])].map((l) => l.norm))
      .filter((v) => v > 0 && Number.isFinite(v));
    const lo = values.length ? Math.min(...values) : 1e-3;
    const hi = values.length ? Math.max(...values) : 1;
    y.domain([Math.min(lo / 2, 1e-3), Math.max(hi * 2, 1)]);
    // Powers of ten only, at most about six of them.
    const [k0, k1] = y.domain().map(Math.log10);
    const every = Math.max(1, Math.ceil((k1 - k0) / 6));
    const ticks = [];
    for (let k = Math.ceil(k0); k <= Math.floor(k1); k++) if (k % every === 0) ticks.push(10 ** k);
    chart.root.select('.y-axis').call(axisLeft(y).tickValues(ticks).tickFormat((t) => powerOfTen(Math.round(Math.log10(t)))));
    const path = line().defined((l) => l.norm > 0).x((l) => x(l.name)).y((l) => y(Math.max(y.domain()[0], l.norm)));
    for (const run of runs) {
      const g = this.groups[run.key];
      g.first.attr('d', run.firstLayers ? path(run.firstLayers) : null);
      g.now.attr('d', run.layerAvg ? path(run.layerAvg) : null);
      g.dots.selectAll('circle').data((run.layerAvg ?? []).filter((l) => l.norm > 0)).join('circle').attr('r', 3)
        .attr('cx', (l) => x(l.name)).attr('cy', (l) => y(Math.max(y.domain()[0], l.norm)));
    }
  }
}
