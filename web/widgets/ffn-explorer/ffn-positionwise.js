// ffn-positionwise.js — <ffn-explorer>'s position-wise check: a seeded FFN (d -> 4d -> d, the core's FeedForward) runs
// on a few editable token vectors in one call; editing one token changes only that token's output, bit for bit.
// A helper of the element, not a custom element.
import { h, parseNumbers, parseRows } from '../kit/base.js';
import { chartWidth, groupedBars } from '../kit/chart-kit.js';
import { fill, sci } from './ffn-text.js';
import { addEnglish, messages } from '../kit/i18n.js';
import en from '../i18n/en/ffn-explorer.js';
import { fieldError } from '../kit/field-error.js';

addEnglish(en); // its messages, also where it is used without the widget (tools, tests)
const ENGLISH = { t: (key, params) => messages('en').t(key, params) }; // parseDemo without a widget (tools, tests)

export const DEFAULT_DEMO = '1, 0, -1, 0.5; 0.5, -0.5, 1, 2; -1, 2, 0, 1';
const DEMO_EXPANSION = 4;
const MAX_DEMO_TOKENS = 8;
const MAX_DEMO_FEATURES = 16;

/** A change between two core outputs, for reading: exactly 0, or its size (tiny ones in scientific notation). */
const delta = (port, v) => (v === 0 ? '0' : v >= 1e-4 ? port.num(v, 4) : sci(port, v, 2));
const sameRow = (a, b) => a.length === b.length && a.every((v, i) => v === b[i]);

/** Parses "1, 0; 2, 3" into equal-length rows; throws an Error naming the offending token (in `port`'s language). */
export function parseDemo(text, port = ENGLISH) {
  return checkDemo(parseRows(text, port.t('ffn.demo.rowName')), port);
}
function checkDemo(rows, port) {
  if (rows.length > MAX_DEMO_TOKENS) throw new Error(port.t('ffn.demo.tooMany', { max: MAX_DEMO_TOKENS, count: rows.length }));
  const d = rows[0].length;
  if (d > MAX_DEMO_FEATURES) throw new Error(port.t('ffn.demo.tooWide', { max: MAX_DEMO_FEATURES, count: d }));
  rows.forEach((r, t) => {
    if (r.length !== d) throw new Error(port.t('ffn.demo.ragged', { position: t + 1, count: r.length, first: d }));
  });
  return rows;
}

export const POSITIONWISE_CSS = `
.token-row { display: flex; gap: 0.4rem; align-items: center; margin: 0.3rem 0; }
.token-row label { min-width: 5.2rem; }
.token-row input { flex: 1 1 0; min-width: 0; width: 100%; max-width: 36rem; }
.token-row button { padding: 0.2rem 0.5rem; }
.report { min-height: 1.45em; }
`;

export class PositionwiseDemo {
  /** seed: the Blockscope seed of the FFN's weights (the core's generator, not torch.manual_seed). */
  constructor(host, seed) {
    this.host = host;
    const t = (key, params) => host.t(key, params);
    this.seed = seed;
    this.list = h('div', { class: 'demo-tokens' });
    this.info = h('p', { class: 'muted demo-info' });
    this.reportLine = h('p', { class: 'report', 'aria-live': 'polite' });
    this.table = h('table', { class: 'demo-out' });
    this.modeBox = h('input', { type: 'checkbox', id: 'demo-mode', role: 'switch', 'aria-describedby': 'demo-mode-help' });
    this.modeBox.addEventListener('change', () => {
      const on = this.modeBox.checked;
      const fillIn = on && this.demo && this.demo.rows.length !== this.demo.d;
      if (this.host.locked('demo-mode') || (fillIn && this.host.locked('demo'))) {
        this.modeBox.checked = !on; // the author locked the trap (or the tokens it would fill in)
        return;
      }
      this.host.set('demo-mode', on ? 'across-sequence' : 'per-token');
      if (fillIn) {
        // The trap transposes (T, d) to (d, T): it runs only with as many positions as features.
        const d = this.demo.d;
        const rows = Array.from({ length: d }, (_, p) => this.demo.rows[p] ?? this.demo.rows[p % this.demo.rows.length].map((v) => -v));
        this.host.set('demo', rows.map((r) => r.join(', ')).join('; '));
      }
    });
    this.deltaChart = h('div', { class: 'chart delta-chart' });
    this.trap = [
      h('div', { class: 'row' }, h('label', { class: 'switch' }, this.modeBox, ` ${t('ffn.demo.trapLabel')}`)),
      h('p', { class: 'muted', id: 'demo-mode-help' }, t('ffn.demo.trapHelp')),
    ];
    this.nodes = [
      h('h4', {}, t('ffn.demo.title')),
      this.info,
      ...this.trap,
      this.list,
      this.reportLine,
      h('div', { class: 'pair' },
        h('div', { class: 'scroll' }, this.table),
        h('div', {}, h('p', { class: 'caption', 'aria-hidden': 'true' }, t('ffn.demo.chartCaption')),
          this.deltaChart)),
    ];
  }

