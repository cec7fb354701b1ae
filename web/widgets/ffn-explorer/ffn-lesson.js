// ffn-lesson.js — <ffn-explorer preset="ffn-lesson82">: lesson 82 §29 "FFN sublayer in PyTorch", the lesson's FFN(4, 16)
// with the weights PyTorch drew after torch.manual_seed(0) (web/presets/ffn-lesson82.json, written by
// tests/reference/make_lesson_presets.py) loaded into the core's FeedForward, run on the lesson's x (or tokens the
// learner types), printing what the lesson prints (hidden shape, output shape, output, 148 parameters) next to
// PyTorch's — plus the check of a learner's own FFN on the same weights and the state as PyTorch.
// A helper of the element, not a custom element.
import { fmt, h, parseRows } from '../kit/base.js';
import { CheckPanel } from '../kit/check-panel.js';
import { pyList } from '../kit/copy-pytorch.js';
import { sci } from './ffn-text.js';
import { fieldError } from '../kit/field-error.js';
import { shippedUrl } from '../../runtime/locations.js';

const PRESET_URL = shippedUrl('../presets/ffn-lesson82.json', new URL('../presets/ffn-lesson82.json', import.meta.url)).href;
export const FFN_PRESET = 'ffn-lesson82';
const MAX_TOKENS = 8;

let presetPromise = null;
function loadPreset() {
  presetPromise ??= fetch(PRESET_URL).then(async (r) => {
    if (!r.ok) throw Object.assign(new Error(`HTTP ${r.status}`), { presetStatus: r.status });
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
  /** x: the text of the x field to start from (the lesson's x by default). */
  constructor(host, x = '1, 0, -1, 0.5') {
    this.host = host;
    const t = (key, params) => host.t(key, params);
    this.xInput = h('input', { type: 'text', id: 'lesson-x', class: 'x-rows', spellcheck: 'false', autocomplete: 'off',
      value: x, 'aria-describedby': 'lesson-x-help' });
    this.xInput.addEventListener('input', () => this.update());
    this.printout = h('pre', { class: 'printout num', 'data-predict': 'params' });
    this.compare = h('p', { class: 'muted lesson-compare' });
    this.check = new CheckPanel(host, { target: () => this.target(),
      what: () => t('ffn.lesson.checkWhat', { x: this.rows ? `torch.tensor(${JSON.stringify(this.rows)})` : t('ffn.lesson.tokensAbove') }) });
    // The author's control group lesson-x (layout.js): the x field and its help.
    this.xControls = [
      h('div', { class: 'row' }, h('label', { for: 'lesson-x' }, 'x'), this.xInput),
      h('p', { class: 'muted', id: 'lesson-x-help' }, t('ffn.lesson.xHelp')),
    ];
    this.root = h('section', { class: 'ffn-lesson', part: 'lesson', 'aria-labelledby': 'ffn-lesson-title', hidden: true },
      h('h4', { id: 'ffn-lesson-title' }, t('ffn.lesson.title')),
      h('p', { class: 'muted' }, t('ffn.lesson.intro')),
      ...this.xControls,
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
    const t = (key, params) => this.host.t(key, params);
    const rows = parseRows(this.xInput.value, t('ffn.lesson.rowName'));
    if (rows.length > MAX_TOKENS) throw new Error(t('ffn.lesson.tooMany', { max: MAX_TOKENS, count: rows.length }));
    rows.forEach((r, i) => {
      if (r.length !== 4) throw new Error(t('ffn.lesson.badToken', { token: i + 1, count: r.length, want: 4 }));
    });
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
      fieldError(this.xInput, null);
    } catch (err) {
      fieldError(this.xInput, this.host.t('ffn.lesson.badX', { error: err.message }), { after: this.xInput.parentNode });
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
      if (seq !== this.seq) return;
      const error = err.presetStatus ? this.host.t('ffn.lesson.presetMissing', { url: PRESET_URL, status: String(err.presetStatus) })
        : err.message;
      this.host.report(this.host.t('ffn.lesson.error', { error }), { error: true });
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
    // The printout and PyTorch's quoted print below are code: their numbers stay as PyTorch prints them in every
    // language (fmt); only the widget's own summary of several rows is words.
    const list = (values) => `[${values.map((v) => fmt(v)).join(', ')}]`;
    this.printout.textContent = `hidden shape: torch.Size([${T}, ${preset.config.hidden_dim}])\n` +
      `output shape: torch.Size([${T}, ${preset.config.emb_dim}])\n` +
      `output:       ${T === 1 ? list(out) : this.host.t('ffn.lesson.printRows', { count: T, first: list(out.slice(0, 4)) })}\n` +
      `params:       ${numParameters}`;
    this.compare.textContent = diff == null ? this.host.t('ffn.lesson.ownX')
      : this.host.t('ffn.lesson.compare', { printed: '[−0.3974, 0.2011, 0.0934, −0.1582]', diff: sci(this.host, diff, 1) });
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
