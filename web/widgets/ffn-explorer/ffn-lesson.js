// ffn-lesson.js — <ffn-explorer preset="ffn-lesson82">: lesson 82 §29 "FFN sublayer in PyTorch", the lesson's FFN(4, 16)
// with the weights PyTorch drew after torch.manual_seed(0) (web/presets/ffn-lesson82.json, written by
// tests/reference/make_lesson_presets.py) loaded into the core's FeedForward, run on the lesson's x (or tokens the
// learner types), printing what the lesson prints (hidden shape, output shape, output, 148 parameters) next to
// PyTorch's — plus the check of a learner's own FFN on the same weights and the state as PyTorch.
// A helper of the element, not a custom element.
import { fmt, h, parseRows } from '../kit/base.js';
import { CheckPanel } from '../kit/check-panel.js';
import { pyList } from '../kit/copy-pytorch.js';

const PRESET_URL = new URL('../presets/ffn-lesson82.json', import.meta.url).href;
export const FFN_PRESET = 'ffn-lesson82';
const MAX_TOKENS = 8;

let presetPromise = null;
function loadPreset() {
  presetPromise ??= fetch(PRESET_URL).then(async (r) => {
    if (!r.ok) throw new Error(`the lesson's weights (${PRESET_URL}) could not be loaded: HTTP ${r.status}`);
    return r.json();
  }).catch((err) => {
    presetPromise = null;
    throw err;
  });
  return presetPromise;
}

export const LESSON_FFN_CSS = `
.ffn-lesson pre.printout { margin: 0.3rem 0; padding: 0.35rem 0.5rem; background: var(--bs-panel); border-radius: 6px; white-space: pre-wrap; }
.ffn-lesson input.x-rows { width: 100%; max-width: 30rem; }
`;

export class LessonFFN {
  constructor(host) {
    this.host = host;
    this.xInput = h('input', { type: 'text', id: 'lesson-x', class: 'x-rows', spellcheck: 'false', autocomplete: 'off',
      value: '1, 0, -1, 0.5', 'aria-describedby': 'lesson-x-help' });
    this.xInput.addEventListener('input', () => this.update());
    this.printout = h('pre', { class: 'printout num', 'data-predict': 'params' });
    this.compare = h('p', { class: 'muted lesson-compare' });
    this.check = new CheckPanel(host, { target: () => this.target(),
      what: () => `your FFN’s output for x = ${this.rows ? `torch.tensor(${JSON.stringify(this.rows)})` : 'the tokens above'} ` +
        '(shape (tokens, 4)), with the lesson’s weights (torch.manual_seed(0) before FFN(4, 16))' });
    this.root = h('section', { class: 'ffn-lesson', 'aria-labelledby': 'ffn-lesson-title', hidden: true },
      h('h4', { id: 'ffn-lesson-title' }, 'Lesson 82 §29: FFN(d_model = 4, d_ff = 16) in PyTorch, run by the core'),
      h('p', { class: 'muted' }, 'PyTorch built the lesson’s FFN after torch.manual_seed(0) (w1 = Linear(4, 16), ',
        'F.gelu — the exact erf form —, w2 = Linear(16, 4)); those exact weights are loaded into the core’s ',
        'FeedForward. The core prints what the lesson prints:'),
      h('div', { class: 'row' }, h('label', { for: 'lesson-x' }, 'x'), this.xInput),
      h('p', { class: 'muted', id: 'lesson-x-help' }, 'The lesson’s x is one token, [1, 0, −1, 0.5]; add more tokens ',
        'with “;” (four tokens of four features let the check tell an FFN applied across the sequence apart).'),
      this.printout, this.compare, this.check.element);
  }

  set hidden(v) {
    this.root.hidden = v;
  }

  async ffn() {
    this.ffnPromise ??= (async () => {
      const p = await loadPreset();
      const rt = await this.host.runtime();
      const ff = await rt.createFeedForward({ embDim: p.config.emb_dim, hiddenDim: p.config.hidden_dim,
        activation: p.config.activation });
      await ff.loadParameters(Object.fromEntries(Object.entries(p.params).map(([n, v]) => [n, Float32Array.from(v)])));
      return { ff, preset: p };
    })();
    this.ffnPromise.catch(() => { this.ffnPromise = null; });
    return this.ffnPromise;
  }

