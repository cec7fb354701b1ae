// base.js — what every Blockscope widget shares: the custom-element base class (shadow DOM, attributes with
// URL-hash deep links checked against per-attribute metadata, sync-url, the shared runtime connection, events, named
// update levels, the control registry, the widget's language and author layout, and the narrow interface its panels
// get), and define() (elements.js, re-exported). The rest of the kit: attrs.js (attribute metadata), deep-link.js,
// i18n.js (lang, messages, number formats), layout.js (controls/lock/sections, slots), theme.js (palettes, auto
// theme), values.js (fmt and the number parsers, re-exported here), dom.js (h, re-exported), controls.js,
// chart-kit.js, tokens.js. Widgets never touch the wasm module: they call the runtime client.
import { connect } from '../../runtime/client.js';
import { applyState, attrSpec, COMMON_ATTRS, readAttr, sanitizeAttr, stateOf } from './attrs.js';
import { applyHash, writeHash } from './deep-link.js';
import { isLoaded, loadLocale, messages, resolveLocale } from './i18n.js';
import { applyLayout, insertSlots, isLocked, LAYOUT_ATTRS, LAYOUT_CSS, layoutSpecs } from './layout.js';
import { Controls } from './controls.js';
import { EDIT_DELAY_MS, PendingEdits } from './pending-edits.js';
import { FIELD_ERROR_CSS } from './field-error.js';
import { panelPort } from './panel-port.js';
import { BASE_CSS, themeRules } from './theme.js';
import { scheduleConnected } from './start-order.js';
import { hearRestarts, onPage, ownedClient, RESTART_NOTE_MS, WidgetReleased } from './owned-runtime.js';
import { showRuntimeFailure } from './load-failure.js';

export { fmt, parseNumber, parseNumbers, parseRows } from './values.js';
export { COMMON_ATTRS } from './attrs.js';
export { define } from './elements.js';
export { h } from './dom.js';

const DEFAULT_PARTS = { h3: 'title', '.status': 'status', '.chart': 'chart' };

/**
 * What an update must redo, in increasing order (invalidate(level), update(level)): REDRAW the numbers already
 * computed; RECOMPUTE them (a forward pass) and redraw; REBUILD the model or data behind them, recompute, redraw.
 */
export const UPDATE = Object.freeze({ REDRAW: 1, RECOMPUTE: 2, REBUILD: 3 });

/**
 * Base class of every widget. Subclasses define `static attrs` (name -> default, or name -> {default, min, max,
 * options, …}: see attrSpec) and setup()/start(). Besides its own attributes every widget takes `theme`
 * (auto | light | dark), `sync-url` and `allow-remote-models`.
 */
export class BlockscopeElement extends HTMLElement {
  static attrs = {};
  /** Control groups (name -> what it holds) for controls="…" and lock="…" (layout.js). */
  static controlGroups = {};
  /** Sections (part name -> what it shows) for sections="…" (layout.js). */
  static sections = {};
  static get observedAttributes() {
    return [...Object.keys(this.attrs), 'theme', 'lang', ...LAYOUT_ATTRS];
  }

  /** Every attribute's metadata (see attrSpec), by name: its own, then controls, lock and sections (layout.js). */
  static attrSpecs() {
    if (!Object.hasOwn(this, '_specs')) {
      this._specs = Object.fromEntries([...Object.entries(this.attrs), ...Object.entries(layoutSpecs(this))]
        .map(([name, entry]) => [name, attrSpec(entry)]));
    }
    return this._specs;
  }

  /**
   * `raw` (from a URL: a deep link or embed.html's query) as a value for attribute `name`, or null when the
   * widget has no such attribute, the value is outside its control's limits (see sanitizeAttr), or it is a URL
   * and remote models are not allowed.
   */
  static checkedValue(name, raw, { allowRemote = false } = {}) {
    if (name === 'theme' || name === 'lang') return sanitizeAttr(COMMON_ATTRS[name], raw);
    const spec = this.attrSpecs()[name];
    if (!spec || (spec.url && !allowRemote && !spec.names?.includes(String(raw)))) return null;
    return sanitizeAttr(spec, raw);
  }