  read() {
    try {
      return { rows: parseDemo(this.host.attr('demo'), this.host) };
    } catch (err) {
      return { rows: this.demo?.rows ?? parseDemo(DEFAULT_DEMO, this.host), error: `demo: ${err.message}` };
    }
  }

  row(t) {
    const id = `pos-${t}`;
    const input = h('input', { type: 'text', id, spellcheck: 'false', autocomplete: 'off', 'aria-describedby': 'status',
      'aria-label': this.host.t('ffn.demo.tokenLabel', { position: t + 1 }) });
    input.addEventListener('input', () => this.onInput(input));
    const add = this.host.t('ffn.demo.nudge', { position: t + 1 });
    const nudge = h('button', { type: 'button', class: 'nudge', 'aria-label': add, title: add }, '+1');
    nudge.addEventListener('click', () => {
      const rows = this.demo.rows.map((r) => r.slice());
      rows[t][0] = Number((rows[t][0] + 1).toPrecision(12));
      this.host.set('demo', rows.map((r) => r.join(', ')).join('; '));
    });
    return h('div', { class: 'token-row' }, h('label', { for: id }, this.host.t('ffn.demo.position', { position: t + 1 })), input, nudge);
  }

  onInput(input) {
    const fields = [...this.list.querySelectorAll('input')];
    let rows;
    try {
      rows = checkDemo(fields.map((f, i) => {
        try {
          return parseNumbers(f.value);
        } catch (err) {
          throw Object.assign(new Error(this.host.t('ffn.demo.positionError', { position: i + 1, error: err.message })), { field: f });
        }
      }), this.host);
    } catch (err) {
      const bad = err.field ?? input;
      const message = this.host.t('ffn.demo.badTokens', { error: err.message.replace(/^./, (c) => c.toUpperCase()) });
      for (const f of fields) fieldError(f, f === bad ? message : null, { after: f.closest('.token-row') });
      return;
    }
    for (const f of fields) fieldError(f, null);
    if (this.demo && rows.every((r, i) => sameRow(r, this.demo.rows[i]))) return;
    this.host.set('demo', rows.map((r) => r.join(', ')).join('; '));
  }

  async update() {
    const { rows, error } = this.read();
    const T = rows.length;
    const d = rows[0].length;
    if (this.list.querySelectorAll('input').length !== T) this.list.replaceChildren(...rows.map((_, t) => this.row(t)));
    this.list.querySelectorAll('input').forEach((input, t) => {
      let same = false;
      try {
        same = sameRow(parseNumbers(input.value), rows[t]);
      } catch { /* rewritten below */ }
      if (!same) input.value = rows[t].join(', ');
      fieldError(input, null);
    });
    const across = this.host.attr('demo-mode') === 'across-sequence';
    this.modeBox.checked = across;
    const seq = (this.seq = (this.seq ?? 0) + 1);
    let out;
    try {
      const rt = await this.host.runtime();
      if (!this.ffn || this.ffnDim !== d) {
        const old = this.ffn;
        this.ffn = null;
        await old?.dispose();
        this.ffn = await rt.createFeedForward({ embDim: d, expansion: DEMO_EXPANSION, activation: 'gelu_tanh', seed: this.seed });
        this.ffnDim = d;
      }
      const x = Float32Array.from(rows.flat());
      // The trap runs in the core as the learner's mistake would (mistakes.hpp: across-sequence).
      out = across ? { output: await this.ffn.mistake('across-sequence', x, 1, T) } : await this.ffn.forward(x);
    } catch (err) {
      if (seq === this.seq) this.host.report(this.host.t('ffn.demo.error', { error: err.message }), { error: true });
      return;
    }
    if (seq !== this.seq) return;
    const outputs = Array.from({ length: T }, (_, t) => Array.from(out.output.subarray(t * d, (t + 1) * d)));
    const prev = this.demo;
    let change = null;
    if (prev && prev.d === d && prev.rows.length === T && prev.across === across) {
      const inputs = [];
      const changed = [];
      const deltas = outputs.map((o, t) => {
        if (!sameRow(prev.rows[t], rows[t])) inputs.push(t + 1);
        const m = Math.max(...o.map((v, i) => Math.abs(v - prev.outputs[t][i])));
        if (m > 0) changed.push(t + 1);
        return m;
      });
      if (inputs.length) change = { inputs, changed, delta: deltas };
    }
    this.demo = { rows, d, outputs, change, across, numParameters: this.ffn.numParameters, hidden: DEMO_EXPANSION * d };
    this.draw();
    if (error) this.host.report(this.host.t('ffn.demo.badTokens', { error }), { error: true });
    this.host.emit('change', { section: 'positionwise', mode: across ? 'across-sequence' : 'per-token', inputs: rows, outputs, changedInputs: change?.inputs ?? [],
      changedOutputs: change?.changed ?? [], maxDelta: change?.delta ?? [] });
  }

