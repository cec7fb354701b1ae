// tour.js — <blockscope-tour>: a guided tour through the widgets on a page. Each <blockscope-step> child holds a
// caption (any HTML) and a `state` in the deep-link syntax — what `sync-url` writes after the URL's # — so an author
// writes a tour by setting widgets up, copying the hash and writing a sentence about what the reader now sees:
//
//   <blockscope-tour label="A tour of the block">
//     <p>Optional intro: any children that are not steps show before the tour starts.</p>
//     <blockscope-step state="ln.gamma=2&ln.beta=0.5">Caption for step 1…</blockscope-step>
//     <blockscope-step state="block.step=3" target="block">Caption for step 2…</blockscope-step>
//   </blockscope-tour>
//
// A step sets what its state names on the widgets it addresses (by id or tag, checked by each widget class's
// checkedValue, as deep links are: tour-state.js) and returns every other attribute the tour sets to the page's own
// value, so Back shows an earlier step exactly as it was; it scrolls the step's widgets into view and outlines them.
// Next / Back / Close, ← → PageUp PageDown Home End Esc while the tour has the focus, a localized step counter
// (kit/i18n.js, `lang`), a polite live caption. The panel floats at the bottom of the window while the tour runs
// (dock="bottom") or stays in place (dock="none"); tour-view.js draws it.
// Attributes: label, step (1-based, reflects the learner's position; 0 or absent: not started), dock, scroll,
//   highlight, theme, lang, sync-url (the step goes into the URL hash as #<id or tag>.step=N; the hash sets it too).
// Steps: state (the deep-link syntax; a leading "#", or a whole address, is fine), target (ids or tags to scroll to
//   and outline instead of the ones the state addresses, each optionally with ::part(name): the region of the widget
//   to scroll to; "none": neither).
// Event: blockscope-tour-step {step, total, state} (bubbles, composed) after each step is shown; step 0 when it closes.
// Not a BlockscopeElement (it holds no runtime and no widget state of its own), so not in WIDGET_TAGS either.
import { attrSpec, COMMON_ATTRS, hashAttributes, sanitizeAttr } from '../kit/attrs.js';
import { ELEMENT_TAGS, load } from '../kit/elements.js';
import { addEnglish, isLoaded, loadLocale, messages, resolveLocale } from '../kit/i18n.js';
import { STEP_TAG, TOUR_STEP_EVENT, TOUR_TAG } from './tour-names.js';
import { TourStates } from './tour-state.js';
import { TourView } from './tour-view.js';
import en from '../i18n/en/tour.js';

export { STEP_TAG, TOUR_STEP_EVENT, TOUR_TAG };
addEnglish(en); // the tour's English messages travel with its code

const KEYS = { ArrowRight: 'next', PageDown: 'next', ArrowLeft: 'back', PageUp: 'back', Home: 'first', End: 'last', Escape: 'close' };
const TYPING = 'input, textarea, select, [contenteditable=""], [contenteditable="true"]';

export class BlockscopeTour extends HTMLElement {
  static attrs = {
    label: { default: '', doc: 'the tour’s title (default: “Guided tour”, in the tour’s language)' },
    step: { default: 0, min: 0, max: 999, int: true,
      doc: 'the step shown, from 1 (0 or absent: not started); reflects the learner’s position, and setting it shows that step' },
    dock: { default: 'bottom', options: ['bottom', 'none'],
      doc: 'bottom: while the tour runs its panel floats at the bottom of the window; none: it stays in place' },
    scroll: { default: true, doc: 'scroll each step’s widgets into view' },
    highlight: { default: true, doc: 'outline each step’s widgets' },
    theme: COMMON_ATTRS.theme,
    lang: { ...COMMON_ATTRS.lang, doc: 'the language of the tour’s buttons and counter (en, de, es); default: the nearest lang of the page, then the browser’s' },
    'sync-url': { default: false, doc: 'write the step into the URL hash (#<id or tag>.step=N), which also sets it' },
  };

  /** Every attribute's metadata (kit/attrs.js attrSpec), as widgets have it: the generated types read it. */
  static attrSpecs() {
    if (!Object.hasOwn(this, '_specs')) this._specs = Object.fromEntries(Object.entries(this.attrs).map(([n, e]) => [n, attrSpec(e)]));
    return this._specs;
  }

  /** `raw` (from a URL) as a value of attribute `name`, within its limits, or null. */
  static checkedValue(name, raw) {
    const spec = this.attrSpecs()[name];
    return spec ? sanitizeAttr(spec, raw) : null;
  }

  /** The element's members beyond HTMLElement's, as TypeScript (scripts/gen-widget-types.mjs writes them out). */
  static typeMembers = [
    '/** The step shown, from 1 (0: not started); setting it shows that step (0 closes the tour). */',
    'step: number;',
    '/** How many steps the tour has (its <blockscope-step> children). */',
    'readonly total: number;',
    '/** The <blockscope-step> children, in order. */',
    'readonly steps: HTMLElement[];',
    '/** Shows step 1 and moves the focus into the tour\'s panel. */',
    'start(): void;',
    '/** The next step (after the last: closes the tour). */',
    'next(): void;',
    'back(): void;',
    '/** Shows step `step` (from 1; 0 closes the tour). */',
    'go(step: number): void;',
    '/** Ends the tour; the widgets keep the last step\'s state. */',
    'close(): void;',
  ];