  constructor() {
    super();
    // Start the worker and its wasm download now, in parallel with building the widget's DOM.
    connect().catch(() => {}); // failures surface where the widget awaits runtime()
    this.attachShadow({ mode: 'open' });
    this._connected = false;
    this._onHash = () => this.applyHash();
    this._onScheme = () => this.applyTheme();
    this._themeStyle = document.createElement('style');
    this._edits = new PendingEdits(this.shadowRoot); // debounce(): edits applied before any other action
    this._whileConnected = []; // whileConnected(): {start, stop}
    this._lifetime = 0; // changes each time the element leaves the page: runtime objects asked for before are not kept
    this._released = false; // off the page, its runtime objects freed
  }

  /** The controls bound to this element's attributes (controls.js: attrField, attrSlider, attrSelect). */
  get boundControls() {
    this._controls ??= new Controls(this);
    return this._controls;
  }

  /**
   * The widget's attributes as one object, typed by their specs ({min: -5, derivative: true, …}); set it to change
   * several at once, with lists and rows of numbers as arrays ({tokens: [[1, 3], [5, 7]]}) — the property frameworks
   * (React 19, Vue, Svelte) and scripts pass data through. See attrs.js applyState.
   */
  get state() {
    return stateOf(this);
  }
  set state(value) {
    applyState(this, value);
  }

  /** The element's tag, e.g. "gelu-explorer". */
  get tag() {
    return this.localName;
  }

  /**
   * Sets attribute `name` (true: present, false: "false") for the learner's edit; the element reacts as to any
   * attribute change. Refused (returns false) when the author locked the control group of `name` (lock="…").
   */
  set(name, value) {
    this.flushEdits(); // a pending edit (typing) comes first: it was made first
    if (this.locked(name)) return false;
    this.setAttribute(name, value === true ? '' : String(value));
    return true;
  }

  /** Whether the learner may not change attribute (or control group) `name`: lock="…" names its group. */
  locked(name) {
    return isLocked(this, this.specs()[name]?.group ?? name);
  }

  /** The widget's messages (i18n.js), in the language resolved when it was built. */
  get messages() {
    this._messages ??= messages(resolveLocale(this).locale);
    return this._messages;
  }

  /** Message `key` in the widget's language, placeholders filled from `params` (i18n.js Messages.t). */
  t(key, params) {
    return this.messages.t(key, params);
  }

  /** A number for reading, in the widget's language (`digits` fixed decimals; i18n.js Messages.num). */
  num(value, digits) {
    return this.messages.num(value, digits);
  }

  /** Every attribute's spec (attrs.js attrSpec), by name. */
  specs() {
    return this.constructor.attrSpecs();
  }

  /** Whether `el` (in this element's shadow root) has the focus. */
  isFocused(el) {
    return this.shadowRoot.activeElement === el;
  }

  /** Whether the learner is editing field `el`: it has the focus or an edit not yet applied (debounce). Code that
   * writes attribute values into fields leaves such a field alone. */
  isEditing(el) {
    return this.isFocused(el) || this._edits.has(el);
  }

  /** A message for the learner: the status line by default (a widget may show it elsewhere). */
  report(message, { error = false } = {}) {
    this.status(message, { error });
  }

  /**
   * What a panel (a helper class that draws part of this element) may use of it, plus `extra`, the element's own
   * offers to that panel (panel-port.js). Panels get this instead of the element.
   */
  panelPort(extra = {}) {
    return panelPort(this, extra);
  }

  connectedCallback() {
    // `state` set by a script before the widget's code arrived (each widget is loaded when the page first uses its
    // tag) is an own property hiding the setter: pass it through the setter now.
    if (Object.hasOwn(this, 'state')) {
      const value = this.state;
      delete this.state;
      this.state = value;
    }
    if (this._connected && this._released) {
      this._released = false;
      this.invalidate(UPDATE.REBUILD); // back on the page after its model was freed: rebuild it
    }
    // The theme, and the first time also setup() (build()) and start() (begin()), follow in a microtask (start-order.js).
    scheduleConnected(this);
    onPage.add(this);
    window.addEventListener('hashchange', this._onHash);
    this._schemeQuery ??= matchMedia('(prefers-color-scheme: dark)');
    this._schemeQuery.addEventListener('change', this._onScheme);
    for (const w of this._whileConnected) w.stop ??= w.start() ?? (() => {});
  }

