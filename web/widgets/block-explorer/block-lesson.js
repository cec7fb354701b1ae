// block-lesson.js — <block-explorer>'s lesson-82 mode: the lesson's EncoderBlock(8, 2, 32) with its own PyTorch
// weights and input (web/presets/encoder-block-lesson82.json, written by tests/reference/make_lesson_presets.py),
// built as a core Block from the preset's BlockConfig, and a panel printing what the lesson prints (shapes, 840
// parameters) with the core's output next to PyTorch's. A helper of the element, not a custom element; `t` is the
// widget's t(), so its errors are in the widget's language.
import { h } from '../kit/base.js';
import { expNum } from './block-numbers.js';
import { shippedUrl } from '../../runtime/locations.js';

const PRESET_URL = shippedUrl('../presets/encoder-block-lesson82.json', new URL('../presets/encoder-block-lesson82.json', import.meta.url)).href;
export const LESSON_PRESET = 'encoder-block-lesson82';
const TOLERANCE = 1e-5;

/** The preset's file answered with an HTTP error (said in the caller's language by loadLessonPreset). */
class PresetHttpError extends Error {
  constructor(status) {
    super(`HTTP ${status}`);
    this.status = status;
  }
}

let presetPromise = null;
/** The preset with its arrays as Float32Arrays, fetched once per page. */
export function loadLessonPreset(t) {
  presetPromise ??= fetch(PRESET_URL).then(async (r) => {
    if (!r.ok) throw new PresetHttpError(r.status);
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
  return presetPromise.catch((err) => {
    if (!(err instanceof PresetHttpError)) throw err;
    throw new Error(t('block.error.presetLoad', { url: PRESET_URL, status: String(err.status) }));
  });
}

/** The core Block wired as the preset's config says, with the lesson's weights loaded (every parameter, by name). */
export async function createLessonBlock(rt, preset, t) {
  const block = await rt.createBlock(preset.config);
  const names = block.parameters.map((p) => p.name);
  const missing = names.filter((n) => !(n in preset.params));
  const unknown = Object.keys(preset.params).filter((n) => !names.includes(n));
  if (missing.length || unknown.length) {
    await block.dispose();
    const none = t('block.error.none');
    throw new Error(t('block.error.presetFit', { missing: missing.join(', ') || none, unknown: unknown.join(', ') || none }));
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
  /** port: the element's panelPort (t, num). */
  constructor(port) {
    this.port = port;
    const { t } = port;
    // What the lesson prints is PyTorch's output: it stays as Python writes it, in every language.
    this.printout = h('pre', { class: 'printout num', 'aria-label': t('block.lesson.printoutLabel') });
    this.facts = h('dl', { class: 'lesson-facts' });
    this.table = h('table', { class: 'lesson-output' });
    this.root = h('section', { class: 'lesson', part: 'lesson', 'aria-labelledby': 'lesson-title', hidden: true },
      h('h4', { id: 'lesson-title' }, t('block.lesson.title')),
      h('p', { class: 'muted' }, t('block.lesson.intro')),
      this.printout,
      this.facts,
      h('details', {}, h('summary', {}, t('block.lesson.outputDetails')), h('div', { class: 'scroll' }, this.table)));
  }

  set hidden(v) {
    this.root.hidden = v;
  }

  /** output: the core's pre-norm output (the lesson's wiring); parts: the core's blockParameters(config). */
  draw({ preset, output, numParameters, parts }) {
    const { t, num } = this.port;
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
    const tolerance = expNum(num, TOLERANCE, 0);
    const exp = (v) => (v === 0 ? '0' : expNum(num, v, 1));
    this.facts.replaceChildren(
      h('dt', {}, t('block.lesson.params')),
      h('dd', { class: 'num', 'data-lesson': 'params' },
        `${num(numParameters)} = ${num(parts.attention)} + ${num(parts.feedForward)} + ${num(parts.norms)}`),
      h('dt', {}, t('block.lesson.byPart')),
      h('dd', {}, t('block.lesson.parts', { attention: parts.attention, feedForward: parts.feedForward, norms: parts.norms })),
      h('dt', {}, t('block.lesson.maxDiff')),
      h('dd', { class: 'num', 'data-lesson': 'max-diff' }, exp(maxDiff)),
      h('dt', {}, t('block.lesson.verdict')),
      h('dd', { 'data-lesson': 'verdict' }, within
        ? t('block.lesson.agree', { count: output.length, tolerance })
        : t('block.lesson.differs', { tolerance })));
    const labels = tokenLabels(preset.shape);
    const vec = (from) => h('div', { class: 'vec num' },
      ...Array.from(output.subarray(from, from + width), (v) => h('span', {}, num(v, 4))));
    this.table.replaceChildren(
      h('caption', { class: 'visually-hidden' }, t('block.lesson.tableCaption')),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'x[b, t]'), h('th', { scope: 'col' }, t('block.lesson.colOutput')),
        h('th', { scope: 'col' }, t('block.lesson.colDiff')))),
      h('tbody', {}, ...labels.map((label, r) => h('tr', { 'data-row': String(r) },
        h('th', { scope: 'row' }, label),
        h('td', { 'data-col': 'output' }, vec(r * width)),
        h('td', { class: 'num', 'data-col': 'diff' }, exp(diffs[r]))))));
    return { maxDiff, within };
  }
}
