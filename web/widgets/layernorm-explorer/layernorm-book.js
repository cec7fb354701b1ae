// layernorm-book.js — <layernorm-explorer preset="book-4.2">: book §4.2 walked through as the book's figure draws it —
// centre (x − μ), variance, divide, scale and shift — on the book's toy layer output (Linear(5, 6) + ReLU after
// torch.manual_seed(123), web/presets/layernorm-book42.json from tests/reference/make_lesson_presets.py), with an
// unbiased-variance toggle that reproduces the book's first printout and per-feature γ and β vectors (the
// homework's trainable scale and shift). Every value is the core's; PyTorch's printout stands next to it.
// A helper of the element, not a custom element.
import { fmt, h, parseNumbers } from '../kit/base.js';

const PRESET_URL = new URL('../presets/layernorm-book42.json', import.meta.url).href;
export const BOOK_PRESET = 'book-4.2';
// The book's toy output, exact float32 values (the preset file holds the same numbers; a browser test compares).
export const BOOK_TOY = [
  [0.2259521335363388, 0.346953809261322, 0.0, 0.22160431742668152, 0.0, 0.0],
  [0.2132834792137146, 0.23942121863365173, 0.0, 0.5198363661766052, 0.3297472298145294, 0.0],
];
const STEPS = ['centre', 'variance', 'divide', 'scale'];
const TITLES = { centre: '1. Centre: x − μ', variance: '2. Variance σ²', divide: '3. Divide: x̂ = (x − μ) / √(σ² + ε)',
  scale: '4. Scale and shift: y = γ ⊙ x̂ + β' };
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
    if (!r.ok) throw new Error(`the book's numbers (${PRESET_URL}) could not be loaded: HTTP ${r.status}`);
    return r.json();
  }).catch((err) => { presetPromise = null; throw err; });
  return presetPromise;
};

const row = (v) => `[${v.map((e) => fmt(e)).join(', ')}]`;

export class BookWalk {
  constructor(host) {
    this.host = host;
    this.step = 'centre';
    this.nav = h('ol', { class: 'steps', 'aria-label': 'The steps of LayerNorm' }, ...STEPS.map((s) => h('li', {},
      h('button', { type: 'button', 'data-step': s, onclick: () => this.go(s) }, TITLES[s]))));
    this.unbiased = h('input', { type: 'checkbox', id: 'book-unbiased' });
    this.unbiased.addEventListener('change', () => this.draw());
    this.gammaVec = h('input', { type: 'text', id: 'book-gamma', class: 'vec', value: '1, 1, 1, 1, 1, 1', spellcheck: 'false' });
    this.betaVec = h('input', { type: 'text', id: 'book-beta', class: 'vec', value: '0, 0, 0, 0, 0, 0', spellcheck: 'false' });
    for (const el of [this.gammaVec, this.betaVec]) el.addEventListener('input', () => this.update());
    this.body = h('div', { class: 'walk-body', 'aria-live': 'polite' });
    this.root = h('section', { class: 'book-walk', 'aria-labelledby': 'book-walk-title', hidden: true },
      h('h4', { id: 'book-walk-title' }, 'Book §4.2, step by step'),
      h('p', { class: 'muted' }, 'The book’s toy layer output — PyTorch’s nn.Linear(5, 6) + ReLU after ',
        'torch.manual_seed(123), its exact numbers (torch.manual_seed, not a Blockscope seed) — normalized the ',
        'way the book’s figure draws it. Every value below is the core’s; PyTorch’s printout is quoted next to it.'),
      this.nav,
      h('label', { class: 'switch' }, this.unbiased, ' unbiased variance, ÷ (n − 1), as the book’s first printout (torch.var’s default)'),
      this.body,
      h('div', { class: 'gb', hidden: true },
        h('label', { for: 'book-gamma' }, 'γ (one per feature)'), this.gammaVec,
        h('label', { for: 'book-beta' }, 'β (one per feature)'), this.betaVec));
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
    if (v.length !== d) throw new Error(`${name} needs ${d} values (one per feature), got ${v.length}`);
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
      this.gammaVec.removeAttribute('aria-invalid');
      this.betaVec.removeAttribute('aria-invalid');
    } catch (err) {
      (err.message.startsWith('γ') ? this.gammaVec : this.betaVec).setAttribute('aria-invalid', 'true');
      this.host.report(`${err.message} — showing the last valid γ and β.`, { error: true });
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
    const s = this.state;
    const unb = this.unbiased.checked;
    const p = s.preset.printed;
    const lines = [];
    if (this.step === 'centre') {
      lines.push(`μ per token (core): ${row(s.mean)}   — the book prints Mean: [[${p.mean.map((v) => v.toFixed(4)).join('], [')}]]`);
      s.rows.forEach((r, t) => lines.push(`token ${t + 1}: x − μ = ${row(r.map((v) => v - s.mean[t]))}`));
    } else if (this.step === 'variance') {
      const v = unb ? this.unbiasedVariance() : s.variance;
      lines.push(`σ² per token (core, ${unb ? '÷ (n − 1)' : '÷ n, as LayerNorm'}): ${row(v)}`);
      lines.push(unb ? `= the book’s first printout, Variance: [[${p.var.map((v) => v.toFixed(4)).join('], [')}]] (torch.var’s default, unbiased)`
        : `LayerNorm divides by n = ${s.d}; the book’s first printout (${p.var.map((v) => v.toFixed(4)).join(', ')}) divided by n − 1 = ${s.d - 1}.`);
    } else if (this.step === 'divide') {
      const norm = unb ? s.bookNorm : s.normalized;
      lines.push(unb ? 'x̂ = (x − μ) / √σ², σ² unbiased and no ε, as the book’s first normalization (core):'
        : `x̂ = (x − μ) / √(σ² + ε), σ² biased, ε = ${s.eps} (core):`);
      norm.forEach((r, t) => lines.push(`token ${t + 1}: ${row(r)}`));
      if (unb) lines.push(`The book prints: ${p.out_norm.map((r) => `[${r.map((v) => v.toFixed(4)).join(', ')}]`).join(', ')}`);
    } else {
      lines.push(`γ = ${row(s.gamma)}, β = ${row(s.beta)}: LayerNorm(6) learns one of each per feature.`);
      s.output.forEach((r, t) => lines.push(`token ${t + 1}: y = ${row(r)}`));
    }
    this.body.replaceChildren(h('h5', {}, TITLES[this.step]), h('pre', { class: 'num', 'data-book-step': this.step }, lines.join('\n')));
  }
}

/** The note under the book example of the main view (the book printed the unbiased variance first). */
export function bookNote(variance) {
  return 'Book §4.2: these tokens are PyTorch’s own output after torch.manual_seed(123), ' +
    'copied exactly (the core’s random generator is not PyTorch’s, so a Blockscope seed 123 gives other numbers). ' +
    'The book first prints the variance with PyTorch’s default, the ' +
    'unbiased estimate (÷ (n − 1)): 0.0231 and 0.0398. LayerNorm uses the biased variance (÷ n), which is what ' +
    `the core computes here: ${fmt(variance[0])} and ${fmt(variance[1])}.`;
}