  static get observedAttributes() {
    return ['label', 'step', 'dock', 'highlight', 'theme', 'lang'];
  }

  constructor() {
    super();
    this._step = 0;
    this._gen = 0; // changes with every step shown: a step waiting for a widget's definition is not applied late
    this._ready = false;
    this._initialStep = 0;
    this._states = new TourStates(this);
    this._view = new TourView(this, { start: () => this.start(), back: () => this.back(), next: () => this.next(),
      close: () => this.close() });
    this.addEventListener('keydown', (e) => this._onKey(e));
    this._onHash = () => {
      const n = this._hashStep();
      if (n !== null && n !== this._step) this.go(n);
    };
    this._onScheme = () => this._view.applyTheme();
    this._observer = new MutationObserver(() => this._stepsChanged());
  }

  get steps() {
    return [...this.children].filter((c) => c.localName === STEP_TAG);
  }

  get total() {
    return this.steps.length;
  }

  get step() {
    return this._step;
  }

  set step(n) {
    this.go(n);
  }

  connectedCallback() {
    this._view.applyTheme();
    window.addEventListener('hashchange', this._onHash);
    this._scheme ??= matchMedia('(prefers-color-scheme: dark)');
    this._scheme.addEventListener('change', this._onScheme);
    this._observer.observe(this, { childList: true, subtree: true, attributes: true, attributeFilter: ['state', 'target'] });
    if (this._ready) {
      if (this._step) this._show({ scroll: false }); // moved on the page while running: marked again
      else this._render();
      return;
    }
    this._render();
    this._ready = true;
    // A step from the URL hash, else from the page's step attribute: shown once the page's widgets are set up.
    const wanted = this._hashStep() ?? this._initialStep;
    if (wanted > 0) setTimeout(() => this._step === 0 && this.isConnected && this.go(wanted), 0);
  }

  disconnectedCallback() {
    window.removeEventListener('hashchange', this._onHash);
    this._scheme?.removeEventListener('change', this._onScheme);
    this._observer.disconnect();
    this._states.unmark();
  }

  attributeChangedCallback(name, oldValue, value) {
    if (name === 'step') {
      if (this._reflecting) return;
      const n = value === null ? 0 : Number(this.constructor.checkedValue('step', value) ?? 0);
      if (!this._ready) this._initialStep = n;
      else if (n !== this._step) this.go(n);
      return;
    }
    if (!this._ready) return;
    if (name === 'theme') this._view.applyTheme();
    else if (name === 'highlight' && this._step) this._show({ scroll: false });
    else this._render();
  }

  /** Shows step 1 and puts the focus on the panel's Next button. */
  start() {
    this.go(1, { focus: true });
  }

  next() {
    if (this._step >= this.total) this.close();
    else this.go(this._step + 1);
  }

  back() {
    if (this._step > 1) this.go(this._step - 1);
  }

  /** Shows step `n` (1-based, clamped to the steps there are; 0 closes the tour). */
  go(n, { focus = false } = {}) {
    const total = this.total;
    const k = Math.min(total, Math.max(0, Math.round(Number(n)) || 0));
    if (k === 0) {
      this.close();
      return;
    }
    this._step = k;
    this._reflect();
    this._show({ scroll: true });
    if (focus) this._view.focusPanel();
    this._emit();
  }

  /** Ends the tour: the widgets keep what the last step set (starting again begins from the page's own values). */
  close() {
    if (this._step === 0) return;
    const hadFocus = this._view.panelHasFocus();
    this._step = 0;
    this._gen++;
    this._reflect();
    this._states.unmark();
    this._render();
    if (hadFocus) this._view.focusStart();
    this._emit();
  }

  /** Applies the current step's state, marks and scrolls to its widgets, draws it. */
  _show({ scroll }) {
    const gen = ++this._gen;
    const steps = this.steps;
    this._signature = signatureOf(steps);
    const step = steps[this._step - 1];
    const { targets, pending } = this._states.apply(steps.map((s) => ({ state: s.getAttribute('state') })), this._step - 1);
    const target = step.getAttribute('target')?.trim();
    const shown = !target ? targets.map((el) => ({ el, part: null })) : target === 'none' ? [] : this._states.named(target);
    this._states.mark(shown.map((t) => t.el), { highlight: this._bool('highlight') });
    this._render();
    if (scroll && this._bool('scroll') && shown.length) {
      this._states.scrollTo(shown[0], { smooth: !matchMedia('(prefers-reduced-motion: reduce)').matches });
    }
    // A widget whose class is not defined yet cannot check its values: they are set once it is (if still wanted). A
    // Blockscope widget's code is loaded now (the page may load the code of widgets off screen later: elements.js).
    for (const tag of pending) {
      const defined = ELEMENT_TAGS.includes(tag) ? load(tag).catch(() => {}) : customElements.whenDefined(tag);
      defined.then(() => {
        // Again into view: the widgets that arrived meanwhile may have moved it.
        if (gen === this._gen && this._step && customElements.get(tag)) this._show({ scroll });
      });
    }
  }

