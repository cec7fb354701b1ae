// ffn-worked-example.js — <ffn-explorer>'s worked example from lesson LM4-T3: an FFN with d = 2 and hidden width 4
// whose W₁, b₁, W₂, b₂ and input x are editable cells, shown step by step (h = W₁x + b₁, a = GELU(h) or ReLU(h),
// y = W₂a + b₂). Every result is the core's: a FeedForward(2, 4) with the edited matrices loaded as its parameters,
// run on x. A helper of the element, not a custom element.
import { h, parseNumber } from '../kit/base.js';
import { pyList } from '../kit/copy-pytorch.js';
import { fill, vector } from './ffn-text.js';
import { fieldError } from '../kit/field-error.js';

const D = 2;
const HIDDEN = 4;
// The lesson's example ("A worked example: a tiny feed-forward network"). tests/reference/make_lesson_presets.py
// writes the same matrices with PyTorch's outputs to web/presets/ffn-d2-lesson-example.json (the browser test
// checks both against each other).
export const LESSON_EXAMPLE = Object.freeze({
  x: [1, -2],
  W1: [[1, 0], [0, 1], [1, 1], [1, -1]],
  b1: [0, 0, 0, 0],
  W2: [[1, 0, 0, 0], [0, 1, 0, 0]],
  b2: [0, 0],
});
// The editable tensors: shape (rows, cols) and the FeedForward parameter each is loaded into (nn.Linear's
// (out, in) layout, checked against the parameter list the core's handle reports). What each is: the message
// ffn.example.what.<key>.
const TENSORS = [
  { key: 'x', label: 'x', rows: D, cols: 1 },
  { key: 'W1', label: 'W₁', rows: HIDDEN, cols: D, param: 'layers.0.weight' },
  { key: 'b1', label: 'b₁', rows: HIDDEN, cols: 1, param: 'layers.0.bias' },
  { key: 'W2', label: 'W₂', rows: D, cols: HIDDEN, param: 'layers.2.weight' },
  { key: 'b2', label: 'b₂', rows: D, cols: 1, param: 'layers.2.bias' },
];
// The activations' names (in the formulas) and labels (at the radio buttons): messages ffn.example.act.<key>.name
// and .label.
export const EXAMPLE_ACTIVATIONS = {
  gelu: { core: 'gelu_tanh' },
  relu: { core: 'relu' },
  // Lesson LM4-T4 "why a nonlinearity": Linear → Linear, which the core computes as the no-activation mistake.
  none: { core: 'gelu_tanh' },
};
const MAX_ABS = 1e6;

export const EXAMPLE_CSS = `
.example-inputs .mats { display: flex; flex-wrap: wrap; gap: 0.6rem 1.4rem; align-items: flex-start; }
.example-inputs .pairing { display: flex; gap: 0.5rem; align-items: flex-start; }
.mat { margin: 0; }
.mat .cap { font-weight: 600; font-size: 0.95rem; margin-bottom: 0.15rem; }
.mat .cap .muted { font-weight: normal; }
.cells { display: grid; gap: 0.2rem; border-left: 2px solid var(--bs-fg); border-right: 2px solid var(--bs-fg);
  border-radius: 4px; padding: 0.15rem 0.25rem; }
.cells input { width: 3.3rem; text-align: end; padding: 0.15rem 0.3rem; font-variant-numeric: tabular-nums; }
.example-steps { display: grid; grid-template-columns: minmax(0, 1fr); gap: 0.25rem 1.5rem; }
@container (min-width: 860px) { .example-steps { grid-template-columns: repeat(3, minmax(0, 1fr)); } }
.example-steps table { width: 100%; }
.example-steps caption { text-align: start; caption-side: top; font-weight: 600; padding: 0.2rem 0; }
.example-steps th:nth-child(2) { text-align: start; }
.example-steps td.formula { text-align: start; color: var(--bs-muted); white-space: normal; overflow-wrap: anywhere; }
.example-result { font-weight: 600; }
.example-status { min-height: 1.45em; }
.example-status.error { color: var(--bs-c2); font-weight: 600; }
`;

/** A typed-in number for a formula, in `port`'s language: up to 4 decimals, U+2212 minus, in parentheses when negative. */
function term(port, v, digits = 4) {
  const r = Number(v.toFixed(digits));
  const s = Number.isInteger(r) ? port.num(r, 0) : port.num(r);
  return v < 0 ? `(${s})` : s;
}
const coreTerm = (port, v) => (v < 0 ? `(${port.num(v, 4)})` : port.num(v, 4));

/** One cell's text -> a number; throws an Error naming the cell. */
function parseCell(port, text, name) {
  const v = parseNumber(text, name);
  if (Math.abs(v) > MAX_ABS) {
    throw new Error(port.t('ffn.example.tooLarge', { name, value: String(text).trim().replace(/−/g, '-'), min: -MAX_ABS, max: MAX_ABS }));
  }
  return v;
}

