// predict-panel.js — predict, then reveal. An author names readouts in the element's `predict` attribute
// (<layernorm-explorer predict="mean,variance">); until the learner answers each one in part="predict", the
// element draws a placeholder where that value would be (masked: the value is in neither the DOM nor the
// accessibility tree), then reveals the core's value, says how far off the answer was and, where one fits, names
// the likely mistake. Every answer dispatches blockscope-answer {widget, question, answer, expected, correct,
// tolerance, attempts}. Multiple-choice questions (the seeds' "check yourself" quizzes) use the same panel.
// A panel of an element (it gets the element's panelPort), not a custom element; it speaks the element's language
// (port.t, port.num): messages kit.predict.*. The event's numbers stay raw.
import { h, parseNumbers } from './base.js';
import { decimalMark, localeDigits } from './values.js';

export const PREDICT_CSS = `
fieldset.predict { border: 2px dashed var(--bs-accent); }
fieldset.predict .question { margin: 0.4rem 0 0.6rem; }
fieldset.predict .question > label, fieldset.predict legend.q { display: block; font-weight: 600; }
fieldset.predict fieldset { border: 0; padding: 0; margin: 0.2rem 0; }
fieldset.predict input[type="text"] { width: 100%; max-width: 24rem; }
.answer-result { min-height: 1.3em; margin: 0.2rem 0; }
.answer-result.ok { color: var(--bs-c3); font-weight: 600; }
.answer-result.bad { color: var(--bs-c2); font-weight: 600; }
.masked { color: var(--bs-muted); font-style: italic; }
`;

/**
 * A value or vector for reading in the port's language: 4 decimals, a vector in brackets (its entries separated by
 * "; " where the decimal mark is a comma).
 */
function show(port, v) {
  if (!Array.isArray(v) && !ArrayBuffer.isView(v)) return port.num(v, 4);
  return `[${Array.from(v, (e) => port.num(e, 4)).join(decimalMark(port.messages()) === ',' ? '; ' : ', ')}]`;
}

/** One typed number in a language whose decimal mark is a comma: "0,84" is 0.84 (not the two entries 0 and 84). */
function decimalComma(text, port) {
  return decimalMark(port.messages()) === ',' && /^\s*[−+-]?\d*,\d+\s*$/.test(text) ? text.replace(',', '.') : text;
}

/** The names in a `predict` attribute: comma- or space-separated. */
export const predictNames = (text) => String(text ?? '').split(/[\s,]+/).filter(Boolean);

export class PredictPanel {
  /**
   * port: the element's panelPort. questions: {name: {prompt(), kind: 'number' | 'vector' | 'choice', expected(),
   * tolerance (absolute, per value), hint(answer, expected) -> text | null (may be async), choices: [{value,
   * label, hint}]}}. onReveal(): the element redraws (now without the placeholder).
   */
  constructor(port, { questions, onReveal }) {
    this.port = port;
    this.questions = questions;
    this.onReveal = onReveal;
    this.state = new Map(); // name -> {revealed, attempts}
    this.element = h('fieldset', { class: 'predict', part: 'predict', hidden: true },
      h('legend', { class: 'fs' }, port.t('kit.predict.legend')));
    this.body = h('div');
    this.element.append(this.body);
  }

  /** The asked questions, from the predict attribute; unknown names are reported and skipped. */
  asked() {
    const names = predictNames(this.port.attr('predict'));
    const unknown = names.filter((n) => !(n in this.questions));
    if (unknown.length) {
      this.port.report(this.port.t('kit.predict.unknown', { names: unknown.map((n) => `"${n}"`).join(', '), tag: this.port.tag,
        offers: Object.keys(this.questions).join(', ') }), { error: true });
    }
    return names.filter((n) => n in this.questions);
  }

  /** True while `name` is asked and not yet answered: the element draws a placeholder instead of its value. */
  hides(name) {
    return this.asked().includes(name) && !this.state.get(name)?.revealed;
  }

  /** A placeholder for a hidden value (text for screen readers says why there is no number). */
  placeholder(label = '?') {
    return h('span', { class: 'masked' }, label, h('span', { class: 'visually-hidden' }, ' ', this.port.t('kit.predict.hidden')));
  }

  /** Replaces every [data-predict~=name] element of `root` that is still hidden with a placeholder. */
  mask(root) {
    for (const name of this.asked()) {
      if (!this.hides(name)) continue;
      for (const el of root.querySelectorAll(`[data-predict~="${name}"]`)) {
        el.replaceChildren(el.dataset.predictNote ? h('p', { class: 'masked' }, el.dataset.predictNote) : this.placeholder());
      }
    }
  }

  /**
   * Takes `el` out of the document while `name` is hidden (a placeholder saying `note` stands in its place) and puts
   * it back once answered: for a whole view that would give the answer away (the block's order of operations).
   */
  conceal(name, el, note) {
    this.stand ??= new WeakMap();
    let ph = this.stand.get(el);
    if (!ph) {
      ph = h('p', { class: 'masked' }, note);
      this.stand.set(el, ph);
    }
    if (this.hides(name)) { if (el.isConnected) el.replaceWith(ph); } else if (ph.isConnected) ph.replaceWith(el);
  }

