// tour-state.js — what a <blockscope-tour> step does to the page. A step's `state` is the deep-link syntax (what
// `sync-url` writes after the URL's #: `id.attr=value&tag.attr=value`), so an author writes a tour by copying hashes.
// Its targets are found by element id or tag name (as deep links find them: attrs.js hashAttributes), each value is
// checked with the widget class's own checkedValue (so a tour sets nothing a deep link could not), and every attribute
// any step of the tour sets goes back to what the page had before the tour touched it when the step shown does not
// mention it: step k always looks the same, however the learner got there. A helper of the element, not an element.

import { parseDeepLink } from '../kit/attrs.js';

const TAG_NAME = /^[a-z][a-z0-9_]*(-[a-z0-9_]*)+$/; // a custom element name, usable as a selector
const MARK = 'data-bs-tour';
const PART_TARGET = /^(.+?)::part\(([\w-]+)\)$/; // block::part(predict) // on a widget the tour points at: "target", plus "highlight" when outlined

/** The settings a state names (attrs.js parseDeepLink: the deep-link syntax, shared with the widgets' own deep links). */
export const parseState = parseDeepLink;

/** The elements `name` addresses in `root` (a document or shadow root): the one with that id and every element with that tag. */
export function findTargets(root, name) {
  const found = [];
  const byId = root.getElementById?.(name);
  if (byId) found.push(byId);
  if (TAG_NAME.test(name)) for (const el of root.querySelectorAll(name)) if (el !== byId) found.push(el);
  return found;
}

/** In document order. */
function ordered(elements) {
  return [...new Set(elements)].sort((a, b) => (a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1));
}

/**
 * What an element is to a tour: 'widget' (its class has checkedValue), 'pending' (a custom element whose definition
 * has not run yet: customElements.whenDefined tells when) or 'other' (nothing a tour may set).
 */
export function targetKind(el) {
  if (typeof el.constructor?.checkedValue === 'function') return 'widget';
  if (el.localName.includes('-') && !customElements.get(el.localName)) return 'pending';
  return 'other';
}

const HIGHLIGHT_CSS = `
[${MARK}] { scroll-margin-top: 0.75rem; }
[${MARK}~="highlight"] { outline: 3px solid var(--bs-accent, #0b5cad); outline-offset: 4px;
  box-shadow: 0 0 0 9px color-mix(in srgb, var(--bs-accent, #0b5cad) 16%, transparent); }
@media (prefers-reduced-motion: no-preference) {
  [${MARK}~="highlight"] { animation: blockscope-tour-arrive 900ms ease-out 1; }
  @keyframes blockscope-tour-arrive { from { box-shadow: 0 0 0 22px color-mix(in srgb, var(--bs-accent, #0b5cad) 0%, transparent); } }
}
@media (forced-colors: active) { [${MARK}~="highlight"] { outline-color: Highlight; } }
`;
const sheets = new WeakSet(); // roots that have the highlight rules

/** Puts the highlight rules into `root` (the document, or the shadow root the tour and its widgets live in), once. */
function adoptHighlight(root) {
  if (sheets.has(root) || !('adoptedStyleSheets' in root)) return;
  sheets.add(root);
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(HIGHLIGHT_CSS);
  root.adoptedStyleSheets = [...root.adoptedStyleSheets, sheet];
}

/** One tour's bookkeeping: the page's own values of the attributes it sets, its warnings, the widgets it marked. */
export class TourStates {
  constructor(host) {
    this.host = host;
    this.baseline = new Map(); // element -> Map(attribute -> the page's value, null when absent)
    this.warned = new Set(); // each warning once
    this.marked = [];
  }