/** The name of cell (r, c) of a tensor, as messages and screen readers say it. */
function cellName(port, t, r, c) {
  return t.cols === 1 ? port.t('ffn.example.entry', { label: t.label, row: r + 1 })
    : port.t('ffn.example.cell', { label: t.label, row: r + 1, column: c + 1 });
}

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

export class WorkedExample {
  /** values: the cells' numbers to start from (the lesson's example by default). */
  constructor(host, values = LESSON_EXAMPLE) {
    this.host = host;
    const t = (key, params) => host.t(key, params);
    this.handles = {}; // activation -> Promise<RemoteFeedForward>
    this.cells = {}; // key -> input[rows][cols]
    this.message = h('p', { class: 'example-status', id: 'example-status', role: 'status' });
    const mats = Object.fromEntries(TENSORS.map((tensor) => [tensor.key, this.matrix(tensor)]));
    this.radios = Object.keys(EXAMPLE_ACTIVATIONS).map((value) => h('label', {},
      h('input', { type: 'radio', name: 'example-activation', value,
        onchange: () => this.host.set('example-activation', value) || this.update() }), ` ${t(`ffn.example.act.${value}.label`)}`));
    this.badge = h('p', { class: 'muted example-badge' });
    this.reset = h('button', { type: 'button', class: 'reset-example', onclick: () => this.resetToLesson() },
      t('ffn.example.reset'));
    this.steps = h('div', { class: 'example-steps' });
    this.result = h('p', { class: 'example-result', 'aria-live': 'polite' });
    this.collapse = h('p', { class: 'note collapse', hidden: true });
    // The author's control groups (layout.js): the cells with their reset button, and the activation.
    this.inputs = h('fieldset', { class: 'example-inputs' }, h('legend', { class: 'fs' }, t('ffn.example.inputs')),
      h('div', { class: 'mats' }, mats.x, h('div', { class: 'pairing' }, mats.W1, mats.b1),
        h('div', { class: 'pairing' }, mats.W2, mats.b2)),
      h('div', { class: 'row' }, this.reset),
      this.badge);
    this.activationBox = h('fieldset', { class: 'example-activation' }, h('legend', { class: 'fs' }, t('ffn.example.activation')),
      ...this.radios);
    this.nodes = [
      h('h4', {}, t('ffn.example.title')),
      h('p', { class: 'muted' }, t('ffn.example.intro')),
      this.inputs,
      this.activationBox,
      this.message,
      this.steps,
      this.result,
      this.collapse,
    ];
    this.fill(values);
  }

  /** A grid of labelled number cells for one tensor. */
  matrix(t) {
    this.cells[t.key] = Array.from({ length: t.rows }, (_, r) => Array.from({ length: t.cols }, (_, c) => {
      const input = h('input', { type: 'text', inputmode: 'decimal', autocomplete: 'off', spellcheck: 'false',
        id: `cell-${t.key}-${r}-${c}`, 'aria-label': cellName(this.host, t, r, c), 'aria-describedby': 'example-status' });
      input.addEventListener('input', () => this.onEdit());
      input.addEventListener('keydown', (e) => this.onKey(e, t, r, c));
      return input;
    }));
    const shape = t.cols === 1 ? `(${t.rows})` : `(${t.rows} × ${t.cols})`;
    const label = this.host.t('ffn.example.matrix', { label: t.label, what: this.host.t(`ffn.example.what.${t.key}`), shape });
    return h('div', { class: 'mat', role: 'group', 'aria-label': label, 'data-tensor': t.key },
      h('div', { class: 'cap', 'aria-hidden': 'true' }, `${t.label} `, h('span', { class: 'muted' }, shape)),
      h('div', { class: 'cells', style: `grid-template-columns: repeat(${t.cols}, auto)` }, ...this.cells[t.key].flat()));
  }

  onKey(e, t, r, c) {
    const step = { ArrowUp: -1, ArrowDown: 1 }[e.key];
    if (!step) return;
    const next = this.cells[t.key][r + step]?.[c];
    if (next) {
      e.preventDefault();
      next.focus();
      next.select();
    }
  }

  fill(values) {
    for (const t of TENSORS) {
      const rows = t.cols === 1 ? values[t.key].map((v) => [v]) : values[t.key];
      this.cells[t.key].forEach((row, r) => row.forEach((input, c) => {
        input.value = String(rows[r][c]);
        fieldError(input, null);
      }));
    }
  }

