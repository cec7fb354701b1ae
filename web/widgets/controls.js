// controls.js — form controls bound to a widget's attributes: a number/text field, a slider with its read-out and
// a select, each setting its attribute on change (so deep links and scripts see the same state), and a sync that
// writes attributes back into the controls. A helper for widgets, not a custom element.
import { h } from './base.js';

function register(host, name, input) {
  host.inputs ??= {};
  host.inputs[name] = input;
}

/** <label>label <input></label> that sets attribute `name` on change (or on input) when the value is valid. */
export function attrField(host, name, label, props, { kind = 'number', onInput = false } = {}) {
  const input = h('input', { type: kind, id: name, ...props });
  const commit = () => {
    if (input.reportValidity()) host.setAttribute(name, input.value);
  };
  input.addEventListener(onInput ? 'input' : 'change', commit);
  register(host, name, input);
  return h('label', { for: name }, `${label} `, input);
}

/** A range input with an <output> showing describe(value) (also its aria-valuetext). */
export function attrSlider(host, name, label, props, describe) {
  const input = h('input', { type: 'range', id: name, ...props });
  const out = h('output', { for: name, class: 'num' });
  const show = () => {
    out.textContent = describe(Number(input.value));
    input.setAttribute('aria-valuetext', out.textContent);
  };
  input.addEventListener('input', () => {
    show();
    host.setAttribute(name, input.value);
  });
  register(host, name, input);
  host.sliderShow ??= {};
  host.sliderShow[name] = show;
  return h('label', { for: name }, `${label} `, input, ' ', out);
}

/** A <select> of [value, text] options that sets attribute `name`. */
export function attrSelect(host, name, label, options) {
  const sel = h('select', { id: name, onchange: () => host.setAttribute(name, sel.value) },
    ...options.map(([value, text]) => h('option', { value }, text)));
  register(host, name, sel);
  return h('label', { for: name }, `${label} `, sel);
}

/** Writes the host's attributes into its registered controls (except `skip` and the focused one). */
export function syncControls(host, skip = []) {
  for (const [name, input] of Object.entries(host.inputs ?? {})) {
    if (skip.includes(name)) continue;
    const v = host.attr(name);
    if (input.value !== v && host.shadowRoot.activeElement !== input) input.value = v;
  }
  for (const show of Object.values(host.sliderShow ?? {})) show();
}