  readRows() {
    const rows = parseRows(this.xInput.value, 'token');
    if (rows.length > MAX_TOKENS) throw new Error(`at most ${MAX_TOKENS} tokens, got ${rows.length}`);
    rows.forEach((r, t) => { if (r.length !== 4) throw new Error(`token ${t + 1} has ${r.length} features; the lesson’s FFN takes 4`); });
    return rows;
  }

  async target() {
    const { ff } = await this.ffn();
    const T = this.rows.length;
    const x = Float32Array.from(this.rows.flat());
    const ids = await ff.mistakes(T);
    return { shape: [T, 4], candidates: await Promise.all(ids.map(async (id) => ({ id, values: await ff.mistake(id, x, 1, T) }))) };
  }

  async update() {
    let rows;
    try {
      rows = this.readRows();
      this.xInput.removeAttribute('aria-invalid');
    } catch (err) {
      this.xInput.setAttribute('aria-invalid', 'true');
      this.host.report(`x: ${err.message} — showing the last valid x.`, { error: true });
      return;
    }
    const seq = (this.seq = (this.seq ?? 0) + 1);
    let r;
    let preset;
    let ff;
    try {
      ({ ff, preset } = await this.ffn());
      r = await ff.forward(Float32Array.from(rows.flat()));
    } catch (err) {
      if (seq === this.seq) this.host.report(`Could not run the lesson’s FFN: ${err.message}`, { error: true });
      return;
    }
    if (seq !== this.seq) return;
    this.rows = rows;
    const out = Array.from(r.output);
    this.state = { rows, hidden: Array.from(r.hiddenPost), output: out, numParameters: ff.numParameters, preset };
    const lessonX = rows.length === 1 && rows[0].every((v, i) => v === preset.x[i]);
    this.state.diff = lessonX ? Math.max(...out.map((v, i) => Math.abs(v - preset.torch_output[i]))) : null;
    this.draw();
    this.host.emit('change', { section: 'lesson', x: rows, hidden: this.state.hidden, output: out,
      numParameters: ff.numParameters, maxAbsDiff: this.state.diff });
  }

  draw() {
    if (!this.state) return;
    const { rows, output: out, numParameters, preset, diff } = this.state;
    const T = rows.length;
    this.printout.textContent = `hidden shape: torch.Size([${T}, ${preset.config.hidden_dim}])\n` +
      `output shape: torch.Size([${T}, ${preset.config.emb_dim}])\n` +
      `output:       ${T === 1 ? `[${out.map((v) => fmt(v)).join(', ')}]` : `${T} rows, first [${out.slice(0, 4).map((v) => fmt(v)).join(', ')}]`}\n` +
      `params:       ${numParameters}`;
    this.compare.textContent = diff == null
      ? 'Your own x: PyTorch’s printout is for the lesson’s x only.'
      : `PyTorch printed [−0.3974, 0.2011, 0.0934, −0.1582]; the core’s output differs from PyTorch’s by at most ${diff.toExponential(1)}.`;
    this.check.refresh();
    this.host.afterDraw();
  }

  /** The lesson's code with its seed, printing the shapes, the output and the parameter count. */
  snippet() {
    if (!this.state) return '';
    return [
      '# Blockscope <ffn-explorer preset="ffn-lesson82">: lesson 82 §29, verbatim, on the widget\'s x.',
      'import torch, torch.nn as nn, torch.nn.functional as F',
      'torch.manual_seed(0)',
      '',
      'class FFN(nn.Module):',
      '    def __init__(self, d_model, d_ff):',
      '        super().__init__()',
      '        self.w1 = nn.Linear(d_model, d_ff)',
      '        self.w2 = nn.Linear(d_ff, d_model)',
      '    def forward(self, x):',
      '        return self.w2(F.gelu(self.w1(x)))',
      '',
      'ffn = FFN(d_model=4, d_ff=16)',
      `x   = torch.tensor(${pyList(this.state.rows)})`,
      'with torch.no_grad():',
      '    hid = F.gelu(ffn.w1(x))',
      '    out = ffn(x)',
      'params = sum(p.numel() for p in ffn.parameters())',
      'print("hidden_shape", list(hid.shape))',
      'print("output_shape", list(out.shape))',
      'print("output", out.tolist())',
      'print("params", params)',
    ].join('\n') + '\n';
  }

  release() {
    const p = this.ffnPromise;
    this.ffnPromise = null;
    p?.then(({ ff }) => ff.dispose()).catch(() => {});
    return !!p;
  }
}
