// gpt-charts.js — <gpt-explorer>'s views of one forward pass's inspection: the LayerNorm statistics heatmap
// (layer × token), the feed-forward hidden values before and after GELU (histogram) and one head's attention
// weights (query × key). Builds its sections once and redraws them from the core's numbers; the layer/head/LayerNorm
// selectors set the host's attributes. No model work here.
import { extent, max } from 'd3-array';
import { scaleDiverging, scaleSequential } from 'd3-scale';

import { h } from '../kit/base.js';
import { colorLegend, createChart, DIVERGING, heatmap, moveCell, overlaidHistogram, pointerKey, VIRIDIS } from '../kit/chart-kit.js';
import { attrSelect } from '../kit/controls.js';
import { byteTitle, hasByte } from '../kit/tokens.js';
import { markLinked } from '../kit/linked-selection.js';

// Messages of the LayerNorms (by placement), of the statistics and of the LayerNorm's side (i18n: gpt.ln.*).
const LN_KEYS = { pre: { norm1: 'gpt.ln.norm1', norm2: 'gpt.ln.norm2', final: 'gpt.ln.final' },
  post: { norm1: 'gpt.ln.norm1Post', norm2: 'gpt.ln.norm2Post', final: 'gpt.ln.final' } };
const STAT_KEYS = { mean: 'gpt.stat.mean', var: 'gpt.stat.var' };
const WHAT_KEYS = { in: 'gpt.ln.whatIn', out: 'gpt.ln.whatOut' };

export const CHARTS_CSS = `
.heatbox { overflow-x: auto; max-width: 100%; border-radius: 4px; }
.heatbox:focus-visible { outline: 3px solid var(--bs-focus); }
svg.heat { width: auto; max-width: none; }
svg.color-legend { max-width: 340px; }
.heat .cursor { fill: none; stroke: var(--bs-fg); stroke-width: 2; pointer-events: none; }
.readout { min-height: 1.45em; font-variant-numeric: tabular-nums; }
.legend-swatch { display: inline-block; width: 1em; height: 0.8em; margin-right: 0.3em; vertical-align: baseline; border-radius: 2px; }
.ref-label { paint-order: stroke; stroke: var(--bs-bg); stroke-width: 4px; stroke-linejoin: round; }
`;

/** The tooltip of a token label that contains bytes shown as <0xNN>, else null. */
function labelTitle(pieces) {
  if (!hasByte(pieces)) return null;
  return pieces.filter((p) => p.byte != null).map((p) => byteTitle(p.byte, p.control)).join('; ');
}

export class InspectionView {
  /**
   * host: the widget's panel port (base.js panelPort) with point(selection) (linked selection); the sections are
   * `normSection` and `layerSection`.
   */
  constructor(host) {
    this.host = host;
    const t = (key, params) => host.t(key, params);
    // Hovering or moving the cursor through a heatmap points at its column's token (linked selection: host.point).
    const leave = (e) => !e.currentTarget.contains(e.relatedTarget) && host.point(null);
    this.lnBox = h('div', { class: 'heatbox ln-heat', tabindex: '0', role: 'group', 'aria-roledescription': t('gpt.heatmap.role'),
      onkeydown: (e) => this.onKey(e, 'ln'), onpointerleave: leave, onfocusout: leave, onfocus: () => this.pointAt('ln') });
    this.lnLegend = h('div', { class: 'ln-legend' });
    this.lnReadout = h('p', { class: 'readout ln-readout', 'aria-live': 'polite' });
    this.lnTable = h('table', { class: 'ln-table' });
    this.normSection = h('section', { class: 'norms', part: 'layernorm' }, h('h4', {}, t('gpt.ln.heading')),
      h('p', { class: 'muted instructions' }, t(pointerKey('gpt.ln.intro'))),
      h('div', { class: 'row controls', part: 'controls' },
        attrSelect(host, 'ln', t('gpt.ln.select'), { final: 'final_norm' }),
        attrSelect(host, 'ln-side', t('gpt.ln.side'), { in: t('gpt.ln.input'), out: t('gpt.ln.output') }),
        attrSelect(host, 'stat', t('gpt.ln.stat'), { mean: t(STAT_KEYS.mean), var: t(STAT_KEYS.var) })),
      this.lnBox, this.lnLegend, this.lnReadout,
      h('details', {}, h('summary', {}, t('gpt.ln.tableSummary')), h('div', { class: 'scroll' }, this.lnTable)));

    this.histBox = h('div', { class: 'hist' });
    this.histText = h('p', { class: 'hist-text' });
    this.histTable = h('table', { class: 'hist-table' });
    this.attBox = h('div', { class: 'heatbox att-heat', tabindex: '0', role: 'group', 'aria-roledescription': t('gpt.heatmap.role'),
      onkeydown: (e) => this.onKey(e, 'att'), onpointerleave: leave, onfocusout: leave, onfocus: () => this.pointAt('att') });
    this.attLegend = h('div', { class: 'att-legend' });
    this.attReadout = h('p', { class: 'readout att-readout', 'aria-live': 'polite' });
    this.layerSection = h('section', { class: 'inside', part: 'block' }, h('h4', {}, t('gpt.block.heading')),
      h('div', { class: 'row controls', part: 'controls' },
        attrSelect(host, 'layer', t('gpt.block.select'), [['1', '1']]), attrSelect(host, 'head', t('gpt.block.head'), [['1', '1']])),
      h('h4', {}, t('gpt.att.heading')),
      h('p', { class: 'muted' }, t('gpt.att.intro')),
      this.attBox, this.attLegend, this.attReadout,
      h('h4', {}, t('gpt.ffn.heading')),
      h('p', { class: 'muted' }, t('gpt.ffn.intro')),
      h('div', { class: 'row' },
        h('span', {}, h('span', { class: 'legend-swatch', style: 'background: var(--bs-c1); opacity: 0.55' }), t('gpt.ffn.before')),
        h('span', {}, h('span', { class: 'legend-swatch', style: 'background: var(--bs-c2); opacity: 0.7' }), t('gpt.ffn.after'))),
      this.histBox, this.histText,
      h('details', {}, h('summary', {}, t('gpt.ffn.tableSummary')), h('div', { class: 'scroll' }, this.histTable)));
  }

