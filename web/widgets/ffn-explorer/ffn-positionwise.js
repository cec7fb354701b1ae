// ffn-positionwise.js — <ffn-explorer>'s position-wise check: a seeded FFN (d -> 4d -> d, the core's FeedForward) runs
// on a few editable token vectors in one call; editing one token changes only that token's output, bit for bit.
// A helper of the element, not a custom element.
import { fmt, h, parseNumbers, parseRows } from '../kit/base.js';
import { chartWidth, groupedBars } from '../kit/chart-kit.js';
import { int } from './ffn-costs.js';

export const DEFAULT_DEMO = '1, 0, -1, 0.5; 0.5, -0.5, 1, 2; -1, 2, 0, 1';
const DEMO_EXPANSION = 4;
const MAX_DEMO_TOKENS = 8;
const MAX_DEMO_FEATURES = 16;

/** A change between two core outputs: exactly 0, or its size (tiny ones in scientific notation). */
const delta = (v) => (v === 0 ? '0' : v >= 1e-4 ? fmt(v) : v.toExponential(2));
const sameRow = (a, b) => a.length === b.length && a.every((v, i) => v === b[i]);

/** Parses "1, 0; 2, 3" into equal-length rows; throws an Error naming the offending token. */
export function parseDemo(text) {
  return checkDemo(parseRows(text, 'position'));
}
function checkDemo(rows) {
  if (rows.length > MAX_DEMO_TOKENS) throw new Error(`at most ${MAX_DEMO_TOKENS} positions, got ${rows.length}`);
  const d = rows[0].length;
  if (d > MAX_DEMO_FEATURES) throw new Error(`at most ${MAX_DEMO_FEATURES} features per token, got ${d}`);
  rows.forEach((r, t) => {
    if (r.length !== d) throw new Error(`position ${t + 1} has ${r.length} features but position 1 has ${d}`);
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
    this.seed = seed;
    this.list = h('div', { class: 'demo-tokens' });
    this.info = h('p', { class: 'muted demo-info' });
    this.reportLine = h('p', { class: 'report', 'aria-live': 'polite' });
    this.table = h('table', { class: 'demo-out' });
    this.modeBox = h('input', { type: 'checkbox', id: 'demo-mode', role: 'switch', 'aria-describedby': 'demo-mode-help' });
    this.modeBox.addEventListener('change', () => {
      const on = this.modeBox.checked;
      this.host.set('demo-mode', on ? 'across-sequence' : 'per-token');
      if (on && this.demo && this.demo.rows.length !== this.demo.d) {
        // The trap transposes (T, d) to (d, T): it runs only with as many positions as features.
        const d = this.demo.d;
        const rows = Array.from({ length: d }, (_, t) => this.demo.rows[t] ?? this.demo.rows[t % this.demo.rows.length].map((v) => -v));
        this.host.set('demo', rows.map((r) => r.join(', ')).join('; '));
      }
    });
    this.deltaChart = h('div', { class: 'chart delta-chart' });
    this.nodes = [
      h('h4', {}, 'Position-wise: each token on its own'),
      this.info,
      h('div', { class: 'row' }, h('label', { class: 'switch' }, this.modeBox,
        ' Trap: apply the FFN across the sequence (to x.transpose(-2, -1)) instead of to each token')),
      h('p', { class: 'muted', id: 'demo-mode-help' }, 'Lesson 82’s trap: the FFN’s Linear layers then mix positions. ',
        'It needs as many positions as features (switching it on fills them in).'),
      this.list,
      this.reportLine,
      h('div', { class: 'pair' },
        h('div', { class: 'scroll' }, this.table),
        h('div', {}, h('p', { class: 'caption', 'aria-hidden': 'true' }, 'Change of each position’s output after your last edit'),
          this.deltaChart)),
    ];
  }

  read() {
    try {
      return { rows: parseDemo(this.host.attr('demo')) };
    } catch (err) {
      return { rows: this.demo?.rows ?? parseDemo(DEFAULT_DEMO), error: `demo: ${err.message}` };
    }
  }

  row(t) {
    const id = `pos-${t}`;
    const input = h('input', { type: 'text', id, spellcheck: 'false', autocomplete: 'off', 'aria-describedby': 'status',
      'aria-label': `Token at position ${t + 1}: features, separated by commas` });
    input.addEventListener('input', () => this.onInput(input));
    const nudge = h('button', { type: 'button', class: 'nudge', 'aria-label': `Add 1 to the first feature of position ${t + 1}`,
      title: `Add 1 to the first feature of position ${t + 1}` }, '+1');
    nudge.addEventListener('click', () => {
      const rows = this.demo.rows.map((r) => r.slice());
      rows[t][0] = Number((rows[t][0] + 1).toPrecision(12));
      this.host.set('demo', rows.map((r) => r.join(', ')).join('; '));
    });
    return h('div', { class: 'token-row' }, h('label', { for: id }, `Position ${t + 1}`), input, nudge);
  }

  onInput(input) {
    const fields = [...this.list.querySelectorAll('input')];
    fields.forEach((f) => f.removeAttribute('aria-invalid'));
    let rows;
    try {
      rows = checkDemo(fields.map((f, i) => {
        try {
          return parseNumbers(f.value);
        } catch (err) {
          throw Object.assign(new Error(`position ${i + 1}: ${err.message}`), { field: f });
        }
      }));
    } catch (err) {
      (err.field ?? input).setAttribute('aria-invalid', 'true');
      this.host.report(`${err.message.replace(/^./, (c) => c.toUpperCase())} — showing the last valid tokens.`, { error: true });
      return;
    }
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
      input.removeAttribute('aria-invalid');
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
      if (seq === this.seq) this.host.report(`Could not run the feed-forward network: ${err.message}`, { error: true });
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
    if (error) this.host.report(`${error} — showing the last valid tokens.`, { error: true });
    this.host.emit('change', { section: 'positionwise', mode: across ? 'across-sequence' : 'per-token', inputs: rows, outputs, changedInputs: change?.inputs ?? [],
      changedOutputs: change?.changed ?? [], maxDelta: change?.delta ?? [] });
  }

  draw() {
    const { rows, d, outputs, change, numParameters, hidden, across } = this.demo;
    this.info.replaceChildren(`The same FFN (d = ${d} → h = ${hidden} → d, GELU, random weights from Blockscope seed ` +
      `${this.seed}: `, h('span', { 'data-predict': 'params' }, int.format(numParameters)), ` parameters) runs on ` +
      `${rows.length} token vectors in one call, as a (${rows.length}, ${d}) input. ` + (across
      ? 'Trap on: the FFN reads each feature across the positions, so an edit of one token moves every output.'
      : 'Edit a token (or press +1): only its own output changes, because no information passes between positions ' +
        'inside the FFN.'));
    this.host.afterDraw?.();
    const list = (ts) => (ts.length === 1 ? `position ${ts[0]}` : `positions ${ts.join(', ')}`);
    if (!change) this.reportLine.textContent = '';
    else {
      const others = change.changed.filter((t) => !change.inputs.includes(t));
      this.reportLine.textContent = `You changed ${list(change.inputs)}; the output changed at ` +
        `${change.changed.length ? list(change.changed) : 'no position'}` +
        (others.length ? ': the FFN mixed the positions — that is the trap.' : ' only — every other output is bit-for-bit the same.');
    }
    const vec = (v) => h('div', { class: 'vec num' }, ...v.map((e) => h('span', {}, fmt(e))));
    this.table.replaceChildren(
      h('caption', { class: 'visually-hidden' }, 'FFN output per position and how much it changed after the last edit'),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'position'), h('th', { scope: 'col' }, 'output FFN(x)'),
        h('th', { scope: 'col' }, 'largest |Δ|'))),
      h('tbody', {}, ...outputs.map((o, t) => {
        const moved = change?.changed.includes(t + 1);
        return h('tr', { 'data-position': String(t + 1), 'data-changed': change ? String(!!moved) : null },
          h('th', { scope: 'row' }, String(t + 1), moved ? h('span', { class: 'visually-hidden' }, ' (changed)') : null),
          h('td', { class: moved ? 'changed' : '', 'data-col': 'output' }, vec(o)),
          h('td', { class: 'num', 'data-col': 'delta' }, change ? delta(change.delta[t]) : '—'));
      })));
    this.drawChart();
  }

  redraw() {
    if (this.demo) this.drawChart();
  }

  drawChart() {
    const { outputs, change } = this.demo;
    this.deltaChart.replaceChildren();
    const values = outputs.map((_, t) => change?.delta[t] ?? 0);
    groupedBars(this.deltaChart, {
      groups: outputs.map((_, t) => String(t + 1)), width: chartWidth(this.deltaChart), height: 190,
      series: [{ key: 'delta', label: 'largest |Δ output|', color: 'var(--bs-c5)', values }],
      xLabel: 'position (token)', yLabel: 'largest |Δ output|',
      title: 'How much each position’s output changed after the last edit',
      description: change
        ? values.map((v, t) => `position ${t + 1}: ${delta(v)}`).join('; ')
        : 'No edit yet: every bar is 0.',
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
