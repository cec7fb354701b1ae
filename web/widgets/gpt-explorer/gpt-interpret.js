// gpt-interpret.js — <gpt-explorer>'s "which layer, head and token?" section: the logit lens (each layer's residual
// stream read through the final LayerNorm and the head: when the prediction appears), head ablation (checkboxes per
// block and head; the next-token table above then shows the ablated model, next to what it predicted before), and
// attribution (the prompt's tokens shaded by how much each drives the top prediction). The numbers are the core's
// (GPT.logitLens, setHeadAblation, attribute, topCandidates); this file only lays them out.
import { fmt, h } from '../kit/base.js';
import { renderPieces } from '../kit/tokens.js';
import { percent } from './gpt-candidates.js';

export const INTERPRET_CSS = `
.interpret table.lens { width: 100%; }
.interpret table.lens th, .interpret table.lens td { padding: 0.1rem 0.35rem; text-align: left; white-space: nowrap; }
.interpret td.lens-bar { width: 30%; min-width: 4rem; }
.interpret .lens-track { position: relative; height: 0.7rem; background: color-mix(in srgb, var(--bs-panel) 60%, transparent); border-radius: 2px; }
.interpret .lens-track .fill { position: absolute; left: 0; top: 0; bottom: 0; background: var(--bs-c1); border-radius: 2px; min-width: 1px; }
.interpret .heads { display: grid; gap: 0.2rem 0.6rem; grid-template-columns: auto 1fr; align-items: center; margin: 0.3rem 0; }
.interpret .heads .row { display: flex; flex-wrap: wrap; gap: 0.1rem 0.5rem; }
.interpret .heads label { white-space: nowrap; }
.interpret ol.attr { list-style: none; display: flex; flex-wrap: wrap; gap: 0.15rem; padding: 0; margin: 0.3rem 0; }
.interpret ol.attr li { padding: 0.05rem 0.25rem; border-radius: 3px; border: 1px solid var(--bs-border); font-family: ui-monospace, Menlo, Consolas, monospace; }
.interpret .scroll { overflow-x: auto; }
@container (max-width: 430px) { .interpret table.lens .alt { display: none; } }
`;

const LENS_ALTERNATIVES = 3; // top tokens shown per layer besides the tracked one

export class InterpretPanel {
  #port;
  constructor(port) {
    this.#port = port;
    this.headsBox = h('div', { class: 'heads', role: 'group', 'aria-label': 'attention heads to ablate' });
    this.modeSelect = h('select', { id: 'ablate-mode', onchange: () => port.set('ablate-mode', this.modeSelect.value) },
      h('option', { value: 'zero' }, 'zero the head\u2019s output'),
      h('option', { value: 'mean' }, 'mean over the positions so far'));
    this.clearButton = h('button', { type: 'button', class: 'clear-ablation', onclick: () => port.set('ablate', '') }, 'Restore every head');
    this.ablationNote = h('p', { class: 'ablation-note', 'aria-live': 'polite' });
    this.lensBox = h('div', { class: 'scroll' });
    this.methodSelect = h('select', { id: 'attribution', onchange: () => port.set('attribution', this.methodSelect.value) },
      h('option', { value: 'grad-x-input' }, 'gradient \u00d7 input'),
      h('option', { value: 'integrated-gradients' }, 'integrated gradients (32 steps)'));
    this.attrList = h('ol', { class: 'attr', 'aria-label': 'prompt tokens shaded by attribution' });
    this.attrNote = h('p', { class: 'muted attr-note' });
    this.section = h('section', { class: 'interpret' },
      h('h4', {}, 'Which layer, head and token?'),
      h('h5', {}, 'Logit lens: when does the prediction appear?'),
      h('p', { class: 'muted' }, 'Each layer\u2019s residual stream at the last position, read through the model\u2019s final ' +
        'LayerNorm and output head as if the model stopped there. Layer 0 is the embeddings; the last row is the model\u2019s own prediction.'),
      this.lensBox,
      h('h5', {}, 'Head ablation: which head matters?'),
      h('p', { class: 'muted' }, 'Switch heads off and the next-token table above shows what the model predicts without them.'),
      this.headsBox, h('label', { for: 'ablate-mode' }, 'Ablation: ', this.modeSelect), ' ', this.clearButton, this.ablationNote,
      h('h5', {}, 'Attribution: which prompt token drives the prediction?'),
      h('label', { for: 'attribution' }, 'Method: ', this.methodSelect),
      this.attrList, this.attrNote);
    this.shape = null;
  }

