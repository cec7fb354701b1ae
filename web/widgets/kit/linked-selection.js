// linked-selection.js — linked selection: the token or attention head a learner points at (hover, or keyboard focus)
// in one view is highlighted in every view of every widget on the page that shows the same forward pass. Not a
// custom element: a small controller each widget that shows tokens owns (<gpt-explorer>, <block-explorer>).
//
// The one channel is the `blockscope-select` event (SELECT_EVENT): the widget pointed at dispatches it (it bubbles
// out of the shadow DOM to `document`), and every linked widget listens for it on `document`. No other global.
//   detail: {kind: 'token', position, id} | {kind: 'head', layer, head} | {kind: null} (pointing ended),
//           pass: {tokens, model} (the forward pass's identity), group (the link-group attribute), source (tag#id)
// A token is linked between passes over the same token ids of the same tokenizer (whatever the weights: a trained
// model and its untrained twin read the same tokens); a head only between passes of the same model too. `position`
// and `layer`/`head` are 0-based; a token pointed at by id alone (a next-token candidate) has position null.
// Widgets with link-group="none" neither send nor hear; different groups do not hear each other.

export const SELECT_EVENT = 'blockscope-select';

/** The attribute every linked widget declares in its `static attrs`. */
export const LINK_GROUP_ATTR = {
  default: 'page',
  doc: 'widgets in the same link group highlight the token or head pointed at in any of them, when they show the same tokens (heads: the same model too); "none" opts out',
};

/** Styles for linked items: an amber outline and wash (--bs-c5 is amber in both palettes, so dark mode shows it too). */
export const LINKED_CSS = `
.linked { outline: 2px solid var(--bs-c5); outline-offset: 1px; background: color-mix(in srgb, var(--bs-c5) 24%, transparent); }
tr.linked > * { background: color-mix(in srgb, var(--bs-c5) 24%, transparent); }
tr.linked { outline-offset: -2px; }
svg .linked-band { fill: var(--bs-c5); fill-opacity: 0.16; stroke: var(--bs-c5); stroke-width: 2; pointer-events: none; }
svg .bar.linked, svg rect.linked { stroke: var(--bs-c5); stroke-width: 3; outline: none; }
svg text.linked { fill: var(--bs-c5); font-weight: 700; }
`;

/** The identity of a token sequence: the tokenizer's identity (kind, vocabulary, files) and the ids. */
export function tokensKey(tokenizerKey, ids) {
  return `${tokenizerKey}|${Array.from(ids).join(',')}`;
}

/** Does selection `sel` (a token) point at position `t` holding id `id`? By position when it has one, else by id. */
export function pointsAtToken(sel, t, id) {
  if (sel?.kind !== 'token') return false;
  return sel.position != null ? sel.position === t : sel.id === id;
}

/** Sets class "linked" and aria-current on the elements `isLinked(el)` accepts, and clears it on the others. */
export function markLinked(elements, isLinked) {
  for (const el of elements) {
    const on = Boolean(isLinked(el));
    el.classList.toggle('linked', on);
    if (on) el.setAttribute('aria-current', 'true');
    else el.removeAttribute('aria-current');
  }
}

export class LinkedSelection {
  #host;
  #views = new Set();
  #pass = null;
  #selection = null;
  #mine = false; // whether the current selection was pointed at in this widget
  #onEvent = (e) => this.#heard(e);