  _render() {
    const { locale, asked, missing } = resolveLocale(this);
    if (missing && this.hasAttribute('lang') && this._langWarned !== asked) {
      this._langWarned = asked;
      console.warn(`<${TOUR_TAG}> lang="${asked}": Blockscope has no messages in that language; using English`);
    }
    // A language other than English is loaded first (the tour is not shown in English meanwhile; if it cannot be
    // loaded, in English).
    if (!isLoaded(locale)) {
      loadLocale(locale).catch(() => {}).then(() => this._render());
      if (!this._rendered) return;
    }
    this._rendered = true;
    const m = messages(locale);
    const steps = this.steps;
    this._view.render({
      label: this.getAttribute('label') || m.t('tour.label'),
      step: this._step,
      total: steps.length,
      docked: this.getAttribute('dock') !== 'none',
      messages: m,
      stepElement: steps[this._step - 1] ?? null,
      introNodes: [...this.childNodes].filter((n) => (n.nodeType === Node.ELEMENT_NODE ? n.localName !== STEP_TAG
        : n.nodeType === Node.TEXT_NODE && n.data.trim() !== '')),
    });
  }

  /**
   * The tour's children changed: drawn again; when the steps themselves changed (added, removed, a state or target
   * edited), the current step is applied again, within the steps there are. Other edits (a caption's text) leave
   * the widgets alone, and with them whatever the reader changed in them.
   */
  _stepsChanged() {
    const steps = this.steps;
    const signature = signatureOf(steps);
    const changed = signature !== this._signature;
    this._signature = signature;
    if (this._step === 0 || !changed) {
      this._render();
      return;
    }
    if (steps.length === 0) this.close();
    else if (this._step > steps.length) this.go(steps.length);
    else this._show({ scroll: false });
  }

  _onKey(e) {
    if (this._step === 0 || e.altKey || e.ctrlKey || e.metaKey || e.defaultPrevented) return;
    const origin = e.composedPath()[0];
    if (origin instanceof Element && origin.closest(TYPING)) return; // the caption's own fields keep their keys
    const action = KEYS[e.key];
    if (!action) return;
    e.preventDefault();
    if (action === 'first') this.go(1);
    else if (action === 'last') this.go(this.total);
    else if (action === 'next' && this._step >= this.total) return; // a key never closes by stepping past the end
    else this[action]();
  }

  _emit() {
    const step = this.steps[this._step - 1];
    const state = step ? normalized(step.getAttribute('state')) : '';
    this.dispatchEvent(new CustomEvent(TOUR_STEP_EVENT, {
      detail: { step: this._step, total: this.total, state }, bubbles: true, composed: true,
    }));
  }

  /** The step attribute (and, with sync-url, the hash) follows the step shown. */
  _reflect() {
    this._reflecting = true;
    try {
      if (this._step) this.setAttribute('step', String(this._step));
      else this.removeAttribute('step');
    } finally {
      this._reflecting = false;
    }
    if (this.hasAttribute('sync-url')) this._writeHash();
  }

  /** The step a deep link (#<id or tag>.step=N) asks for, checked; null when the hash names none. */
  _hashStep() {
    const raw = hashAttributes(this).step;
    if (raw === undefined) return null;
    const value = this.constructor.checkedValue('step', raw);
    return value === null ? null : Number(value);
  }

  _writeHash() {
    const key = `${this.id || this.localName}.step`;
    const params = new URLSearchParams(location.hash.slice(1));
    params.delete(key);
    if (this._step) params.set(key, String(this._step));
    const hash = params.toString();
    const url = `${location.pathname}${location.search}${hash ? `#${hash}` : ''}`;
    if (url !== `${location.pathname}${location.search}${location.hash}`) history.replaceState(history.state, '', url);
  }

  _bool(name) {
    if (!this.hasAttribute(name)) return this.constructor.attrSpecs()[name].default;
    return this.getAttribute(name) !== 'false';
  }
}

/** What the steps do (their states and targets), to tell an edit of the steps from an edit of a caption. */
function signatureOf(steps) {
  return JSON.stringify(steps.map((s) => [s.getAttribute('state'), s.getAttribute('target')]));
}

/** A step's state as the deep-link syntax alone (what follows the #), as written. */
function normalized(state) {
  const s = String(state ?? '').trim();
  const hash = s.indexOf('#');
  return hash >= 0 ? s.slice(hash + 1) : s;
}

// Defined once (a bundle may be loaded twice on a page). Not through base.js define(): that is for widgets.
if (!customElements.get(TOUR_TAG)) customElements.define(TOUR_TAG, BlockscopeTour);
