// gpt-lab-runs.js — <gpt-explorer> showing a model a <training-lab> on the page trained: the run's checkpoints
// (its weights every few dozen steps, handed over by the lab), one loaded at a time like a checkpoint directory, and a
// slider that scrubs through them so a learner watches attention and LayerNorm statistics form as it trained.
// port: the widget's panel port plus show(spec), which loads a checkpoint spec (gpt-models.js's {kind: 'loaded'}).
import { h } from '../kit/base.js';

export class LabRuns {
  #port;
  #timer = null;
  constructor(port) {
    this.#port = port;
    this.lab = null; // {label, checkpoints: [{step, config, weights}]}
    this.label = h('p', { class: 'lab-label' });
    this.scrub = h('input', { type: 'range', id: 'lab-step', part: 'checkpoint-scrub', min: 0, max: 0, step: 1, value: 0,
      oninput: () => this.scrubbed() });
    this.out = h('output', { for: 'lab-step', class: 'num' });
    this.section = h('section', { class: 'lab-scrub', hidden: true }, this.label,
      h('label', { for: 'lab-step' }, 'Scrub through its checkpoints: ', this.scrub, ' ', this.out));
  }

  inspect({ label, step, checkpoints }) {
    if (!checkpoints?.length) throw new Error('inspectCheckpoints needs at least one checkpoint');
    this.lab = { label: String(label ?? 'a training lab run'), checkpoints };
    this.scrub.max = String(checkpoints.length - 1);
    this.section.hidden = false;
    this.show(step ?? checkpoints.at(-1).step);
  }

  scrubbed() {
    const ck = this.lab?.checkpoints[Number(this.scrub.value)];
    if (!ck) return;
    this.out.textContent = `step ${ck.step}`;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.show(ck.step), 120); // the last position dragged to, not every one
  }

  show(step) {
    const { label, checkpoints } = this.lab;
    const i = Math.max(0, checkpoints.findIndex((c) => c.step === step));
    const ck = checkpoints[i];
    this.scrub.value = String(i);
    this.out.textContent = `step ${ck.step}`;
    this.scrub.setAttribute('aria-valuetext', `step ${ck.step}`);
    this.label.textContent = `${label}: ${checkpoints.length} checkpoints, steps ${checkpoints[0].step}–${checkpoints.at(-1).step}.`;
    // A copy of the bytes: the lab keeps its own (a transfer to the worker would empty them).
    this.#port.show({ kind: 'loaded', key: `lab:${label}:${ck.step}`, label: `${label} at step ${ck.step}`,
      source: { config: ck.config, weights: ck.weights.slice() } });
  }
}
