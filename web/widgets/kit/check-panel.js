// check-panel.js — "check your implementation": a learner pastes what their own notebook printed for the widget's
// current inputs (part="check-input"); the panel reads it (pasted-tensor.js), asks the core for the correct
// result and for what each known mistake computes on the same inputs, and says which one the numbers match
// (part="check-result", announced politely). Each check dispatches blockscope-check {widget, match, maxDiff,
// tolerance, alike}: match is 'correct', a mistake id (mistake-text.js) or 'unknown'. A panel of an element
// (it gets the element's panelPort), not a custom element; every widget with a from-scratch exercise has one.
// It speaks the element's language (port.t): messages kit.check.*, the mistakes' kit.mistake.*, the paste's kit.paste.*.
import { h } from './base.js';
import { judge } from './compare.js';
import { mistakeText } from './mistake-text.js';
import { parsePasted, PasteError } from './pasted-tensor.js';
import { localeDigits } from './values.js';

export const CHECK_CSS = `
details.check { margin: 0.8rem 0; border: 1px solid var(--bs-border); border-radius: 6px; padding: 0.3rem 0.7rem; }
details.check summary { cursor: pointer; font-weight: 600; }
details.check textarea { width: 100%; box-sizing: border-box; font-family: ui-monospace, monospace; font-size: 0.85rem; }
.check-result { min-height: 1.45em; }
.check-result.ok { color: var(--bs-c3); font-weight: 600; }
.check-result.bad { color: var(--bs-c2); font-weight: 600; }
`;

/** A difference in two significant digits, for reading in Messages `m`'s language. */
const short = (v, m) => (v == null ? '—' : v === 0 ? '0'
  : localeDigits(v < 1e-3 || v >= 1e4 ? v.toExponential(1) : v.toPrecision(2), m));

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
    this.button = h('button', { type: 'button' }, port.t('kit.check.button'));
    this.result = h('p', { class: 'check-result', part: 'check-result', role: 'status', 'aria-live': 'polite' });
    this.element = h('details', { class: 'check', part: 'check' },
      h('summary', {}, port.t('kit.check.summary')),
      this.prompt,
      ...(code ? [code] : []),
      h('label', { for: 'check-input' }, port.t('kit.check.pasteLabel')),
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
    this.prompt.textContent = this.port.t('kit.check.prompt', { what: this.what(),
      tolerance: localeDigits(this.tolerance.toExponential(0), this.port.messages()) });
    if (this.result.textContent && !this.result.dataset.stale) {
      this.result.dataset.stale = 'true';
      this.result.textContent += ` ${this.port.t('kit.check.stale')}`;
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
      return this.show(this.port.t('kit.check.unreadable', { problem: err.localized(this.port.messages()) }), 'bad');
    }
    this.input.removeAttribute('aria-invalid');
    let target;
    try {
      target = await this.target();
    } catch (err) {
      return this.show(this.port.t('kit.check.noReference', { message: err.message }), 'bad');
    }
    if (seq !== this.seq) return undefined; // a newer check is under way
    const v = judge(pasted, target.shape, target.candidates, this.tolerance);
    this.port.emit('check', { widget: this.port.tag, match: v.match, maxDiff: v.maxDiff, tolerance: this.tolerance,
      alike: v.alike });
    const { t } = this.port;
    const m = this.port.messages();
    if (v.shapeError) {
      return this.show(t('kit.check.shape', { got: v.shapes.got.join(', '), want: v.shapes.want.join(', ') }), 'bad');
    }
    const alike = v.alike.length
      ? t('kit.check.alike', { count: v.alike.length, mistakes: v.alike.map((id) => mistakeText(id, m).what).join('; ') })
      : null;
    const diff = short(v.maxDiff, m);
    if (v.match === 'correct') return this.show([t('kit.check.correct', { diff }), alike], 'ok');
    if (v.match !== 'unknown') {
      const { what, fix } = mistakeText(v.match, m);
      return this.show([t('kit.check.mistake', { what, diff, fix }), alike], 'bad');
    }
    return this.show([t('kit.check.unknown', { diff })], 'bad');
  }

  /** Shows the verdict: a message, or sentences (null ones left out) joined by spaces. */
  show(text, kind) {
    this.result.textContent = Array.isArray(text) ? text.filter(Boolean).join(' ') : text;
    this.result.className = `check-result ${kind}`;
  }
}