  draw() {
    const { rows, d, outputs, change, numParameters, hidden, across } = this.demo;
    const port = this.host;
    const t = (key, params) => port.t(key, params);
    const T = rows.length;
    this.info.replaceChildren(...fill(t('ffn.demo.info', { d, hidden, seed: this.seed, count: T }),
      { params: h('span', { 'data-predict': 'params' }, port.num(numParameters)) }),
    ` ${t(across ? 'ffn.demo.trapOn' : 'ffn.demo.trapOff')}`);
    this.host.afterDraw?.();
    const list = (ts) => t('ffn.demo.positions', { count: ts.length, list: ts.map((n) => port.num(n)).join(', ') });
    if (!change) this.reportLine.textContent = '';
    else {
      const others = change.changed.filter((p) => !change.inputs.includes(p));
      const inputs = list(change.inputs);
      this.reportLine.textContent = others.length ? t('ffn.demo.reportMixed', { inputs, outputs: list(change.changed) })
        : change.changed.length ? t('ffn.demo.reportOnly', { inputs, outputs: list(change.changed) })
          : t('ffn.demo.reportNone', { inputs });
    }
    const vec = (v) => h('div', { class: 'vec num' }, ...v.map((e) => h('span', {}, port.num(e, 4))));
    this.table.replaceChildren(
      h('caption', { class: 'visually-hidden' }, t('ffn.demo.tableCaption')),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, t('ffn.demo.colPosition')), h('th', { scope: 'col' }, t('ffn.demo.colOutput')),
        h('th', { scope: 'col' }, t('ffn.demo.colDelta')))),
      h('tbody', {}, ...outputs.map((o, i) => {
        const moved = change?.changed.includes(i + 1);
        return h('tr', { 'data-position': String(i + 1), 'data-changed': change ? String(!!moved) : null },
          h('th', { scope: 'row' }, port.num(i + 1), moved ? h('span', { class: 'visually-hidden' }, ` ${t('ffn.demo.changed')}`) : null),
          h('td', { class: moved ? 'changed' : '', 'data-col': 'output' }, vec(o)),
          h('td', { class: 'num', 'data-col': 'delta' }, change ? delta(port, change.delta[i]) : '—'));
      })));
    this.drawChart();
  }

  redraw() {
    if (this.demo) this.drawChart();
  }

  drawChart() {
    const { outputs, change } = this.demo;
    const port = this.host;
    const t = (key, params) => port.t(key, params);
    this.deltaChart.replaceChildren();
    const values = outputs.map((_, i) => change?.delta[i] ?? 0);
    groupedBars(this.deltaChart, {
      groups: outputs.map((_, i) => String(i + 1)), width: chartWidth(this.deltaChart), height: 190,
      series: [{ key: 'delta', label: t('ffn.demo.chartY'), color: 'var(--bs-c5)', values }],
      xLabel: t('ffn.demo.chartX'), yLabel: t('ffn.demo.chartY'),
      title: t('ffn.demo.chartTitle'),
      description: change
        ? values.map((v, i) => t('ffn.demo.chartItem', { position: i + 1, delta: delta(port, v) })).join('; ')
        : t('ffn.demo.chartNoEdit'),
      extraY: [change ? 0 : 1],
    });
  }

  /** Frees the worker-side FeedForward; returns true if there was one. */
  release() {
    const ffn = this.ffn;
    this.ffn = null;
    this.seq = (this.seq ?? 0) + 1; // a forward still running must not store into a released section
    ffn?.dispose().catch(() => {});
    return !!ffn;
  }
}