  /** Fills the block and head selectors for a model with n_layers blocks of n_heads heads. */
  setShape(nLayers, nHeads) {
    const fill = (sel, n) => sel.replaceChildren(...Array.from({ length: n }, (_, i) => h('option', { value: String(i + 1) }, this.host.num(i + 1))));
    fill(this.host.boundControls.get('layer'), nLayers);
    fill(this.host.boundControls.get('head'), nHeads);
  }

  /** Redraws every chart. result: {tokens, pieces, inspection, placement}; layer/head 0-based; width in px. */
  render(result, { layerIndex, headIndex, width }) {
    this.result = result;
    this.layerIndex = layerIndex;
    this.headIndex = headIndex;
    this.width = width;
    this.host.boundControls.get('layer').value = String(layerIndex + 1);
    this.host.boundControls.get('head').value = String(headIndex + 1);
    this.renderNorms();
    this.renderAttention();
    this.renderHistogram();
    if (this.linked) this.highlight(this.linked);
  }

  tokenAxis() {
    const { tokens, pieces } = this.result;
    return { label: (i) => tokens[i], title: (i) => labelTitle(pieces[i]) };
  }

  /** The selected LayerNorm statistic as rows (layers, or the final norm) × tokens. */
  normGrid() {
    const { inspection } = this.result;
    const a = (name) => this.host.attr(name);
    const ln = ['norm1', 'norm2', 'final'].includes(a('ln')) ? a('ln') : 'norm1';
    const side = a('ln-side') === 'out' ? 'out' : 'in';
    const stat = a('stat') === 'mean' ? 'mean' : 'var';
    const rows = ln === 'final' ? [inspection.finalNorm[side][stat]] : inspection.layers.map((l) => l[ln][side][stat]);
    const rowNames = ln === 'final' ? [this.host.t('gpt.ln.finalRow')] : rows.map((_, i) => this.host.t('gpt.chart.block', { block: i + 1 }));
    return { ln, side, stat, rows, rowNames };
  }