  /** host: the widget element (a BlockscopeElement: its whileConnected() keeps the listener on `document`). */
  constructor(host) {
    this.#host = host;
    host.whileConnected(() => {
      document.addEventListener(SELECT_EVENT, this.#onEvent);
      return () => document.removeEventListener(SELECT_EVENT, this.#onEvent);
    });
  }

  /** The selection shown now (this widget's own or a linked widget's), or null. */
  get selection() {
    return this.#selection;
  }

  /** Registers a view: view(selection) redraws its highlight (selection null clears it). Returns an unregister. */
  addView(view) {
    this.#views.add(view);
    return () => this.#views.delete(view);
  }

  /** The forward pass now shown: {tokens: tokensKey(…), model: a string naming the weights}; null while none. */
  setPass(pass) {
    const same = pass && this.#pass && pass.tokens === this.#pass.tokens && pass.model === this.#pass.model;
    this.#pass = pass;
    if (!same) this.#show(null, false);
  }

  /** The learner points at `sel` ({kind: 'token', position, id} | {kind: 'head', layer, head}) or at nothing (null). */
  point(sel) {
    if (!this.#pass || (!sel && !this.#mine)) return;
    if (sel && sameSelection(sel, this.#selection) && this.#mine) return;
    this.#show(sel, true);
    const group = this.#group();
    if (group === 'none') return;
    const h = this.#host;
    h.dispatchEvent(new CustomEvent(SELECT_EVENT, { bubbles: true, composed: true, detail: {
      kind: sel?.kind ?? null, ...(sel ?? {}), pass: { ...this.#pass }, group,
      source: h.id ? `${h.localName}#${h.id}` : h.localName,
    } }));
  }

  /** Redraws every view's highlight (after a view rebuilt its DOM). */
  refresh() {
    for (const view of this.#views) view(this.#selection);
  }

  #group() {
    return (this.#host.getAttribute('link-group') ?? LINK_GROUP_ATTR.default).trim() || LINK_GROUP_ATTR.default;
  }

  #show(sel, mine) {
    this.#selection = sel;
    this.#mine = mine && sel != null;
    this.refresh();
  }

  #heard(e) {
    if (e.target === this.#host || !this.#pass) return;
    const d = e.detail ?? {};
    const group = this.#group();
    if (group === 'none' || d.group !== group) return;
    const linked = d.pass?.tokens === this.#pass.tokens && (d.kind !== 'head' || d.pass?.model === this.#pass.model);
    const sel = !linked || !d.kind ? null
      : d.kind === 'head' ? { kind: 'head', layer: d.layer, head: d.head }
        : { kind: 'token', position: d.position ?? null, id: d.id ?? null };
    if (sel || !this.#mine) this.#show(sel, false); // someone else points: theirs replaces ours
  }
}

function sameSelection(a, b) {
  if (!a || !b || a.kind !== b.kind) return false;
  return a.kind === 'head' ? a.layer === b.layer && a.head === b.head : a.position === b.position && a.id === b.id;
}

/**
 * Makes the items of `container` (those matching `selector`) point on hover and keyboard focus: pointerover/focusin
 * call link.point(read(item)), leaving the container (pointer or focus) points at nothing. With `roving` the list is
 * one tab stop whose arrow keys, Home and End move the focus between the items (a roving tabindex); call the
 * returned function after re-rendering the items to restore it.
 */
export function pointOnItems(container, link, { selector, read, roving = false }) {
  const itemOf = (e) => {
    const el = e.target.closest?.(selector);
    return el && container.contains(el) ? el : null;
  };
  container.addEventListener('pointerover', (e) => {
    const el = itemOf(e);
    if (el) link.point(read(el));
  });
  container.addEventListener('pointerleave', () => {
    if (!container.contains(container.getRootNode().activeElement)) link.point(null);
  });
  container.addEventListener('focusin', (e) => {
    const el = itemOf(e);
    if (!el) return;
    if (roving) setTabStop(container, selector, el);
    link.point(read(el));
  });
  container.addEventListener('focusout', (e) => {
    if (!container.contains(e.relatedTarget)) link.point(null);
  });
  if (roving) {
    container.addEventListener('keydown', (e) => {
      const items = [...container.querySelectorAll(selector)];
      const i = items.indexOf(itemOf(e));
      if (i < 0) return;
      const moves = { ArrowRight: i + 1, ArrowDown: i + 1, ArrowLeft: i - 1, ArrowUp: i - 1, Home: 0, End: items.length - 1 };
      if (!(e.key in moves)) return;
      e.preventDefault();
      items[Math.max(0, Math.min(items.length - 1, moves[e.key]))].focus();
    });
  }
  return () => {
    if (roving) setTabStop(container, selector, container.querySelector(`${selector}[tabindex="0"]`));
  };
}

/** One tab stop in a roving list: `el` (else the first item) gets tabindex 0, the others -1. */
function setTabStop(container, selector, el) {
  const items = [...container.querySelectorAll(selector)];
  const stop = items.includes(el) ? el : items[0];
  for (const item of items) item.tabIndex = item === stop ? 0 : -1;
}