  /** The cells as numbers, or {errors} naming every bad cell (and marking it). */
  read() {
    const values = {};
    const errors = [];
    for (const t of TENSORS) {
      const rows = this.cells[t.key].map((row, r) => row.map((input, c) => {
        try {
          const v = parseCell(this.host, input.value, cellName(this.host, t, r, c));
          fieldError(input, null);
          return v;
        } catch (err) {
          fieldError(input, err.message, { after: input.parentNode }); // under the tensor's grid of cells
          errors.push(err.message);
          return NaN;
        }
      }));
      values[t.key] = t.cols === 1 ? rows.map((row) => row[0]) : rows;
    }
    return errors.length ? { errors } : { values };
  }

  onEdit() {
    this.update();
  }

  resetToLesson() {
    if (this.host.locked('example')) return; // the author locked the cells (lock="example")
    this.fill(LESSON_EXAMPLE);
    this.update();
  }

  activation() {
    const a = this.host.attr('example-activation');
    return a in EXAMPLE_ACTIVATIONS ? a : 'gelu';
  }

  /** The core's FeedForward(2, 4) for an activation, created once; its parameter names and shapes checked. */
  handle(kind) {
    this.handles[kind] ??= (async () => {
      const rt = await this.host.runtime();
      const core = EXAMPLE_ACTIVATIONS[kind]?.core ?? 'gelu_tanh';
      const ff = await rt.createFeedForward({ embDim: D, hiddenDim: HIDDEN, activation: core, seed: 0 });
      const shapes = Object.fromEntries(ff.parameters.map((p) => [p.name, p.shape.join('×')]));
      for (const t of TENSORS.filter((q) => q.param)) {
        const want = t.cols === 1 ? `${t.rows}` : `${t.rows}×${t.cols}`;
        if (shapes[t.param] !== want) {
          await ff.dispose();
          throw new Error(this.host.t('ffn.example.badParameter', { param: t.param, shape: want,
            has: Object.entries(shapes).map(([n, s]) => `${n} ${s}`).join(', ') }));
        }
      }
      return ff;
    })();
    this.handles[kind].catch(() => delete this.handles[kind]);
    return this.handles[kind];
  }

  async update() {
    const kind = this.activation();
    for (const r of this.radios) {
      const input = r.querySelector('input');
      input.checked = input.value === kind;
    }
    const { values, errors } = this.read();
    if (errors) {
      this.say(errors.length > 1 ? this.host.t('ffn.example.badCells', { error: errors[0], count: errors.length - 1 })
        : this.host.t('ffn.example.badCell', { error: errors[0] }), { error: true });
      this.seq = (this.seq ?? 0) + 1; // a computation still running would show numbers the cells no longer hold
      return;
    }
    const seq = (this.seq = (this.seq ?? 0) + 1);
    let r;
    let collapsed;
    try {
      const ff = await this.handle(kind);
      await ff.loadParameters(Object.fromEntries(TENSORS.filter((t) => t.param)
        .map((t) => [t.param, Float32Array.from(values[t.key].flat())])));
      r = await ff.forward(Float32Array.from(values.x));
      if (kind === 'none') r = { ...r, hiddenPost: r.hiddenPre, output: await ff.mistake('no-activation', values.x, 1, 1) };
      collapsed = kind === 'none' ? await this.collapsed(values, ff) : null;
    } catch (err) {
      if (seq === this.seq) this.say(this.host.t('ffn.example.error', { error: err.message }), { error: true });
      return;
    }
    if (seq !== this.seq) return;
    this.state = { kind, values, pre: Array.from(r.hiddenPre), post: Array.from(r.hiddenPost), output: Array.from(r.output),
      collapsed };
    this.say('');
    this.draw();
    this.host.emit('change', { section: 'example', activation: kind, ...values, hiddenPre: this.state.pre,
      hiddenPost: this.state.post, output: this.state.output });
    this.host.afterDraw?.();
  }

  /**
   * Without an activation the two layers are one linear map: y = (W₂W₁)x + (W₂b₁ + b₂). The core computes both
   * parts: W₂W₁'s columns as the no-activation FFN with zero biases applied to the unit vectors, and the offset as
   * the FFN (with its biases) applied to x = 0.
   */
  async collapsed(values, ff) {
    const zero = await this.handle('collapse');
    await zero.loadParameters({ 'layers.0.weight': Float32Array.from(values.W1.flat()), 'layers.0.bias': new Float32Array(HIDDEN),
      'layers.2.weight': Float32Array.from(values.W2.flat()), 'layers.2.bias': new Float32Array(D) });
    const cols = await zero.mistake('no-activation', [1, 0, 0, 1], 1, D); // row j = W₂W₁ e_j
    const offset = await ff.mistake('no-activation', new Float32Array(D), 1, 1);
    const M = Array.from({ length: D }, (_, i) => Array.from({ length: D }, (__, j) => cols[j * D + i]));
    return { M, offset: Array.from(offset) };
  }