  /** Builds the widget's DOM (setup()) once; start-order.js calls this when the widget is first connected. */
  build() {
    if (this._built) return;
    this._built = true;
    // The base styles come first, so a widget's own <style> rules win at equal specificity.
    this.shadowRoot.prepend(Object.assign(document.createElement('style'), { textContent: BASE_CSS + LAYOUT_CSS + FIELD_ERROR_CSS }),
      this._themeStyle);
    const { locale, asked, missing } = resolveLocale(this);
    this._messages = messages(locale); // English until the locale's chunk is loaded: then relocalize()
    if (!isLoaded(locale)) this.whenLocale(locale).then(() => this.relocalize());
    if (missing && this.hasAttribute('lang')) {
      console.warn(`<${this.localName}> lang="${asked}": Blockscope has no messages in that language; using English`);
    }
    this.setup();
    this.markParts();
    insertSlots(this.shadowRoot);
    applyLayout(this);
  }

  /**
   * The widget's language changed (its lang attribute): builds its DOM again in the new language and starts it
   * again. What the learner had typed into the widget is kept only where an attribute holds it.
   */
  relocalize() {
    if (!this._built || resolveLocale(this).locale === this._messages?.locale) return;
    for (const w of this._whileConnected) w.stop?.();
    this._whileConnected = [];
    this._controls = null;
    this.shadowRoot.replaceChildren();
    this._built = false;
    this.build();
    this.applyTheme();
    if (this._connected) this.start();
  }

  /**
   * Starts the widget (after build()); start-order.js calls this once, when the widget's turn comes. Returns a
   * promise settled once start() and the updates it asked for have run (the widget shows its first numbers or an
   * error, or a placeholder while it waits to be scrolled to).
   */
  begin() {
    this.begun = true;
    // A language other than English is a chunk of its own: load it first, so the widget is built in it once.
    const { locale } = resolveLocale(this);
    if (!isLoaded(locale)) return this.whenLocale(locale).then(() => this._begin());
    return this._begin();
  }

  /** Loads `locale`'s messages; if they cannot be loaded, says so once and goes on in English. */
  whenLocale(locale) {
    return loadLocale(locale).catch((err) => {
      console.warn(`<${this.localName}>: the ${locale} messages could not be loaded (${err.message}); using English`);
    });
  }

  _begin() {
    this.build();
    this.applyHash(); // before _connected: deep-linked attributes are read by start(), not re-dispatched
    this._connected = true;
    return Promise.resolve(this.start()).then(() => this._draining).catch(() => {});
  }

  disconnectedCallback() {
    window.removeEventListener('hashchange', this._onHash);
    this._schemeQuery?.removeEventListener('change', this._onScheme);
    for (const w of this._whileConnected) {
      w.stop?.();
      w.stop = null;
    }
    // Free the worker-side objects once the element has really left the page (a DOM move disconnects and
    // reconnects at once, keeping them). Objects still on their way are disposed when they arrive (owned-runtime.js).
    setTimeout(() => {
      if (this.isConnected || !this._connected) return; // moved, or never set up
      // What the learner had typed is kept in its attribute (for a return to the page), without an update now.
      this._quiet = true;
      try {
        this._edits.flush();
      } finally {
        this._quiet = false;
      }
      onPage.delete(this);
      this._lifetime++;
      this._released = true;
      this.release();
    }, 0);
  }