  /** Builds the questions asked now (after the attribute changed or the inputs did: the prompts name them). */
  render() {
    const names = this.asked();
    this.element.hidden = names.length === 0;
    const keep = new Map([...this.body.children].map((el) => [el.dataset.question, el]));
    this.body.replaceChildren(...names.map((n) => keep.get(n) ?? this.question(n)));
    for (const n of names) this.body.querySelector(`[data-question="${n}"] .prompt`).textContent = this.questions[n].prompt();
  }

  question(name) {
    const q = this.questions[name];
    const id = `predict-${name}`;
    const result = h('p', { class: 'answer-result', role: 'status', 'aria-live': 'polite', id: `${id}-result` });
    const submit = h('button', { type: 'button' }, this.port.t('kit.predict.reveal'));
    let read;
    let field;
    if (q.kind === 'choice') {
      field = h('fieldset', {}, h('legend', { class: 'q prompt' }),
        ...q.choices.map((c, i) => h('label', { style: 'display:block' },
          h('input', { type: 'radio', name: id, value: c.value, id: `${id}-${i}` }), ' ', c.label)));
      read = () => {
        const picked = field.querySelector('input:checked');
        if (!picked) throw new Error(this.port.t('kit.predict.pickOne'));
        return picked.value;
      };
    } else {
      const input = h('input', { type: 'text', id, inputmode: 'decimal', autocomplete: 'off', spellcheck: 'false',
        'aria-describedby': `${id}-result` });
      input.addEventListener('keydown', (e) => { if (e.key === 'Enter') { e.preventDefault(); submit.click(); } });
      field = h('div', {}, h('label', { for: id, class: 'prompt' }), input);
      read = () => {
        const text = q.kind === 'number' ? decimalComma(input.value, this.port) : input.value;
        const values = parseNumbers(text, this.port.messages());
        if (q.kind === 'number' && values.length !== 1) throw new Error(this.port.t('kit.predict.oneNumber'));
        return q.kind === 'number' ? values[0] : values;
      };
    }
    const again = h('button', { type: 'button', hidden: true }, this.port.t('kit.predict.again'));
    again.addEventListener('click', () => {
      this.state.set(name, { ...this.state.get(name), revealed: false });
      again.hidden = true;
      result.textContent = '';
      this.onReveal();
    });
    submit.addEventListener('click', async () => {
      let answer;
      try {
        answer = read();
      } catch (err) {
        result.className = 'answer-result bad';
        result.textContent = `${err.message.replace(/^./, (c) => c.toUpperCase())}.`;
        return;
      }
      await this.answer(name, answer, result);
      again.hidden = false;
    });
    return h('div', { class: 'question', 'data-question': name }, field, h('div', { class: 'row' }, submit, again), result);
  }

  /** Judges an answer, reveals the value, reports it and dispatches blockscope-answer. */
  async answer(name, answer, result) {
    const q = this.questions[name];
    const { t } = this.port;
    const expected = q.expected();
    const tolerance = q.kind === 'choice' ? 0 : q.tolerance ?? 0.01;
    let correct;
    let far = null;
    if (q.kind === 'choice') {
      correct = answer === expected;
    } else {
      const want = q.kind === 'number' ? [expected] : Array.from(expected);
      const got = q.kind === 'number' ? [answer] : answer;
      if (got.length !== want.length) {
        correct = false;
        far = t('kit.predict.count', { count: got.length, expected: want.length });
      } else {
        const off = Math.max(...got.map((v, i) => Math.abs(v - want[i])));
        correct = off <= tolerance;
        const relative = Math.abs(want.length === 1 ? want[0] : 0) > 0;
        const params = { off: this.port.num(off, 4), percent: relative ? this.port.num((100 * off) / Math.abs(want[0]), 1) : '' };
        const key = off <= 10 * tolerance ? 'kit.predict.close' : 'kit.predict.off';
        far = correct ? null : t(relative ? `${key}Relative` : key, params);
      }
    }
    const st = this.state.get(name) ?? { attempts: 0 };
    st.attempts += 1;
    st.revealed = true;
    this.state.set(name, st);
    const hint = correct ? null
      : q.kind === 'choice' ? q.choices.find((c) => c.value === answer)?.hint : await q.hint?.(answer, expected);
    const choice = q.kind === 'choice';
    const said = choice ? q.choices.find((c) => c.value === answer)?.label : show(this.port, answer);
    const truth = choice ? q.choices.find((c) => c.value === expected)?.label : show(this.port, expected);
    result.className = `answer-result ${correct ? 'ok' : 'bad'}`;
    result.textContent = correct
      ? t(choice ? 'kit.predict.rightChoice' : 'kit.predict.right',
        { answer: truth, tolerance: localeDigits(tolerance, this.port.messages()) })
      : [t(choice ? 'kit.predict.wrongChoice' : 'kit.predict.wrong', { answer: said, expected: truth }), far, hint]
        .filter(Boolean).join(' ');
    this.port.emit('answer', { widget: this.port.tag, question: name, answer, expected: Array.isArray(expected) ||
      ArrayBuffer.isView(expected) ? Array.from(expected) : expected, correct, tolerance, attempts: st.attempts });
    this.onReveal();
  }
}
