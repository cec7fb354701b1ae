// layernorm-book.js — <layernorm-explorer preset="book-4.2">: book §4.2 walked through as the book's figure draws it —
// centre (x − μ), variance, divide, scale and shift — on the book's toy layer output (Linear(5, 6) + ReLU after
// torch.manual_seed(123), web/presets/layernorm-book42.json from tests/reference/make_lesson_presets.py), with an
// unbiased-variance toggle that reproduces the book's first printout and per-feature γ and β vectors (the
// homework's trainable scale and shift). Every value is the core's; PyTorch's printout stands next to it, quoted as
// PyTorch prints it (locale-free), while the core's numbers are in the widget's language.
// A helper of the element, not a custom element.
import { h, parseNumbers } from '../kit/base.js';
import { listText, vectorText } from './layernorm-rows.js';
import { fieldError } from '../kit/field-error.js';
import { shippedUrl } from '../../runtime/locations.js';

const PRESET_URL = shippedUrl('../presets/layernorm-book42.json', new URL('../presets/layernorm-book42.json', import.meta.url)).href;
export const BOOK_PRESET = 'book-4.2';
// The book's toy output, exact float32 values (the preset file holds the same numbers; a browser test compares).
export const BOOK_TOY = [
  [0.2259521335363388, 0.346953809261322, 0.0, 0.22160431742668152, 0.0, 0.0],
  [0.2132834792137146, 0.23942121863365173, 0.0, 0.5198363661766052, 0.3297472298145294, 0.0],
];
const STEPS = ['centre', 'variance', 'divide', 'scale'];
// The book's first normalization divides by √var with no ε; the core's LayerNorm needs ε > 0, so the walk asks it
// for one far below float32's resolution of these values.
const NO_EPS = 1e-12;

export const BOOK_CSS = `
.book-walk ol.steps { display: flex; flex-wrap: wrap; gap: 0.3rem; list-style: none; padding: 0; margin: 0.3rem 0; }
.book-walk ol.steps button[aria-current="step"] { background: var(--bs-accent); color: var(--bs-bg); }
.book-walk pre { background: var(--bs-panel); padding: 0.35rem 0.5rem; border-radius: 6px; white-space: pre-wrap; }
.book-walk input.vec { width: 100%; max-width: 26rem; }
`;

let presetPromise = null;
const loadPreset = () => {
  presetPromise ??= fetch(PRESET_URL).then((r) => {
    if (!r.ok) throw new Error(`${PRESET_URL}: HTTP ${r.status}`); // the widget says what could not be loaded
    return r.json();
  }).catch((err) => { presetPromise = null; throw err; });
  return presetPromise;
};

/** PyTorch's printout of a matrix's rows, as it prints them: [[0.1324], [0.2170]] (locale-free). */
const printed = (rows) => `[${rows.map((r) => `[${r.map((v) => v.toFixed(4)).join(', ')}]`).join(', ')}]`;

export class BookWalk {
  /** host: the element's panelPort (t, num, numAttr, runtime, report, emit). */
  constructor(host) {
    this.host = host;
    const t = (key, params) => host.t(key, params);
    this.step = 'centre';
    this.nav = h('ol', { class: 'steps', 'aria-label': t('layernorm.book.steps') }, ...STEPS.map((s) => h('li', {},
      h('button', { type: 'button', 'data-step': s, onclick: () => this.go(s) }, t(`layernorm.book.${s}`)))));
    this.unbiased = h('input', { type: 'checkbox', id: 'book-unbiased' });
    this.unbiased.addEventListener('change', () => this.draw());
    this.gammaVec = h('input', { type: 'text', id: 'book-gamma', class: 'vec', value: '1, 1, 1, 1, 1, 1', spellcheck: 'false' });
    this.betaVec = h('input', { type: 'text', id: 'book-beta', class: 'vec', value: '0, 0, 0, 0, 0, 0', spellcheck: 'false' });
    for (const el of [this.gammaVec, this.betaVec]) el.addEventListener('input', () => this.update());
    this.body = h('div', { class: 'walk-body', 'aria-live': 'polite' });
    const unbiasedLabel = h('label', { class: 'switch' }, this.unbiased, ` ${t('layernorm.book.unbiased')}`);
    const vectors = h('div', { class: 'gb', hidden: true },
      h('label', { for: 'book-gamma' }, t('layernorm.book.gamma')), this.gammaVec,
      h('label', { for: 'book-beta' }, t('layernorm.book.beta')), this.betaVec);
    /** What the learner operates (the element's control group "book"). */
    this.boundControls = [this.nav, unbiasedLabel, vectors];
    this.root = h('section', { class: 'book-walk', part: 'book', 'aria-labelledby': 'book-walk-title', hidden: true },
      h('h4', { id: 'book-walk-title' }, t('layernorm.book.title')),
      h('p', { class: 'muted' }, t('layernorm.book.intro')),
      this.nav, unbiasedLabel, this.body, vectors);
  }

  set hidden(v) {
    this.root.hidden = v;
  }

  go(step) {
    this.step = step;
    this.draw();
  }

  readVec(input, d, name) {
    const v = parseNumbers(input.value);
    if (v.length !== d) throw new Error(this.host.t('layernorm.book.vectorLength', { name, d, count: v.length }));
    return v;
  }

