// gpt-lab-runs.js — <gpt-explorer> showing a model a <training-lab> on the page trained: the run's checkpoints
// (its weights every few dozen steps, handed over by the lab), one loaded at a time like a checkpoint directory, and a
// slider that scrubs through them so a learner watches attention and LayerNorm statistics form as it trained.
// port: the widget's panel port plus show(spec), which loads a checkpoint spec (gpt-models.js's {kind: 'loaded'}).
import { h } from '../kit/base.js';
import { messages } from '../kit/i18n.js';

const EN = messages('en'); // the spec's label, for events and Copy as PyTorch, is English in every language

export class LabRuns {
  #port;
  constructor(port) {
    this.#port = port;
    this.lab = null; // {label (null: the lab gave none), checkpoints: [{step, config, weights}]}
    this.step = null; // the step shown
    this.label = h('p', { class: 'lab-label' });
    this.scrub = h('input', { type: 'range', id: 'lab-step', part: 'checkpoint-scrub', min: 0, max: 0, step: 1, value: 0,
      oninput: () => this.scrubbed() });
    this.out = h('output', { for: 'lab-step', class: 'num' });
    const scrubLabel = h('label', { for: 'lab-step' }, port.t('gpt.lab.scrub'), ' ', this.scrub, ' ', this.out);
    port.boundControls.addGroup('scrub', scrubLabel);
    this.section = h('section', { class: 'lab-scrub', part: 'lab-run', hidden: true }, this.label, scrubLabel);
  }

  inspect({ label, step, checkpoints }) {
    if (!checkpoints?.length) throw new Error('inspectCheckpoints needs at least one checkpoint');
    this.lab = { label: label == null ? null : String(label), checkpoints };
    this.scrub.max = String(checkpoints.length - 1);
    this.section.hidden = false;
    this.show(step ?? checkpoints.at(-1).step);
  }

  /**
   * Takes over the run `previous` (the LabRuns of the widget before it was rebuilt in another language) showed, at
   * the step it showed, without loading it again.
   */
  resume(previous) {
    if (!previous?.lab) return;
    this.lab = previous.lab;
    this.scrub.max = String(this.lab.checkpoints.length - 1);
    this.section.hidden = false;
    this.draw(previous.step ?? this.lab.checkpoints.at(-1).step);
  }

  /** The run's label in the language of `t` (the lab's own label, else "a training lab run"). */
  labelIn(t) {
    return this.lab.label ?? t('gpt.lab.defaultLabel');
  }

  scrubbed() {
    if (this.#port.locked('scrub')) return;
    const ck = this.lab?.checkpoints[Number(this.scrub.value)];
    if (!ck) return;
    this.out.textContent = this.#port.t('gpt.lab.step', { step: ck.step });
    // The last position dragged to, not every one (and before anything else the learner does: base.js debounce).
    this.#port.debounce('scrub', () => this.show(ck.step), { ms: 120, source: this.scrub });
  }

  /** Shows the run's checkpoint at `step` (the nearest one there is) and loads it. */
  show(step) {
    const ck = this.draw(step);
    const label = this.labelIn((key, params) => EN.t(key, params));
    const params = { step: ck.step };
    // A copy of the bytes: the lab keeps its own (a transfer to the worker would empty them).
    this.#port.show({ kind: 'loaded', key: `lab:${label}:${ck.step}`, label: EN.t('gpt.lab.atStep', { ...params, label }),
      labelIn: (t) => t('gpt.lab.atStep', { ...params, label: this.labelIn(t) }),
      source: { config: ck.config, weights: ck.weights.slice() } });
  }

  /** The slider, its read-out and the run's line at the checkpoint of `step`; returns that checkpoint. */
  draw(step) {
    const { t } = this.#port;
    const { checkpoints } = this.lab;
    const i = Math.max(0, checkpoints.findIndex((c) => c.step === step));
    const ck = checkpoints[i];
    this.step = ck.step;
    this.scrub.value = String(i);
    this.out.textContent = t('gpt.lab.step', { step: ck.step });
    this.scrub.setAttribute('aria-valuetext', this.out.textContent);
    this.label.textContent = t('gpt.lab.label', { label: this.labelIn(t), count: checkpoints.length,
      first: checkpoints[0].step, last: checkpoints.at(-1).step });
    return ck;
  }
}
