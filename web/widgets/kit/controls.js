// controls.js — form controls bound to a widget's attributes: a number/text field, a slider with its read-out and
// a select, each setting its attribute on change (so deep links and scripts see the same state), and a sync that
// writes attributes back into the controls (Controls: the registry each element owns). Limits and options come from the widget's attribute metadata (static
// attrs), so each is written once and deep links are clamped to what the controls allow. A helper for widgets, not a
// custom element.
import { h } from './base.js';
import { fieldError, fieldErrorText, numberProblem } from './field-error.js';

/** Attribute `name`'s metadata (attrs.js attrSpec); {} when it has none. `host`: the element or a panel port. */
export function specOf(host, name) {
  return host.specs()[name] ?? {};
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

/**
 * The controls a widget bound to its attributes (host.boundControls, owned by the element): each attribute's input and,
 * for sliders, the function that redraws its read-out. Panels reach a control through get(name), never through
 * properties written onto the element.
 */
export class Controls {
  constructor(host) {
    this.host = host;
    this.byName = new Map(); // name -> {input, show, wrapper}
    this.extra = new Map(); // control group -> nodes not bound to an attribute (addGroup)
  }

  add(name, input, show = null) {
    if (this.byName.has(name)) throw new Error(`<${this.host.tag}> binds attribute ${name} to two controls`);
    this.byName.set(name, { input, show, wrapper: null });
    return input;
  }

  /** Records `node` (e.g. the <label> around it) as what hides with attribute `name`'s control. */
  wrap(name, node) {
    const entry = this.byName.get(name);
    if (!entry) throw new Error(`<${this.host.tag}> has no control for attribute ${name}`);
    entry.wrapper = node;
    return node;
  }

  /**
   * Adds nodes (buttons, checkboxes, fieldsets, …) to control group `group` (layout.js: controls="…" hides them,
   * lock="…" disables what they contain). Returns the first node.
   */
  addGroup(group, ...nodes) {
    if (!this.extra.has(group)) this.extra.set(group, []);
    this.extra.get(group).push(...nodes);
    return nodes[0];
  }

  /**
   * Every control group with its nodes: an attribute's control belongs to the group its spec names (`group`), else
   * to a group named as the attribute; addGroup() adds the rest.
   */
  groups() {
    const out = new Map();
    const put = (group, node) => {
      if (!out.has(group)) out.set(group, []);
      out.get(group).push(node);
    };
    for (const [name, { input, wrapper }] of this.byName) put(specOf(this.host, name).group ?? name, wrapper ?? input);
    for (const [group, nodes] of this.extra) for (const node of nodes) put(group, node);
    return [...out].map(([group, nodes]) => ({ group, nodes }));
  }

  /** The input bound to attribute `name` (throws if there is none: a typo would otherwise fail silently). */
  get(name) {
    const entry = this.byName.get(name);
    if (!entry) throw new Error(`<${this.host.tag}> has no control for attribute ${name}`);
    return entry.input;
  }

  /** [name, input] of every bound control. */
  entries() {
    return [...this.byName].map(([name, { input }]) => [name, input]);
  }

  /**
   * Writes values into the controls — values(name) for each bound name (default: the attribute's current value),
   * undefined to leave it — except `skip`, the one being edited (focused, or with an edit pending) and one showing an error, then redraws the sliders' read-outs.
   */
  sync({ skip = [], values = (name) => this.host.attr(name) } = {}) {
    for (const [name, { input }] of this.byName) {
      if (skip.includes(name) || this.host.isEditing(input) || fieldErrorText(input) !== null) continue; // kept until fixed
      const v = values(name);
      if (v !== undefined && input.value !== String(v)) input.value = String(v);
    }
    for (const { show } of this.byName.values()) show?.();
  }
}

/**
 * <label>label <input></label> that sets attribute `name` on change (or on input) when the value is valid; else the
 * field says what is wrong right after it (field-error.js) and the attribute keeps its last valid value. A number
 * field takes min/max from the attribute's metadata; `props` add to them (step, title, …); `check(value)` returns a
 * message for a value the limits allow but the widget cannot use (e.g. max not above min), or null.
 */
export function attrField(host, name, label, props = {}, { kind = 'number', onInput = false, check = () => null } = {}) {
  const input = h('input', { type: kind, id: name, ...(kind === 'number' && limitsOf(host, name)), ...props });
  const wrapper = h('label', { for: name }, `${label} `, input);
  const commit = () => {
    const problem = (kind === 'number' ? numberProblem(input, host, { int: Boolean(specOf(host, name).int) }) : null) ??
      check(input.value);
    if (!fieldError(input, problem, { after: wrapper })) return;
    if (host.set(name, input.value) === false) input.value = host.attr(name); // locked
  };
  input.addEventListener(onInput ? 'input' : 'change', commit);
  host.boundControls.add(name, input);
  return host.boundControls.wrap(name, wrapper);
}

/**
 * attrField `check`s for a model width and a head count that must divide it (the core refuses a model otherwise):
 * {width, heads}, each saying so (kit.field.heads) when its value and the other attribute's do not fit.
 */
export function headChecks(host, width = 'emb-dim', heads = 'heads') {
  const say = (w, n) => (w % n === 0 ? null : host.t('kit.field.heads', { width: host.num(w), heads: host.num(n) }));
  return { width: (v) => say(Number(v), host.numAttr(heads)), heads: (v) => say(host.numAttr(width), Number(v)) };
}

/** attrField for a seed attribute, labelled as a Blockscope seed with the kit's seed note (kit.seedNote) as its title. */
export function seedField(host, name, label) {
  const note = host.t('kit.seedNote');
  const field = attrField(host, name, label, { title: note });
  field.title = note;
  return field;
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
    if (host.set(name, input.value) === false) input.value = host.attr(name); // locked
    show();
  });
  host.boundControls.add(name, input, show);
  return host.boundControls.wrap(name, h('label', { for: name }, `${label} `, input, ' ', out));
}

/**
 * A <select> that sets attribute `name`: options [[value, text], …], or a {value: text} labels object for the
 * attribute's own options (optionsOf).
 */
export function attrSelect(host, name, label, options = {}) {
  if (!Array.isArray(options)) options = optionsOf(host, name, options);
  const sel = h('select', { id: name, onchange: () => {
    if (host.set(name, sel.value) === false) sel.value = host.attr(name); // locked
  } },
    ...options.map(([value, text]) => h('option', { value }, text)));
  host.boundControls.add(name, sel);
  return host.boundControls.wrap(name, h('label', { for: name }, `${label} `, sel));
}

/**
 * Binds the text field `input` (a prompt box) to attribute `name`: an edit sets the attribute a moment after the last
 * keystroke, or at once when the learner does anything else on the widget first (base.js debounce), so what was typed
 * is never lost. Returns `input`. Write the attribute back into it with showInField.
 */
export function debouncedField(host, input, name) {
  input.addEventListener('input', () => host.debounce(name, () => host.set(name, input.value), { source: input }));
  return input;
}

/** Writes `value` into `input` unless the learner is editing it (it has the focus or an edit pending). */
export function showInField(host, input, value) {
  if (!host.isEditing(input) && input.value !== value) input.value = value;
}