  /** The heads the `ablate` attribute names, as "block.head" strings (0-based), and the mode. */
  ablation() {
    const heads = this.#port.attr('ablate').split(',').map((s) => s.trim()).filter(Boolean);
    return { heads, mode: this.#port.attr('ablate-mode') === 'mean' ? 'mean' : 'zero' };
  }

  /** One checkbox per head, block by block (rebuilt when the model's shape changes). */
  setShape(layers, heads) {
    if (this.shape?.layers === layers && this.shape?.heads === heads) return;
    this.shape = { layers, heads };
    this.boxes = new Map();
    const rows = [];
    for (let b = 0; b < layers; b++) {
      const boxes = [];
      for (let k = 0; k < heads; k++) {
        const id = `ablate-${b}-${k}`;
        const box = h('input', { type: 'checkbox', id, 'data-head': `${b}.${k}`, onchange: () => this.toggle() });
        this.boxes.set(`${b}.${k}`, box);
        boxes.push(h('label', { for: id, title: `block ${b + 1}, head ${k + 1}` }, box, ` h${k + 1}`));
      }
      rows.push(h('span', {}, `block ${b + 1}`), h('span', { class: 'row' }, ...boxes));
    }
    this.headsBox.replaceChildren(...rows);
  }

  toggle() {
    const on = [...this.boxes].filter(([, box]) => box.checked).map(([name]) => name);
    this.#port.set('ablate', on.join(','));
  }

  /** Applies the attributes' ablation to `model` before its forward pass; returns the heads (validated by the core). */
  async apply(model) {
    const { heads, mode } = this.ablation();
    await model.setHeadAblation(heads, { mode });
    return { heads, mode };
  }

  /**
   * The lens and the attribution of the forward pass just run: {lens: [{layer, top, probability}], attribution,
   * target}. `baseline` is the unablated model's top candidate when heads are ablated (for the note).
   */
  async compute(model, ids, target, tokenizer) {
    const rt = await this.#port.runtime();
    const T = ids.length;
    const { logits, shape, probabilities } = await model.logitLens(ids, { target });
    const [L1, , V] = shape;
    const lens = [];
    for (let l = 0; l < L1; l++) {
      const row = logits.slice((l * T + T - 1) * V, (l * T + T) * V);
      const top = await rt.topCandidates(row, { k: LENS_ALTERNATIVES });
      lens.push({ layer: l, top, probability: probabilities[l * T + T - 1] });
    }
    const pieces = await tokenizer.tokenPieces(lens.flatMap((r) => r.top.map((c) => c.id)).concat([target]));
    let attribution = null;
    let attributionError = null;
    if (model.weightFormat === 'f32') {
      const method = this.#port.attr('attribution') === 'integrated-gradients' ? 'integrated-gradients' : 'grad-x-input';
      attribution = { method, values: Array.from(await model.attribute(ids, target, { method, steps: 32 })) };
    } else attributionError = 'Attribution needs gradients, which int8 weights do not have.';
    return { lens, pieces, target, attribution, attributionError };
  }

  render(result, { promptPieces, candidates, baseline, ablation }) {
    const { lens, pieces, target, attribution } = result;
    const targetPieces = pieces.at(-1);
    let p = 0;
    const label = (ps) => h('span', { class: 'tok' }, ...renderPieces(ps, { visible: true }));
    this.lensBox.replaceChildren(h('table', { class: 'lens' },
      h('caption', { class: 'visually-hidden' }, 'Logit lens: the top tokens and the tracked token\u2019s probability at each layer'),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'layer'), h('th', { scope: 'col' }, 'top token'),
        h('th', { scope: 'col', class: 'alt' }, 'then'), h('th', { scope: 'col' }, ['p(', label(targetPieces), ')']),
        h('th', { scope: 'col', class: 'lens-bar' }, h('span', { class: 'visually-hidden' }, 'bar')))),
      h('tbody', {}, ...lens.map((r) => {
        const cells = r.top.map((c) => ({ c, ps: pieces[p++] }));
        return h('tr', { 'data-layer': String(r.layer), 'data-probability': String(r.probability), 'data-top': String(r.top[0].id) },
          h('th', { scope: 'row' }, r.layer === 0 ? 'embeddings' : `block ${r.layer}`),
          h('td', {}, label(cells[0].ps), ` ${percent(cells[0].c.probability)} %`),
          h('td', { class: 'alt muted' }, ...cells.slice(1).flatMap(({ c, ps }, i) => [i ? ', ' : '', label(ps), ` ${percent(c.probability)} %`])),
          h('td', { class: 'num' }, `${percent(r.probability)} %`),
          h('td', { class: 'lens-bar' }, h('div', { class: 'lens-track' }, h('div', { class: 'fill', style: `width: ${(100 * r.probability).toFixed(2)}%` }))));
      }))));
    for (const [name, box] of this.boxes ?? []) box.checked = ablation.heads.includes(name);
    this.modeSelect.value = ablation.mode;
    this.clearButton.disabled = ablation.heads.length === 0;
    const top = candidates[0];
    this.ablationNote.textContent = !ablation.heads.length ? 'Every head is on.'
      : `${ablation.heads.length} head${ablation.heads.length === 1 ? '' : 's'} ${ablation.mode === 'zero' ? 'zeroed' : 'mean-replaced'}: ` +
        `the top prediction is now \u201c${top.token}\u201d (${percent(top.probability)} %)` +
        (baseline ? `; with every head on it was \u201c${baseline.token}\u201d (${percent(baseline.probability)} %).` : '.');
    this.methodSelect.value = attribution?.method ?? this.methodSelect.value;
    if (!attribution) {
      this.attrList.replaceChildren();
      this.attrNote.textContent = result.attributionError;
      return;
    }
    const scale = Math.max(1e-12, ...attribution.values.map(Math.abs));
    this.attrList.replaceChildren(...attribution.values.map((v, i) => {
      const a = Math.abs(v) / scale;
      const colour = v >= 0 ? 'var(--bs-c1)' : 'var(--bs-c2)';
      return h('li', { 'data-position': String(i), 'data-attribution': String(v), title: `position ${i}: ${fmt(v, 4)}`,
        style: `background: color-mix(in srgb, ${colour} ${Math.round(70 * a)}%, transparent)` },
        ...renderPieces(promptPieces[i] ?? [], { visible: true }));
    }));
    this.attrNote.textContent = `Shaded by ${attribution.method === 'grad-x-input' ? 'gradient \u00d7 input' : 'integrated gradients'} ` +
      `of the logit of \u201c${top.token}\u201d (id ${target}) at the last position: blue pushes it up, orange down; ` +
      `strongest: position ${attribution.values.indexOf(attribution.values.reduce((m, v) => (Math.abs(v) > Math.abs(m) ? v : m), 0))}.`;
  }
}
