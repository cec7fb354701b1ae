// block-lesson.js — <block-explorer>'s lesson-82 mode: the lesson's EncoderBlock(8, 2, 32) with its own PyTorch
// weights and input (web/presets/encoder-block-lesson82.json, written by tests/reference/make_lesson_presets.py),
// built as a core Block from the preset's BlockConfig, and a panel printing what the lesson prints (shapes, 840
// parameters) with the core's output next to PyTorch's. A helper of the element, not a custom element.
import { fmt, h } from '../kit/base.js';

const PRESET_URL = new URL('../presets/encoder-block-lesson82.json', import.meta.url).href;
export const LESSON_PRESET = 'encoder-block-lesson82';
const TOLERANCE = 1e-5;

let presetPromise = null;
/** The preset with its arrays as Float32Arrays, fetched once per page. */
export function loadLessonPreset() {
  presetPromise ??= fetch(PRESET_URL).then(async (r) => {
    if (!r.ok) throw new Error(`the lesson's weights (${PRESET_URL}) could not be loaded: HTTP ${r.status}`);
    const p = await r.json();
    return {
      source: p.source, config: p.config, numParameters: p.num_parameters, torchNames: p.torch_names,
      params: Object.fromEntries(Object.entries(p.params).map(([n, v]) => [n, Float32Array.from(v)])),
      x: Float32Array.from(p.x.data), shape: p.x.shape, torchOutput: Float32Array.from(p.torch_output.data),
      torchSteps: Object.fromEntries(Object.entries(p.torch_steps).map(([n, v]) => [n, Float32Array.from(v)])),
      hooksSnippet: p.hooks_snippet, lessonCode: p.lesson_code,
    };
  }).catch((err) => {
    presetPromise = null; // try again next time
    throw err;
  });
  return presetPromise;
}

/** The core Block wired as the preset's config says, with the lesson's weights loaded (every parameter, by name). */
export async function createLessonBlock(rt, preset) {
  const block = await rt.createBlock(preset.config);
  const names = block.parameters.map((p) => p.name);
  const missing = names.filter((n) => !(n in preset.params));
  const unknown = Object.keys(preset.params).filter((n) => !names.includes(n));
  if (missing.length || unknown.length) {
    await block.dispose();
    throw new Error(`the lesson's weights do not fit the core's block: missing ${missing.join(', ') || 'none'}, ` +
      `unknown ${unknown.join(', ') || 'none'}`);
  }
  await block.loadParameters(preset.params);
  return block;
}

/** Row labels of a (B, T) batch: "[b,t]", as the lesson's x[b, t]. */
export const tokenLabels = ([B, T]) => Array.from({ length: B * T }, (_, i) => `[${Math.floor(i / T)},${i % T}]`);

export const LESSON_CSS = `
.lesson pre.printout { margin: 0.3rem 0; padding: 0.35rem 0.5rem; background: var(--bs-panel); border-radius: 6px;
  white-space: pre-wrap; overflow-wrap: anywhere; }
.lesson dl { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 0.1rem 0.8rem; margin: 0.3rem 0; }
.lesson dt { color: var(--bs-muted); }
.lesson dd { margin: 0; overflow-wrap: anywhere; }
.lesson .vec { display: flex; flex-wrap: wrap; gap: 0 0.55rem; justify-content: flex-end; }
.lesson .vec span { white-space: nowrap; }
.lesson table { width: 100%; }
.lesson th:first-child { white-space: nowrap; }
@container (max-width: 460px) { .lesson dl { grid-template-columns: minmax(0, 1fr); } .lesson table { font-size: 0.85rem; } }
`;

export class LessonPanel {
  constructor() {
    this.printout = h('pre', { class: 'printout num', 'aria-label': 'The lesson’s printout, from the core' });
    this.facts = h('dl', { class: 'lesson-facts' });
    this.table = h('table', { class: 'lesson-output' });
    this.root = h('section', { class: 'lesson', 'aria-labelledby': 'lesson-title', hidden: true },
      h('h4', { id: 'lesson-title' }, 'Lesson 82’s EncoderBlock(8, 2, 32): the core on the lesson’s own weights'),
      h('p', { class: 'muted' }, 'PyTorch built the lesson’s block after torch.manual_seed(42) and drew its input ',
        'x = torch.randn(2, 5, 8); those exact weights and x are loaded into the core’s block (pre-norm, attention ',
        'without bias and without a causal mask, nn.GELU(), as the lesson’s class). The core prints what the lesson ',
        'prints:'),
      this.printout,
      this.facts,
      h('details', {}, h('summary', {}, 'Every output value: core vs PyTorch'), h('div', { class: 'scroll' }, this.table)));
  }

  set hidden(v) {
    this.root.hidden = v;
  }

  /** output: the core's pre-norm output (the lesson's wiring); parts: the core's blockParameters(config). */
  draw({ preset, output, numParameters, parts }) {
    const [B, T, d] = preset.shape;
    const rows = B * T;
    const width = output.length / rows; // the core's output is (B, T, emb_dim)
    const diffs = Array.from({ length: rows }, (_, r) => {
      let m = 0;
      for (let i = r * width; i < (r + 1) * width; i++) m = Math.max(m, Math.abs(output[i] - preset.torchOutput[i]));
      return m;
    });
    const maxDiff = Math.max(...diffs);
    this.maxDiff = maxDiff;
    this.printout.textContent = `input:  torch.Size([${B}, ${T}, ${d}])\noutput: torch.Size([${B}, ${T}, ${width}])\n` +
      `params: ${numParameters}`;
    const within = maxDiff <= TOLERANCE;
    this.facts.replaceChildren(
      h('dt', {}, 'parameters (core)'),
      h('dd', { class: 'num', 'data-lesson': 'params' },
        `${numParameters} = ${parts.attention} + ${parts.feedForward} + ${parts.norms}`),
      h('dt', {}, 'by part'),
      h('dd', {}, `attention ${parts.attention} (4 · 8², no biases), feed-forward ${parts.feedForward} ` +
        `(8·32 + 32 + 32·8 + 8), two LayerNorms ${parts.norms} (2 · 2 · 8)`),
      h('dt', {}, 'largest |core − PyTorch|'),
      h('dd', { class: 'num', 'data-lesson': 'max-diff' }, maxDiff === 0 ? '0' : maxDiff.toExponential(1)),
      h('dt', {}, 'verdict'),
      h('dd', { 'data-lesson': 'verdict' }, within
        ? `all ${output.length} output values agree with PyTorch’s to within ${TOLERANCE.toExponential(0)}`
        : `differs from PyTorch by more than ${TOLERANCE.toExponential(0)}`));
    const labels = tokenLabels(preset.shape);
    const vec = (from) => h('div', { class: 'vec num' },
      ...Array.from(output.subarray(from, from + width), (v) => h('span', {}, fmt(v))));
    this.table.replaceChildren(
      h('caption', { class: 'visually-hidden' }, 'The block output per token, from the core, and its largest difference from PyTorch’s'),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'x[b, t]'), h('th', { scope: 'col' }, 'output (core)'),
        h('th', { scope: 'col' }, '|Δ| vs PyTorch'))),
      h('tbody', {}, ...labels.map((label, r) => h('tr', { 'data-row': String(r) },
        h('th', { scope: 'row' }, label),
        h('td', { 'data-col': 'output' }, vec(r * width)),
        h('td', { class: 'num', 'data-col': 'diff' }, diffs[r] === 0 ? '0' : diffs[r].toExponential(1))))));
    return { maxDiff, within };
  }
}