  /**
   * The runtime's worker died and was replaced: the objects this widget held are gone. Forgets them (as when it
   * leaves the page) and rebuilds, saying so.
   */
  runtimeRestarted(reason) {
    if (!this._connected || this._released) return;
    this._lifetime++;
    this.release();
    this._restarted = { reason, until: Date.now() + RESTART_NOTE_MS };
    this.status(this.t('kit.rebuilding'));
    this.invalidate(UPDATE.REBUILD);
  }

  /**
   * Frees the worker-side objects the widget holds, once it has left the page (it rebuilds them with
   * invalidate(UPDATE.REBUILD) when it comes back). The default holds nothing; a widget that keeps runtime objects
   * overrides this. Objects requested but not yet arrived need nothing here: they are disposed on arrival.
   */
  release() {
    return false;
  }

  /**
   * Runs start() while the widget is on the page: now (when connected) and on every reconnection; the function it
   * returns (e.g. the one watchWidth returns) runs on every disconnection. For observers and window listeners.
   */
  whileConnected(start) {
    const entry = { start, stop: null };
    this._whileConnected.push(entry);
    if (this.isConnected) entry.stop = start() ?? (() => {});
  }

  /**
   * Sets this.visible and rebuilds (invalidate(UPDATE.REBUILD)) once the widget comes within 600 px of the viewport, or at once
   * with loading="eager", without IntersectionObserver, or with {now: true} (the user asked for it). For widgets
   * whose start() loads something heavy. Returns true if it became visible now; else the caller shows a placeholder.
   */
  showWhenNearViewport({ now = false } = {}) {
    this.observer?.disconnect();
    const show = () => {
      this.observer?.disconnect();
      this.visible = true;
      this.invalidate(UPDATE.REBUILD);
    };
    if (now || this.visible || this.attr('loading') === 'eager' || typeof IntersectionObserver === 'undefined') {
      show();
      return true;
    }
    this.observer = new IntersectionObserver((entries) => entries.some((e) => e.isIntersecting) && show(),
      { rootMargin: '600px 0px' });
    this.observer.observe(this);
    return false;
  }

  /**
   * Runs fn (an edit: typically setting an attribute) once `ms` have passed without another call for the same `key`
   * (e.g. typing in a prompt box) — or sooner: a pending edit is applied before anything else the learner does on the
   * widget (another of its controls pressed, the field left, another attribute set by set(); pending-edits.js),
   * so what the learner typed is never lost. `source`: the field the edit comes from (see isEditing).
   */
  debounce(key, fn, { ms = EDIT_DELAY_MS, source = null } = {}) {
    this._edits.defer(key, fn, { ms, source });
  }

  /** Applies every pending edit (debounce) now. */
  flushEdits() {
    this._edits.flush();
  }

  attributeChangedCallback(name, oldValue, newValue) {
    if (name === 'theme') {
      if (this.isConnected) this.applyTheme();
      return;
    }
    if (name === 'lang') {
      this.whenLocale(resolveLocale(this).locale).then(() => this.relocalize());
      return;
    }
    if (LAYOUT_ATTRS.includes(name)) {
      if (this._built) applyLayout(this);
      return;
    }
    if (newValue !== null) readAttr(this, name); // a refused value is reported now
    if (!this._connected || this._quiet || oldValue === newValue) return;
    this.attributeChanged(name);
    if (this.hasAttribute('sync-url')) this.scheduleUrlSync();
  }

  /**
   * Resolves theme="auto" (the default) against the host page, or takes theme="light" / "dark", and applies
   * the palette; `resolvedTheme` says which. Also picks the page's font unless it is the browser's default serif.
   */
  applyTheme() {
    this.setThemeCss(this.themeCss());
  }

  /** The theme applyTheme() resolves, as the rules of the theme <style> (reads the page; sets resolvedTheme). */
  themeCss() {
    const { theme, css } = themeRules(this);
    this.resolvedTheme = theme;
    return css;
  }

  setThemeCss(css) {
    if (this._themeStyle.textContent !== css) this._themeStyle.textContent = css;
  }

  /** Gives the main regions built by setup() their ::part() names (title, status, chart) unless they have one. */
  markParts() {
    for (const [selector, part] of Object.entries(DEFAULT_PARTS)) {
      for (const el of this.shadowRoot.querySelectorAll(selector)) if (!el.hasAttribute('part')) el.setAttribute('part', part);
    }
  }

