// ffn-worked-example.js — <ffn-explorer>'s worked example from lesson LM4-T3: an FFN with d = 2 and hidden width 4
// whose W₁, b₁, W₂, b₂ and input x are editable cells, shown step by step (h = W₁x + b₁, a = GELU(h) or ReLU(h),
// y = W₂a + b₂). Every result is the core's: a FeedForward(2, 4) with the edited matrices loaded as its parameters,
// run on x. A helper of the element, not a custom element.
import { fmt, h, parseNumber } from '../kit/base.js';
import { pyList } from '../kit/copy-pytorch.js';

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
// (out, in) layout, checked against the parameter list the core's handle reports).
const TENSORS = [
  { key: 'x', label: 'x', rows: D, cols: 1, what: 'input' },
  { key: 'W1', label: 'W₁', rows: HIDDEN, cols: D, param: 'layers.0.weight', what: 'first Linear’s weight' },
  { key: 'b1', label: 'b₁', rows: HIDDEN, cols: 1, param: 'layers.0.bias', what: 'first Linear’s bias' },
  { key: 'W2', label: 'W₂', rows: D, cols: HIDDEN, param: 'layers.2.weight', what: 'second Linear’s weight' },
  { key: 'b2', label: 'b₂', rows: D, cols: 1, param: 'layers.2.bias', what: 'second Linear’s bias' },
];
export const EXAMPLE_ACTIVATIONS = {
  gelu: { core: 'gelu_tanh', name: 'GELU', label: 'GELU (tanh form, as in the lesson)' },
  relu: { core: 'relu', name: 'ReLU', label: 'ReLU' },
  // Lesson LM4-T4 "why a nonlinearity": Linear → Linear, which the core computes as the no-activation mistake.
  none: { core: 'gelu_tanh', name: 'identity', label: 'none: W₂(W₁x + b₁) + b₂ (why a nonlinearity?)' },
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
.cells input { width: 3.3rem; text-align: right; padding: 0.15rem 0.3rem; font-variant-numeric: tabular-nums; }
.example-steps { display: grid; grid-template-columns: minmax(0, 1fr); gap: 0.25rem 1.5rem; }
@container (min-width: 860px) { .example-steps { grid-template-columns: repeat(3, minmax(0, 1fr)); } }
.example-steps table { width: 100%; }
.example-steps caption { text-align: left; caption-side: top; font-weight: 600; padding: 0.2rem 0; }
.example-steps th:nth-child(2) { text-align: left; }
.example-steps td.formula { text-align: left; color: var(--bs-muted); white-space: normal; overflow-wrap: anywhere; }
.example-result { font-weight: 600; }
.example-status { min-height: 1.45em; }
.example-status.error { color: var(--bs-c2); font-weight: 600; }
`;

/** A typed-in number for a formula: up to 4 decimals, U+2212 minus, in parentheses when negative. */
function term(v, digits = 4) {
  const s = Number(v.toFixed(digits)).toString().replace('-', '−');
  return v < 0 ? `(${s})` : s;
}
const coreTerm = (v) => (v < 0 ? `(${fmt(v)})` : fmt(v));
const vector = (values) => `[${values.map((v) => fmt(v)).join(', ')}]`;

/** One cell's text -> a number; throws an Error naming the cell. */
function parseCell(text, name) {
  const v = parseNumber(text, name);
  if (Math.abs(v) > MAX_ABS) throw new Error(`${name} (${String(text).trim().replace(/−/g, '-')}) must lie between −1,000,000 and 1,000,000`);
  return v;
}

/** The name of cell (r, c) of a tensor, as messages and screen readers say it. */
function cellName(t, r, c, { plain = false } = {}) {
  const label = plain ? t.key : t.label;
  return t.cols === 1 ? `${label} entry ${r + 1}` : `${label} row ${r + 1}, column ${c + 1}`;
}

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

export class WorkedExample {
  constructor(host) {
    this.host = host;
    this.handles = {}; // activation -> Promise<RemoteFeedForward>
    this.cells = {}; // key -> input[rows][cols]
    this.message = h('p', { class: 'example-status', id: 'example-status', role: 'status' });
    const mats = Object.fromEntries(TENSORS.map((t) => [t.key, this.matrix(t)]));
    this.radios = Object.entries(EXAMPLE_ACTIVATIONS).map(([value, a]) => h('label', {},
      h('input', { type: 'radio', name: 'example-activation', value,
        onchange: () => this.host.set('example-activation', value) }), ` ${a.label}`));
    this.badge = h('p', { class: 'muted example-badge' });
    this.reset = h('button', { type: 'button', class: 'reset-example', onclick: () => this.resetToLesson() },
      'Reset to the lesson’s example');
    this.steps = h('div', { class: 'example-steps' });
    this.result = h('p', { class: 'example-result', 'aria-live': 'polite' });
    this.collapse = h('p', { class: 'note collapse', hidden: true });
    this.nodes = [
      h('h4', {}, 'A worked example: d = 2, hidden width 4'),
      h('p', { class: 'muted' }, 'Lesson LM4-T3’s tiny FFN: W₁ reads x into four hidden units, W₂ reads out the first ',
        'two. Edit any number (arrow keys ↑/↓ move between rows); the core recomputes every step.'),
      h('fieldset', { class: 'example-inputs' }, h('legend', { class: 'fs' }, 'Input and parameters'),
        h('div', { class: 'mats' }, mats.x, h('div', { class: 'pairing' }, mats.W1, mats.b1),
          h('div', { class: 'pairing' }, mats.W2, mats.b2)),
        h('div', { class: 'row' }, this.reset),
        this.badge),
      h('fieldset', { class: 'example-activation' }, h('legend', { class: 'fs' }, 'Activation'), ...this.radios),
      this.message,
      this.steps,
      this.result,
      this.collapse,
    ];
    this.fill(LESSON_EXAMPLE);
  }

  /** A grid of labelled number cells for one tensor. */
  matrix(t) {
    this.cells[t.key] = Array.from({ length: t.rows }, (_, r) => Array.from({ length: t.cols }, (_, c) => {
      const input = h('input', { type: 'text', inputmode: 'decimal', autocomplete: 'off', spellcheck: 'false',
        id: `cell-${t.key}-${r}-${c}`, 'aria-label': cellName(t, r, c), 'aria-describedby': 'example-status' });
      input.addEventListener('input', () => this.onEdit());
      input.addEventListener('keydown', (e) => this.onKey(e, t, r, c));
      return input;
    }));
    const shape = t.cols === 1 ? `(${t.rows})` : `(${t.rows} × ${t.cols})`;
    return h('div', { class: 'mat', role: 'group', 'aria-label': `${t.label}, ${t.what}, shape ${shape}`, 'data-tensor': t.key },
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
        input.removeAttribute('aria-invalid');
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
          const v = parseCell(input.value, cellName(t, r, c));
          input.removeAttribute('aria-invalid');
          return v;
        } catch (err) {
          input.setAttribute('aria-invalid', 'true');
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
          throw new Error(`the core's FeedForward has no parameter ${t.param} of shape ${want} ` +
            `(it has ${Object.entries(shapes).map(([n, s]) => `${n} ${s}`).join(', ')})`);
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
      const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : '';
      this.say(`${errors[0]}${more} — showing the last valid example.`, { error: true });
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
      if (seq === this.seq) this.say(`Could not run the worked example: ${err.message}`, { error: true });
      return;
    }
    if (seq !== this.seq) return;
    this.state = { kind, values, pre: Array.from(r.hiddenPre), post: Array.from(r.hiddenPost), output: Array.from(r.output),
      collapsed };
    this.say('');
    this.draw();
    this.host.emit('change', { section: 'example', activation: kind, ...values, hiddenPre: this.state.pre,
      hiddenPost: this.state.post, output: this.state.output });
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
    const act = EXAMPLE_ACTIVATIONS[kind].name;
    const lesson = same(values, LESSON_EXAMPLE);
    this.badge.textContent = lesson ? 'These are the lesson’s numbers.'
      : 'Edited: “Reset to the lesson’s example” brings back the lesson’s numbers.';
    this.reset.disabled = lesson;
    const table = (caption, cols, rows) => h('div', { class: 'scroll' }, h('table', {},
      h('caption', {}, caption),
      h('thead', {}, h('tr', {}, ...cols.map((c) => h('th', { scope: 'col' }, c)))),
      h('tbody', {}, ...rows)));
    const row = (label, formula, value, step, i) => h('tr', {},
      h('th', { scope: 'row' }, label),
      h('td', { class: 'formula num' }, formula),
      h('td', { class: 'num', 'data-step': step, 'data-i': String(i) }, fmt(value)));
    const dot = (w, v, b, termOf) => `${w.map((wk, k) => `${term(wk)}·${termOf(v[k])}`).join(' + ')} + ${term(b)}`;
    this.steps.replaceChildren(
      table('Step 1: h = W₁x + b₁', ['i', 'W₁ row i · x + b₁ᵢ', 'hᵢ'],
        pre.map((v, i) => row(String(i + 1), dot(values.W1[i], values.x, values.b1[i], term), v, 'pre', i))),
      table(`Step 2: a = ${act}(h)`, ['i', 'input', `aᵢ = ${act}(hᵢ)`],
        post.map((v, i) => row(String(i + 1), `${act}(${fmt(pre[i])})`, v, 'post', i))),
      table('Step 3: y = W₂a + b₂', ['j', 'W₂ row j · a + b₂ⱼ', 'yⱼ'],
        output.map((v, j) => row(String(j + 1), dot(values.W2[j], post, values.b2[j], coreTerm), v, 'out', j))));
    this.result.replaceChildren(`FFN(x) = `, h('span', { class: 'num', 'data-example': 'output' }, vector(output)),
      ` (hidden after ${act}: `, h('span', { class: 'num', 'data-example': 'hidden' }, vector(post)), ').');
    const c = this.state.collapsed;
    this.collapse.hidden = !c;
    if (c) {
      this.collapse.replaceChildren('Without an activation the two layers collapse into one: W₂W₁ = ',
        h('span', { class: 'num', 'data-example': 'collapsed' }, `[${c.M.map((r) => vector(r)).join(', ')}]`),
        ' and W₂b₁ + b₂ = ', h('span', { class: 'num', 'data-example': 'offset' }, vector(c.offset)),
        ', so FFN(x) = (W₂W₁)x + (W₂b₁ + b₂) is a single 2 × 2 linear map: the four hidden units add parameters but ',
        'no expressive power. Switch GELU back on and the map is no longer linear.');
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