  /**
   * Shows step `index` (0-based) of `steps` ([{state}]): sets what its state names (checked values), and returns every
   * other attribute any step sets to the page's value. Returns {targets: the elements the step addresses, in document
   * order; pending: tags of addressed elements not yet defined — apply() again once they are}.
   */
  apply(steps, index) {
    const root = this.host.getRootNode();
    const parsed = steps.map((step) => parseState(step.state));
    const unknown = new Set();
    const touched = new Map(); // element -> Set(attribute), over every step
    const current = new Map(); // element -> Map(attribute -> raw value), this step
    const addressed = [];
    for (const [i, { settings, malformed }] of parsed.entries()) {
      for (const key of malformed) this.warn(`"${key}" in step ${i + 1}'s state names no attribute: write id.attribute=value`);
      for (const { target, name, value } of settings) {
        const elements = findTargets(root, target);
        if (elements.length === 0) unknown.add(target);
        for (const el of elements) {
          if (targetKind(el) === 'other') {
            this.warn(`"${target}" (step ${i + 1}) is a <${el.localName}>, not a Blockscope widget: a tour sets widgets' attributes only`);
            continue;
          }
          if (!touched.has(el)) touched.set(el, new Set());
          touched.get(el).add(name);
          if (i !== index) continue;
          if (!current.has(el)) current.set(el, new Map());
          current.get(el).set(name, value);
          addressed.push(el);
        }
      }
    }
    const fresh = [...unknown].filter((name) => !this.warned.has(`unknown:${name}`));
    if (fresh.length) {
      for (const name of fresh) this.warned.add(`unknown:${name}`);
      console.warn(`<blockscope-tour${this.host.id ? ` id="${this.host.id}"` : ''}>: nothing on the page has the id or tag ` +
        `${fresh.map((n) => `"${n}"`).join(', ')}; the settings for ${fresh.length === 1 ? 'it are' : 'them are'} ignored`);
    }
    // The page's values, before the tour changes any of them.
    for (const [el, names] of touched) {
      if (!this.baseline.has(el)) this.baseline.set(el, new Map());
      const saved = this.baseline.get(el);
      for (const name of names) if (!saved.has(name)) saved.set(name, el.getAttribute(name));
    }
    const pending = new Set();
    for (const [el, names] of touched) {
      const kind = targetKind(el);
      const wanted = current.get(el);
      for (const name of names) {
        let value = this.baseline.get(el).get(name);
        if (wanted?.has(name)) {
          if (kind === 'pending') {
            pending.add(el.localName); // set once the class can check the value
            continue;
          }
          const checked = el.constructor.checkedValue(name, wanted.get(name), { allowRemote: el.hasAttribute('allow-remote-models') });
          if (checked === null) {
            this.warn(`step ${index + 1}: <${el.localName}${el.id ? ` id="${el.id}"` : ''}> takes no ${name}="${wanted.get(name)}" ` +
              '(a tour sets only what a deep link may); the page\'s value stays');
          } else value = checked;
        }
        if (value === null) {
          if (el.hasAttribute(name)) el.removeAttribute(name);
        } else if (el.getAttribute(name) !== value) el.setAttribute(name, value);
      }
    }
    return { targets: ordered(addressed), pending };
  }

  /**
   * What a step's `target` names: ids or tags separated by spaces or commas, each optionally with `::part(name)` (the
   * region of the widget to scroll to: one of its ::part() names). Returns [{el, part}] in document order.
   */
  named(spec) {
    const root = this.host.getRootNode();
    const found = [];
    for (const item of String(spec).split(/[\s,]+/).filter(Boolean)) {
      const [, name, part = null] = item.match(PART_TARGET) ?? [null, item];
      const elements = findTargets(root, name);
      if (elements.length === 0) this.warn(`target "${name}": nothing on the page has that id or tag`);
      for (const el of elements) found.push({ el, part });
    }
    const order = ordered(found.map((t) => t.el));
    return order.map((el) => found.find((t) => t.el === el));
  }

  /**
   * Scrolls `target` ({el, part}) to the top of the view: the first visible element of the widget's shadow DOM with
   * that part name, else the element itself.
   */
  scrollTo({ el, part }, { smooth = true } = {}) {
    let node = el;
    if (part) {
      node = [...(el.shadowRoot?.querySelectorAll('[part]') ?? [])]
        .find((n) => n.getAttribute('part').split(/\s+/).includes(part) && n.getClientRects().length > 0) ?? el;
      if (node === el) this.warn(`<${el.localName}${el.id ? ` id="${el.id}"` : ''}> shows no part "${part}": scrolled to the widget`);
    }
    const margin = node.style.scrollMarginTop;
    if (node !== el) node.style.scrollMarginTop = '0.75rem'; // the page's rule (HIGHLIGHT_CSS) cannot reach a shadow DOM
    node.scrollIntoView({ block: 'start', behavior: smooth ? 'smooth' : 'auto' });
    if (node !== el) node.style.scrollMarginTop = margin;
  }

  /** Marks `elements` as the step's targets (for scroll-margin) and, with `highlight`, outlines them; unmarks the last ones. */
  mark(elements, { highlight = true } = {}) {
    this.unmark();
    for (const el of elements) {
      adoptHighlight(el.getRootNode());
      el.setAttribute(MARK, highlight ? 'target highlight' : 'target');
    }
    this.marked = elements;
  }

  unmark() {
    for (const el of this.marked) el.removeAttribute(MARK);
    this.marked = [];
  }

  warn(text) {
    if (this.warned.has(text)) return;
    this.warned.add(text);
    console.warn(`<blockscope-tour${this.host.id ? ` id="${this.host.id}"` : ''}>: ${text}`);
  }
}