  /** The worked example as PyTorch: nn.Linear layers with the cells' values, printing every step. */
  snippet() {
    if (!this.state) return '';
    const { kind, values } = this.state;
    const act = { gelu: 'nn.GELU(approximate="tanh")', relu: 'nn.ReLU()', none: 'nn.Identity()' }[kind];
    return [
      '# Blockscope <ffn-explorer>: the worked example (d = 2, hidden width 4) in PyTorch.',
      'import torch, torch.nn as nn',
      '',
      ...(kind === 'none' ? ['# No activation between the layers: "why a nonlinearity?"'] : []),
      `ffn = nn.Sequential(nn.Linear(2, 4), ${act}, nn.Linear(4, 2))`,
      'with torch.no_grad():',
      `    ffn[0].weight.copy_(torch.tensor(${pyList(values.W1)}))`,
      `    ffn[0].bias.copy_(torch.tensor(${pyList(values.b1)}))`,
      `    ffn[2].weight.copy_(torch.tensor(${pyList(values.W2)}))`,
      `    ffn[2].bias.copy_(torch.tensor(${pyList(values.b2)}))`,
      `    x = torch.tensor(${pyList(values.x)})`,
      '    h = ffn[0](x)',
      '    a = ffn[1](h)',
      '    y = ffn[2](a)',
      'print("hidden_pre", h.tolist())',
      'print("hidden_post", a.tolist())',
      'print("output", y.tolist())',
      ...(kind === 'none' ? ['print("collapsed", (ffn[2].weight @ ffn[0].weight).tolist())  # W₂W₁: one linear map'] : []),
    ].join('\n') + '\n';
  }

  say(text, { error = false } = {}) {
    this.message.textContent = text;
    this.message.classList.toggle('error', error);
  }

  draw() {
    const { kind, values, pre, post, output } = this.state;
    const port = this.host;
    const t = (key, params) => port.t(key, params);
    const act = t(`ffn.example.act.${kind}.name`);
    const lesson = same(values, LESSON_EXAMPLE);
    this.badge.textContent = lesson ? t('ffn.example.lessonNumbers') : t('ffn.example.edited', { reset: t('ffn.example.reset') });
    this.reset.disabled = lesson || port.locked('example');
    const table = (caption, cols, rows) => h('div', { class: 'scroll' }, h('table', {},
      h('caption', {}, caption),
      h('thead', {}, h('tr', {}, ...cols.map((c) => h('th', { scope: 'col' }, c)))),
      h('tbody', {}, ...rows)));
    const row = (label, formula, value, step, i) => h('tr', {},
      h('th', { scope: 'row' }, label),
      h('td', { class: 'formula num' }, formula),
      h('td', { class: 'num', 'data-step': step, 'data-i': String(i) }, port.num(value, 4)));
    const typed = (v) => term(port, v);
    const computed = (v) => coreTerm(port, v);
    const dot = (w, v, b, termOf) => `${w.map((wk, k) => `${typed(wk)}·${termOf(v[k])}`).join(' + ')} + ${typed(b)}`;
    this.steps.replaceChildren(
      table(t('ffn.example.step1'), ['i', t('ffn.example.step1Col'), 'hᵢ'],
        pre.map((v, i) => row(port.num(i + 1), dot(values.W1[i], values.x, values.b1[i], typed), v, 'pre', i))),
      table(t('ffn.example.step2', { act }), ['i', t('ffn.example.step2Col'), `aᵢ = ${act}(hᵢ)`],
        post.map((v, i) => row(port.num(i + 1), `${act}(${port.num(pre[i], 4)})`, v, 'post', i))),
      table(t('ffn.example.step3'), ['j', t('ffn.example.step3Col'), 'yⱼ'],
        output.map((v, j) => row(port.num(j + 1), dot(values.W2[j], post, values.b2[j], computed), v, 'out', j))));
    this.result.replaceChildren(...fill(t('ffn.example.result', { act }), {
      output: h('span', { class: 'num', 'data-example': 'output' }, vector(port, output)),
      hidden: h('span', { class: 'num', 'data-example': 'hidden' }, vector(port, post)),
    }));
    const c = this.state.collapsed;
    this.collapse.hidden = !c;
    if (c) {
      const rows = `[${c.M.map((r) => vector(port, r)).join(t('ffn.vectorSeparator'))}]`;
      this.collapse.replaceChildren(...fill(t('ffn.example.collapse'), {
        matrix: h('span', { class: 'num', 'data-example': 'collapsed' }, rows),
        offset: h('span', { class: 'num', 'data-example': 'offset' }, vector(port, c.offset)),
      }));
    }
  }

  /** Frees the worker-side FeedForwards; returns true if there were any. */
  release() {
    const held = Object.values(this.handles);
    this.handles = {};
    for (const p of held) p.then((ff) => ff.dispose()).catch(() => {});
    return held.length > 0;
  }
}