  renderNorms() {
    const { t, num } = this.host;
    const { tokens, placement } = this.result;
    const { ln, side, stat, rows, rowNames } = this.normGrid();
    const all = rows.flatMap((r) => Array.from(r));
    let color;
    let domain;
    if (stat === 'mean') {
      const m = Math.max(1e-6, max(all, Math.abs));
      domain = [-m, m];
      color = scaleDiverging(DIVERGING).domain([-m, 0, m]);
    } else {
      domain = extent(all);
      if (domain[1] - domain[0] < 1e-6) domain = [domain[0] - 0.5, domain[1] + 0.5];
      color = scaleSequential(VIRIDIS).domain(domain);
    }
    const statName = t(STAT_KEYS[stat]);
    const what = t(WHAT_KEYS[side], { stat: statName, norm: t(LN_KEYS[placement === 'post' ? 'post' : 'pre'][ln]) });
    const axis = this.tokenAxis();
    this.lnGrid = { rows, rowNames, what };
    this.lnChart = heatmap(this.lnBox, {
      rows: rows.length, cols: tokens.length, value: (r, c) => rows[r][c], color,
      rowLabel: (r) => rowNames[r], colLabel: axis.label, colTitle: axis.title,
      xLabel: t('gpt.ln.xLabel'), yLabel: ln === 'final' ? 'final_norm' : t('gpt.ln.yLabel'),
      title: t('gpt.ln.chartTitle', { what }),
      description: t('gpt.ln.chartDescription', { rows: rows.length, cols: tokens.length, from: num(domain[0], 3), to: num(domain[1], 3) }),
      maxWidth: this.width, cellH: 26, onCell: (r, c) => this.setCell('ln', [r, c], { point: true }),
    });
    this.lnBox.setAttribute('aria-label', t('gpt.ln.boxLabel', { what, rows: rows.length, count: tokens.length }));
    colorLegend(this.lnLegend, { color, domain, label: t('gpt.ln.legend', { stat: statName }), width: this.width });
    this.setCell('ln', this.lnCell ?? [0, tokens.length - 1]);
    this.lnTable.replaceChildren(
      h('caption', { class: 'visually-hidden' }, t('gpt.ln.caption', { what })),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, t('gpt.ln.blockColumn')),
        ...tokens.map((tok, i) => h('th', { scope: 'col', title: t('gpt.chart.position', { position: i }), 'data-position': String(i) }, tok)))),
      h('tbody', {}, ...rows.map((r, i) => h('tr', {}, h('th', { scope: 'row' }, rowNames[i]),
        ...Array.from(r, (v) => h('td', { class: 'num' }, num(v, 4)))))),
    );
  }

  renderAttention() {
    const { t } = this.host;
    const { inspection, tokens } = this.result;
    const T = tokens.length;
    const layer = inspection.layers[this.layerIndex];
    const off = this.headIndex * T * T; // (B = 1, NH, T, T)
    this.attWeights = layer.attnWeights.subarray(off, off + T * T);
    const color = scaleSequential(VIRIDIS).domain([0, 1]);
    const what = t('gpt.att.what', { block: this.layerIndex + 1, head: this.headIndex + 1 });
    const axis = this.tokenAxis();
    this.attChart = heatmap(this.attBox, {
      rows: T, cols: T, value: (r, c) => this.attWeights[r * T + c], color, square: true,
      rowLabel: axis.label, colLabel: axis.label, rowTitle: axis.title, colTitle: axis.title,
      xLabel: t('gpt.att.xLabel'), yLabel: t('gpt.att.yLabel'),
      title: t('gpt.att.chartTitle', { what }),
      description: t('gpt.att.chartDescription', { what, size: T }),
      maxWidth: this.width, skip: (r, c) => c > r, onCell: (r, c) => this.setCell('att', [r, c], { point: true }),
    });
    this.attBox.setAttribute('aria-label', t('gpt.att.boxLabel', { what }));
    this.attBox.dataset.layer = String(this.layerIndex + 1);
    this.attBox.dataset.head = String(this.headIndex + 1);
    colorLegend(this.attLegend, { color, domain: [0, 1], label: t('gpt.att.legend'), width: this.width });
    // Start on the last token's strongest key: the pattern's most telling cell.
    const lastRow = Array.from(this.attWeights.subarray((T - 1) * T, T * T));
    this.setCell('att', this.attCell ?? [T - 1, lastRow.indexOf(Math.max(...lastRow))]);
  }

  renderHistogram() {
    const { t, num } = this.host;
    const layer = this.result.inspection.layers[this.layerIndex];
    const pre = layer.ffnHiddenPre;
    const post = layer.ffnHiddenPost;
    const [lo0, hi0] = extent(pre);
    const [lo1, hi1] = extent(post);
    const width = this.width;
    const block = this.layerIndex + 1;
    this.histBox.replaceChildren();
    const chart = createChart(this.histBox, {
      width, height: 260, margin: { top: 10, right: 14, bottom: 46, left: 62 },
      xLabel: t('gpt.ffn.xLabel'), yLabel: t('gpt.ffn.yLabel'),
      title: t('gpt.ffn.chartTitle', { block }),
      description: t('gpt.ffn.chartDescription', { count: pre.length }),
    });
    chart.svg.style('max-width', `${width}px`);
    chart.x.domain([Math.min(lo0, lo1), Math.max(hi0, hi1)]).nice(40);
    overlaidHistogram(chart, [
      { values: pre, fill: 'var(--bs-c1)', opacity: 0.55, cls: 'pre' },
      { values: post, fill: 'var(--bs-c2)', opacity: 0.7, cls: 'post' },
    ], { ticks: 48 });
    chart.drawAxes({ xTicks: width < 420 ? 5 : 8, yTicks: 5 });
    if (lo1 < -0.05) {
      chart.plot.append('line').attr('x1', chart.x(lo1)).attr('x2', chart.x(lo1)).attr('y1', 0).attr('y2', chart.innerH)
        .attr('stroke', 'var(--bs-fg)').attr('stroke-dasharray', '3 3');
      chart.plot.append('text').attr('x', chart.x(lo1) - 4).attr('y', 12).attr('text-anchor', 'end')
        .attr('class', 'ref-label').text(t('gpt.ffn.min', { value: num(lo1, 2) }));
    }
    const neg = (a) => a.reduce((n, v) => n + (v < 0), 0);
    const share = (a) => t('gpt.percent', { value: num((100 * neg(a)) / a.length, 1) });
    this.histText.textContent = t('gpt.ffn.text', { block, count: pre.length, from: num(lo0, 3), to: num(hi0, 3),
      negative: share(pre), smallest: num(lo1, 3), dip: num(-0.17, 2) });
    const rowOf = (name, lo, hi, a) => h('tr', {}, h('th', { scope: 'row' }, name), h('td', { class: 'num' }, num(lo, 4)),
      h('td', { class: 'num' }, num(hi, 4)), h('td', { class: 'num' }, share(a)));
    this.histTable.replaceChildren(
      h('thead', {}, h('tr', {}, ...['', t('gpt.ffn.minimum'), t('gpt.ffn.maximum'), t('gpt.ffn.negative')]
        .map((c) => h('th', { scope: 'col' }, c)))),
      h('tbody', {}, rowOf(t('gpt.ffn.before'), lo0, hi0, pre), rowOf(t('gpt.ffn.after'), lo1, hi1, post)));
  }

  clampCell(which, [r, c]) {
    const T = this.result.tokens.length;
    const rows = which === 'ln' ? this.lnGrid.rows.length : T;
    const nr = Math.min(rows - 1, Math.max(0, r));
    const cols = which === 'ln' ? T : nr + 1;
    return [nr, Math.min(cols - 1, Math.max(0, c))];
  }

  /**
   * Linked selection drawn on the heatmaps: the LayerNorm columns and the attention rows and columns of the token
   * `positions`; the attention heatmap outlined when it shows `head` ({layer, head}, 0-based).
   */
  highlight({ positions = [], head = null } = {}) {
    this.linked = { positions, head };
    if (!this.result) return;
    this.lnChart?.highlight({ cols: positions });
    markLinked(this.lnTable.querySelectorAll('th[data-position]'), (th) => positions.includes(Number(th.dataset.position)));
    this.attChart?.highlight({ rows: positions, cols: positions });
    const shown = head && head.layer === this.layerIndex && head.head === this.headIndex;
    this.attBox.classList.toggle('linked', Boolean(shown));
    if (shown) this.attBox.setAttribute('aria-current', 'true');
    else this.attBox.removeAttribute('aria-current');
  }

  /** Points at the token of the heatmap's cursor column (the key, in the attention heatmap). */
  pointAt(which) {
    const cell = which === 'ln' ? this.lnCell : this.attCell;
    if (this.result && cell) this.host.point({ kind: 'token', position: cell[1], id: this.result.ids[cell[1]] });
  }

  setCell(which, cell, { point = false } = {}) {
    const { t, num } = this.host;
    const [r, c] = this.clampCell(which, cell);
    const { tokens } = this.result;
    if (which === 'ln') {
      this.lnCell = [r, c];
      this.lnChart.cursor(r, c);
      const v = this.lnGrid.rows[r][c];
      this.lnReadout.textContent = t('gpt.ln.readout', { row: this.lnGrid.rowNames[r], token: tokens[c], position: c, value: num(v, 4) });
    } else {
      this.attCell = [r, c];
      this.attChart.cursor(r, c);
      const w = this.attWeights[r * tokens.length + c];
      this.attReadout.textContent = t('gpt.att.readout', { query: tokens[r], queryPosition: r, key: tokens[c], keyPosition: c,
        weight: num(w, 4) });
    }
    if (point) this.pointAt(which);
  }

  onKey(e, which) {
    if (!this.result) return;
    const T = this.result.tokens.length;
    const rows = which === 'ln' ? this.lnGrid.rows.length : T;
    const colsOf = which === 'ln' ? () => T : (r) => r + 1;
    const next = moveCell(which === 'ln' ? this.lnCell : this.attCell, e.key, rows, colsOf);
    if (!next) return;
    e.preventDefault();
    this.setCell(which, next, { point: true });
  }
}