  async update() {
    const preset = await loadPreset();
    const rows = preset.out;
    const d = rows[0].length;
    let gamma;
    let beta;
    try {
      gamma = this.readVec(this.gammaVec, d, 'γ');
      beta = this.readVec(this.betaVec, d, 'β');
      fieldError(this.gammaVec, null);
      fieldError(this.betaVec, null);
    } catch (err) {
      const bad = err.message.startsWith('γ') ? this.gammaVec : this.betaVec;
      for (const f of [this.gammaVec, this.betaVec]) {
        fieldError(f, f === bad ? this.host.t('layernorm.book.invalid', { error: err.message }) : null, { after: f.closest('label') ?? f });
      }
      return;
    }
    const rt = await this.host.runtime();
    const x = Float32Array.from(rows.flat());
    const eps = this.host.numAttr('eps');
    const ones = new Float32Array(d).fill(1);
    const zeros = new Float32Array(d);
    const [ln, affine, unbiased, bookNorm] = await Promise.all([
      rt.layerNorm(x, { gamma: ones, beta: zeros, eps }),
      rt.layerNorm(x, { gamma, beta, eps }),
      rt.layerNormMistake('unbiased-variance', x, { gamma: ones, beta: zeros, eps }),
      rt.layerNormMistake('unbiased-variance', x, { gamma: ones, beta: zeros, eps: NO_EPS }),
    ]);
    const T = rows.length;
    const split = (flat) => Array.from({ length: T }, (_, t) => Array.from(flat.subarray(t * d, (t + 1) * d)));
    this.state = { preset, rows, d, T, eps, gamma, beta, mean: Array.from(ln.mean), variance: Array.from(ln.variance),
      normalized: split(ln.normalized), output: split(affine.output), unbiasedNorm: split(unbiased), bookNorm: split(bookNorm) };
    this.draw();
    this.host.emit('change', { section: 'book', step: this.step, unbiased: this.unbiased.checked, mean: this.state.mean,
      variance: this.state.variance, varianceUnbiased: this.unbiasedVariance(), normalized: this.state.normalized,
      bookNormalized: this.state.bookNorm, gamma, beta, output: this.state.output });
  }

  /** Bessel's correction of the core's biased variance, n/(n − 1): what torch.var prints by default. */
  unbiasedVariance() {
    const { variance, d } = this.state;
    return variance.map((v) => (v * d) / (d - 1));
  }

  draw() {
    this.nav.querySelectorAll('button').forEach((b) => (b.dataset.step === this.step ? b.setAttribute('aria-current', 'step') : b.removeAttribute('aria-current')));
    this.root.querySelector('.gb').hidden = this.step !== 'scale';
    if (!this.state) return;
    const host = this.host;
    const t = (key, params) => host.t(key, params);
    const row = (v) => vectorText(host, v);
    const s = this.state;
    const unb = this.unbiased.checked;
    const p = s.preset.printed;
    const lines = [];
    if (this.step === 'centre') {
      lines.push(t('layernorm.book.meanLine', { mean: row(s.mean), printed: printed(p.mean.map((v) => [v])) }));
      s.rows.forEach((r, i) => lines.push(t('layernorm.book.centred', { n: i + 1, row: row(r.map((v) => v - s.mean[i])) })));
    } else if (this.step === 'variance') {
      const v = unb ? this.unbiasedVariance() : s.variance;
      lines.push(t(unb ? 'layernorm.book.varianceUnbiased' : 'layernorm.book.varianceBiased', { row: row(v) }));
      lines.push(unb ? t('layernorm.book.varianceIsPrinted', { printed: printed(p.var.map((x) => [x])) })
        : t('layernorm.book.varianceDiffers', { d: s.d, printed: listText(host, p.var), n1: s.d - 1 }));
    } else if (this.step === 'divide') {
      const norm = unb ? s.bookNorm : s.normalized;
      lines.push(unb ? t('layernorm.book.divideUnbiased') : t('layernorm.book.divideBiased', { eps: epsPlain(host, s.eps) }));
      norm.forEach((r, i) => lines.push(t('layernorm.book.tokenRow', { n: i + 1, row: row(r) })));
      if (unb) lines.push(t('layernorm.book.printed', { printed: printed(p.out_norm).slice(1, -1) }));
    } else {
      lines.push(t('layernorm.book.affine', { gamma: row(s.gamma), beta: row(s.beta) }));
      s.output.forEach((r, i) => lines.push(t('layernorm.book.outputRow', { n: i + 1, row: row(r) })));
    }
    this.body.replaceChildren(h('h5', {}, t(`layernorm.book.${this.step}`)),
      h('pre', { class: 'num', 'data-book-step': this.step }, lines.join('\n')));
  }
}

/** ε as JavaScript writes it (1e-5 -> 0.00001), in the widget's language. */
function epsPlain(host, eps) {
  const text = String(eps);
  if (/e/i.test(text)) return text.replace('-', '−');
  return host.num(eps, (text.split('.')[1] ?? '').length);
}

/** The note under the book example of the main view (the book printed the unbiased variance first). */
export function bookNote(el, variance) {
  return el.t('layernorm.bookNote', { book1: el.num(0.0231, 4), book2: el.num(0.0398, 4),
    core1: el.num(variance[0], 4), core2: el.num(variance[1], 4) });
}
