// check-panel.js — "check your implementation": a learner pastes what their own notebook printed for the widget's
// current inputs (part="check-input"); the panel reads it (pasted-tensor.js), asks the core for the correct
// result and for what each known mistake computes on the same inputs, and says which one the numbers match
// (part="check-result", announced politely). Each check dispatches blockscope-check {widget, match, maxDiff,
// tolerance, alike}: match is 'correct', a mistake id (mistake-text.js) or 'unknown'. A panel of an element
// (it gets the element's panelPort), not a custom element; every widget with a from-scratch exercise has one.
import { h } from './base.js';
import { judge } from './compare.js';
import { mistakeText } from './mistake-text.js';
import { parsePasted, PasteError } from './pasted-tensor.js';

export const CHECK_CSS = `
details.check { margin: 0.8rem 0; border: 1px solid var(--bs-border); border-radius: 6px; padding: 0.3rem 0.7rem; }
details.check summary { cursor: pointer; font-weight: 600; }
details.check textarea { width: 100%; box-sizing: border-box; font-family: ui-monospace, monospace; font-size: 0.85rem; }
.check-result { min-height: 1.45em; }
.check-result.ok { color: var(--bs-c3); font-weight: 600; }
.check-result.bad { color: var(--bs-c2); font-weight: 600; }
`;

const short = (v) => (v == null ? '—' : v === 0 ? '0' : v < 1e-3 || v >= 1e4 ? v.toExponential(1) : v.toPrecision(2));

export class CheckPanel {
  /**
   * port: the element's panelPort. what(): the text naming what to paste ("LayerNorm's output for the tokens above").
   * target(): {shape, candidates: [{id, values}] with 'correct' first}, computed by the core for the current inputs.
   * tolerance: the absolute tolerance the check states (plus each value's print precision).
   */
  constructor(port, { what, target, tolerance = 1e-5, code = null }) {
    this.port = port;
    this.what = what;
    this.target = target;
    this.tolerance = tolerance;
    this.prompt = h('p', { class: 'muted', id: 'check-what' });
    this.input = h('textarea', { id: 'check-input', part: 'check-input', rows: '4', spellcheck: 'false',
      autocomplete: 'off', 'aria-describedby': 'check-what' });
    this.button = h('button', { type: 'button' }, 'Check my numbers');
    this.result = h('p', { class: 'check-result', part: 'check-result', role: 'status', 'aria-live': 'polite' });
    this.element = h('details', { class: 'check', part: 'check' },
      h('summary', {}, 'Check your implementation'),
      this.prompt,
      ...(code ? [code] : []),
      h('label', { for: 'check-input' }, 'Paste what your notebook printed (a tensor, .tolist() or a NumPy array)'),
      this.input,
      h('div', { class: 'row' }, this.button),
      this.result);
    this.element.addEventListener('toggle', () => this.refresh());
    this.button.addEventListener('click', () => this.check());
    this.input.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) { e.preventDefault(); this.check(); }
    });
  }

  /** The inputs changed: the prompt names the new ones, and an earlier verdict no longer applies. */
  refresh() {
    this.prompt.textContent = `Run your own code on the widget’s current inputs and paste ${this.what()}. ` +
      `Values must agree within ${this.tolerance.toExponential(0)} (plus the rounding of your print).`;
    if (this.result.textContent && !this.result.dataset.stale) {
      this.result.dataset.stale = 'true';
      this.result.textContent += ' (The inputs have changed since: check again.)';
    }
  }

  async check() {
    const seq = (this.seq = (this.seq ?? 0) + 1);
    delete this.result.dataset.stale;
    let pasted;
    try {
      pasted = parsePasted(this.input.value);
    } catch (err) {
      if (!(err instanceof PasteError)) throw err;
      this.input.setAttribute('aria-invalid', 'true');
      return this.show(`Could not read your paste: ${err.message}.`, 'bad');
    }
    this.input.removeAttribute('aria-invalid');
    let target;
    try {
      target = await this.target();
    } catch (err) {
      return this.show(`Could not compute the reference: ${err.message}`, 'bad');
    }
    if (seq !== this.seq) return undefined; // a newer check is under way
    const v = judge(pasted, target.shape, target.candidates, this.tolerance);
    this.port.emit('check', { widget: this.port.tag, match: v.match, maxDiff: v.maxDiff, tolerance: this.tolerance,
      alike: v.alike });
    if (v.shapeError) return this.show(`Not a match: ${v.shapeError}.`, 'bad');
    const alike = v.alike.length
      ? ` At these inputs ${v.alike.map((id) => mistakeText(id).what).join('; ')} give${v.alike.length === 1 ? 's' : ''} ` +
        'the same numbers too: change the inputs to tell them apart.'
      : '';
    if (v.match === 'correct') {
      return this.show(`Correct: your numbers match the core’s, max difference ${short(v.maxDiff)}.${alike}`, 'ok');
    }
    if (v.match !== 'unknown') {
      const t = mistakeText(v.match);
      return this.show(`Your numbers match ${t.what}, max difference ${short(v.maxDiff)}. Fix: ${t.fix}.${alike}`, 'bad');
    }
    return this.show(`Your numbers match neither the correct result (max difference ${short(v.maxDiff)}) nor any ` +
      'mistake the widget knows. Check the inputs and weights are the widget’s, then compare step by step.', 'bad');
  }

  show(text, kind) {
    this.result.textContent = text;
    this.result.className = `check-result ${kind}`;
  }
}
