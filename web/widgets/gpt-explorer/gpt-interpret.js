// gpt-interpret.js — <gpt-explorer>'s "which layer, head and token?" section: the logit lens (each layer's residual
// stream read through the final LayerNorm and the head: when the prediction appears), head ablation (checkboxes per
// block and head; the next-token table above then shows the ablated model, next to what it predicted before), and
// attribution (the prompt's tokens shaded by how much each drives the top prediction). The numbers are the core's
// (GPT.logitLens, setHeadAblation, attribute, topCandidates); this file only lays them out.
import { h } from '../kit/base.js';
import { renderPieces } from '../kit/tokens.js';
import { percent } from './gpt-candidates.js';

export const INTERPRET_CSS = `
.interpret table.lens { width: 100%; }
.interpret table.lens th, .interpret table.lens td { padding: 0.1rem 0.35rem; text-align: start; white-space: nowrap; }
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
const METHOD_NAMES = { 'grad-x-input': 'gpt.attr.gradXInput', 'integrated-gradients': 'gpt.attr.integrated' };

export class InterpretPanel {
  #port;
  constructor(port) {
    this.#port = port;
    const { t } = port;
    this.headsBox = h('div', { class: 'heads', role: 'group', 'aria-label': t('gpt.ablate.groupLabel') });
    this.modeSelect = h('select', { id: 'ablate-mode', onchange: () => port.set('ablate-mode', this.modeSelect.value) },
      h('option', { value: 'zero' }, t('gpt.ablate.zero')),
      h('option', { value: 'mean' }, t('gpt.ablate.mean')));
    this.clearButton = h('button', { type: 'button', class: 'clear-ablation', onclick: () => port.set('ablate', '') }, t('gpt.ablate.restore'));
    this.ablationNote = h('p', { class: 'ablation-note', 'aria-live': 'polite' });
    this.lensBox = h('div', { class: 'scroll' });
    this.methodSelect = h('select', { id: 'attribution', onchange: () => port.set('attribution', this.methodSelect.value) },
      h('option', { value: 'grad-x-input' }, t('gpt.attr.gradXInput')),
      h('option', { value: 'integrated-gradients' }, t('gpt.attr.integratedSteps', { steps: 32 })));
    this.attrList = h('ol', { class: 'attr', 'aria-label': t('gpt.attr.listLabel') });
    this.attrNote = h('p', { class: 'muted attr-note' });
    const modeLabel = h('label', { for: 'ablate-mode' }, t('gpt.ablate.mode'), ' ', this.modeSelect);
    const methodLabel = h('label', { for: 'attribution' }, t('gpt.attr.method'), ' ', this.methodSelect);
    port.boundControls.addGroup('ablation', this.headsBox, modeLabel, this.clearButton);
    port.boundControls.addGroup('attribution', methodLabel);
    this.section = h('section', { class: 'interpret', part: 'interpret' },
      h('h4', {}, t('gpt.interpret.heading')),
      h('h5', {}, t('gpt.lens.heading')),
      h('p', { class: 'muted' }, t('gpt.lens.intro')),
      this.lensBox,
      h('h5', {}, t('gpt.ablate.heading')),
      h('p', { class: 'muted' }, t('gpt.ablate.intro')),
      this.headsBox, modeLabel, ' ', this.clearButton, this.ablationNote,
      h('h5', {}, t('gpt.attr.heading')),
      methodLabel,
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
    const { t } = this.#port;
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
        boxes.push(h('label', { for: id, title: t('gpt.att.what', { block: b + 1, head: k + 1 }) }, box, ' ',
          t('gpt.ablate.headShort', { head: k + 1 })));
      }
      rows.push(h('span', {}, t('gpt.chart.block', { block: b + 1 })), h('span', { class: 'row' }, ...boxes));
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
    } else attributionError = 'gpt.attr.int8'; // a message, worded when drawn
    return { lens, pieces, target, attribution, attributionError };
  }

  render(result, { promptPieces, candidates, baseline, ablation }) {
    const { t, num } = this.#port;
    const pct = (p) => t('gpt.percent', { value: percent(p, num) });
    const { lens, pieces, target, attribution } = result;
    const targetPieces = pieces.at(-1);
    let p = 0;
    const label = (ps) => h('span', { class: 'tok' }, ...renderPieces(ps, { visible: true }));
    this.lensBox.replaceChildren(h('table', { class: 'lens' },
      h('caption', { class: 'visually-hidden' }, t('gpt.lens.caption')),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, t('gpt.lens.layer')), h('th', { scope: 'col' }, t('gpt.lens.top')),
        h('th', { scope: 'col', class: 'alt' }, t('gpt.lens.then')), h('th', { scope: 'col' }, ['p(', label(targetPieces), ')']),
        h('th', { scope: 'col', class: 'lens-bar' }, h('span', { class: 'visually-hidden' }, t('gpt.lens.bar'))))),
      h('tbody', {}, ...lens.map((r) => {
        const cells = r.top.map((c) => ({ c, ps: pieces[p++] }));
        return h('tr', { 'data-layer': String(r.layer), 'data-probability': String(r.probability), 'data-top': String(r.top[0].id) },
          h('th', { scope: 'row' }, r.layer === 0 ? t('gpt.lens.embeddings') : t('gpt.chart.block', { block: r.layer })),
          h('td', {}, label(cells[0].ps), ` ${pct(cells[0].c.probability)}`),
          h('td', { class: 'alt muted' }, ...cells.slice(1).flatMap(({ c, ps }, i) => [i ? ', ' : '', label(ps), ` ${pct(c.probability)}`])),
          h('td', { class: 'num' }, pct(r.probability)),
          h('td', { class: 'lens-bar' }, h('div', { class: 'lens-track' }, h('div', { class: 'fill', style: `width: ${(100 * r.probability).toFixed(2)}%` }))));
      }))));
    for (const [name, box] of this.boxes ?? []) box.checked = ablation.heads.includes(name);
    this.modeSelect.value = ablation.mode;
    this.clearButton.disabled = ablation.heads.length === 0;
    const top = candidates[0];
    const mode = ablation.mode === 'zero' ? 'zero' : 'mean';
    this.ablationNote.textContent = !ablation.heads.length ? t('gpt.ablate.allOn')
      : t(baseline ? `gpt.ablate.note.${mode}` : `gpt.ablate.noteAlone.${mode}`, { count: ablation.heads.length,
        token: top.token, percent: pct(top.probability), before: baseline?.token ?? '', beforePercent: baseline ? pct(baseline.probability) : '' });
    this.methodSelect.value = attribution?.method ?? this.methodSelect.value;
    if (!attribution) {
      this.attrList.replaceChildren();
      this.attrNote.textContent = result.attributionError ? t(result.attributionError) : '';
      return;
    }
    const scale = Math.max(1e-12, ...attribution.values.map(Math.abs));
    this.attrList.replaceChildren(...attribution.values.map((v, i) => {
      const a = Math.abs(v) / scale;
      const colour = v >= 0 ? 'var(--bs-c1)' : 'var(--bs-c2)';
      return h('li', { 'data-position': String(i), 'data-attribution': String(v), title: t('gpt.attr.title', { position: i, value: num(v, 4) }),
        style: `background: color-mix(in srgb, ${colour} ${Math.round(70 * a)}%, transparent)` },
        ...renderPieces(promptPieces[i] ?? [], { visible: true }));
    }));
    const strongest = attribution.values.indexOf(attribution.values.reduce((m, v) => (Math.abs(v) > Math.abs(m) ? v : m), 0));
    this.attrNote.textContent = t('gpt.attr.note', { method: t(METHOD_NAMES[attribution.method] ?? METHOD_NAMES['grad-x-input']),
      token: top.token, id: String(target), position: strongest });
  }
}