  /** Applies attributes deep-linked through the URL hash (deep-link.js). */
  applyHash() {
    applyHash(this);
  }

  /** With `sync-url`: writes the attributes that differ from their defaults into the hash, 300 ms after the last change. */
  scheduleUrlSync() {
    clearTimeout(this._syncTimer);
    this._syncTimer = setTimeout(() => writeHash(this), 300);
  }

  /**
   * The value attribute `name` has when the page leaves it out: its spec's default. A widget whose defaults depend on
   * another attribute overrides this (<gpt-explorer model="sort"> brings the sort model's prompt); attr(), numAttr()
   * and boolAttr() ask it, so controls and computations see the same value.
   */
  defaultOf(name) {
    return this.constructor.attrSpecs()[name]?.default;
  }
  /** String attribute with its default; a value its spec refuses is replaced (reported once: attrs.js readAttr). */
  attr(name) {
    return readAttr(this, name, 'text');
  }
  /** Numeric attribute: the default when missing or not a number, else within its spec's limits (attrs.js readAttr). */
  numAttr(name) {
    return readAttr(this, name, 'number');
  }
  /** Boolean attribute: present (and not "false") means true. */
  boolAttr(name) {
    return readAttr(this, name, 'boolean');
  }

  /**
   * The shared runtime (a Web Worker behind client.js), seen through this element: every runtime object it
   * resolves to belongs to the element, and one that arrives after the element left the page is disposed (the
   * request then fails with WidgetReleased, which update() errors ignore).
   */
  runtime() {
    return connect().then((client) => {
      hearRestarts(client);
      if (this._owned?.client !== client) {
        const owner = { tag: this.tag, lifetime: () => this._lifetime, onPage: () => !this._released };
        this._owned = { client, view: ownedClient(client, owner) };
      }
      return this._owned.view;
    });
  }

  /** Dispatches `blockscope-<name>` (bubbles, crosses the shadow boundary). */
  emit(name, detail) {
    this.dispatchEvent(new CustomEvent(`blockscope-${name}`, { detail, bubbles: true, composed: true }));
  }

  /** Shows a message in the widget's status line; errors are announced politely and styled. */
  status(message, { error = false } = {}) {
    const el = this.shadowRoot.querySelector('.status');
    if (!el) return;
    // For a while after a worker restart every status says so (the rebuilt widget's own status would hide it).
    const restarted = this._restarted && Date.now() < this._restarted.until ? this._restarted.reason : null;
    el.textContent = restarted ? this.t('kit.restarted', { message, reason: restarted }) : message;
    el.classList.toggle('error', error);
    showRuntimeFailure(this.shadowRoot, error ? message : null); // a refused .wasm or glue: also said at the top
  }

  /**
   * Schedules an update of at least `level` (UPDATE: each level includes the work of those below it). Requests
   * made while an update runs coalesce into one more run at the highest level asked for; updates never overlap.
   * Errors are shown in the status line.
   */
  invalidate(level = UPDATE.REDRAW) {
    this._pending = Math.max(this._pending ?? 0, level);
    this._draining ??= this._drain().finally(() => {
      this._draining = null;
    });
    return this._draining;
  }

  async _drain() {
    await Promise.resolve();
    while (this._pending) {
      const level = this._pending;
      this._pending = 0;
      try {
        await this.update(level);
      } catch (err) {
        if (!(err instanceof WidgetReleased)) this.status(err.message, { error: true });
      }
    }
    if (this._built) applyLayout(this); // an update may have rebuilt controls or re-enabled locked ones
  }

  /** The work behind invalidate(level), level one of UPDATE (override). */
  async update() {}

  /** Builds the DOM once (override). */
  setup() {}
  /** Async start after setup (override): typically fetch data from the runtime and render. */
  async start() {}
  /** Called when an observed attribute changes after connection (override). */
  attributeChanged() {
    this.start();
  }
}
