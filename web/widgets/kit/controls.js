// controls.js — form controls bound to a widget's attributes: a number/text field, a slider with its read-out and
// a select, each setting its attribute on change (so deep links and scripts see the same state), and a sync that
// writes attributes back into the controls. Limits and options come from the widget's attribute metadata (static
// attrs), so each is written once and deep links are clamped to what the controls allow. A helper for widgets, not a
// custom element.
import { h } from './base.js';

/** Attribute `name`'s metadata (see attrSpec in base.js) on the host's class; {} when it has none. */
export function specOf(host, name) {
  return host.constructor.attrSpecs?.()[name] ?? {};
}

/** An input's min, max (and step 1 for whole numbers) from attribute `name`'s metadata. */
export function limitsOf(host, name) {
  const { min, max, int } = specOf(host, name);
  return { ...(min != null && { min }), ...(max != null && { max }), ...(int && { step: 1 }) };
}

/** [value, text] options of attribute `name`: its `options`, or every whole number from min to max; `labels` names them. */
export function optionsOf(host, name, labels = {}) {
  const { options, int, min, max } = specOf(host, name);
  const values = options ?? (int && min != null && max != null ? Array.from({ length: max - min + 1 }, (_, i) => min + i) : []);
  return values.map((v) => [String(v), labels[v] ?? String(v)]);
}

function register(host, name, input) {
  host.inputs ??= {};
  host.inputs[name] = input;
}

/**
 * <label>label <input></label> that sets attribute `name` on change (or on input) when the value is valid. A number
 * field takes min/max from the attribute's metadata; `props` add to them (step, title, …).
 */
export function attrField(host, name, label, props = {}, { kind = 'number', onInput = false } = {}) {
  const input = h('input', { type: kind, id: name, ...(kind === 'number' && limitsOf(host, name)), ...props });
  const commit = () => {
    if (input.reportValidity()) host.setAttribute(name, input.value);
  };
  input.addEventListener(onInput ? 'input' : 'change', commit);
  register(host, name, input);
  return h('label', { for: name }, `${label} `, input);
}

/** A range input (min/max from the attribute's metadata) with an <output> showing describe(value) (also its aria-valuetext). */
export function attrSlider(host, name, label, props, describe) {
  const input = h('input', { type: 'range', id: name, ...limitsOf(host, name), ...props });
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

/**
 * A <select> that sets attribute `name`: options [[value, text], …], or a {value: text} labels object for the
 * attribute's own options (optionsOf).
 */
export function attrSelect(host, name, label, options = {}) {
  if (!Array.isArray(options)) options = optionsOf(host, name, options);
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
