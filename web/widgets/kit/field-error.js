// field-error.js — what is wrong with a field, shown right after it: the message (role="alert", so screen readers say
// it), the field marked aria-invalid and described by the message. Every widget's validated fields use it, with
// messages from the i18n tables (kit.field.* for what numberProblem finds). Not a custom element.
import { h } from './dom.js';

/** The rules for the message and an invalid field (base.js adds them to every widget). */
export const FIELD_ERROR_CSS = `
[aria-invalid="true"] { border-color: var(--bs-c2); outline: 2px solid var(--bs-c2); outline-offset: 0; }
.field-error { display: block; flex-basis: 100%; margin: 0.15rem 0 0.3rem; color: var(--bs-c2); font-size: 0.85em;
  font-weight: 600; white-space: normal; }
`;

const messages = new WeakMap(); // field -> its message element

/**
 * Shows `message` right after `field` (or after `after`, e.g. the <label> around it, so the message is not part of
 * the field's name); null or '' clears it. Returns whether the field is valid now.
 */
export function fieldError(field, message, { after = field } = {}) {
  let el = messages.get(field);
  const ids = (field.getAttribute('aria-describedby') ?? '').split(/\s+/).filter(Boolean);
  if (!message) {
    if (el) {
      el.remove();
      messages.delete(field);
      const rest = ids.filter((id) => id !== el.id);
      if (rest.length) field.setAttribute('aria-describedby', rest.join(' '));
      else field.removeAttribute('aria-describedby');
    }
    field.removeAttribute('aria-invalid');
    return true;
  }
  if (!el) {
    el = h('span', { class: 'field-error', role: 'alert', part: 'field-error', id: `${field.id || 'field'}-error` });
    messages.set(field, el);
  }
  if (el.previousSibling !== after) after.after(el);
  if (el.textContent !== message) el.textContent = message;
  field.setAttribute('aria-invalid', 'true');
  if (!ids.includes(el.id)) field.setAttribute('aria-describedby', [...ids, el.id].join(' '));
  return false;
}

/** The message fieldError shows for `field`, or null. */
export function fieldErrorText(field) {
  return messages.get(field)?.textContent ?? null;
}

/**
 * What is wrong with number field `input` against its min and max (and being whole, with `int`), as message kit.field.*
 * in the language of `host` (the element or its panel port: t, num), or null when nothing is.
 */
export function numberProblem(input, host, { int = input.step === '1' } = {}) {
  const v = input.validity;
  const limit = (text) => (text === '' ? '' : host.num(Number(text)));
  const limits = { min: limit(input.min), max: limit(input.max) };
  if (v.badInput) return host.t('kit.field.notNumber');
  if (v.valueMissing || input.value.trim() === '') return host.t('kit.field.empty');
  if (v.rangeUnderflow) return host.t('kit.field.tooLow', limits);
  if (v.rangeOverflow) return host.t('kit.field.tooHigh', limits);
  if (int && !Number.isInteger(Number(input.value))) return host.t('kit.field.notWhole');
  return null;
}
