// base.js — what every Blockscope widget shares: the custom-element base class (shadow DOM, attributes with
// URL-hash deep links checked against per-attribute metadata, sync-url, the shared runtime connection, events), the
// theme (auto from the host page / light / dark, focus, reduced motion) and small generic helpers (fmt, parseNumber(s),
// parseRows, h). Chart helpers live in chart-kit.js. Widgets never touch the wasm module: they call the runtime client.
import { connect } from '../../runtime/client.js';
import { scheduleConnected } from './start-order.js';

/** The dark palette; the light one is BASE_CSS's default. Placed in a second <style> when the theme resolves dark. */
const DARK_VARS = `--bs-fg: #e6edf3; --bs-bg: #0d1117; --bs-muted: #9198a1; --bs-border: #3d444d; --bs-panel: #161b22;
  --bs-accent: #58a6ff; --bs-c1: #58a6ff; --bs-c2: #ff7b72; --bs-c3: #56d364; --bs-c4: #d2a8ff; --bs-c5: #e3b341;
  --bs-focus: #ffa657; color-scheme: dark;`;

/**
 * Theme and shared component styles, placed first in every widget's shadow root. Host pages override any
 * --bs-* property on the element (`gelu-explorer { --bs-accent: teal }`): outer rules beat :host rules.
 */
export const BASE_CSS = `
:host {
  --bs-fg: #1b1f24; --bs-bg: #ffffff; --bs-muted: #57606a; --bs-border: #d0d7de; --bs-panel: #f6f8fa;
  --bs-accent: #0b5cad; --bs-c1: #0b5cad; --bs-c2: #b3261e; --bs-c3: #1a7f37; --bs-c4: #8250df; --bs-c5: #9a6700;
  --bs-focus: #d1242f; color-scheme: light;
  display: block; position: relative; box-sizing: border-box; max-width: 100%; color: var(--bs-fg); background: var(--bs-bg);
  font-size: var(--bs-font-size, 15px); line-height: 1.45; font-family: var(--bs-font, inherit);
  border: 1px solid var(--bs-border); border-radius: var(--bs-radius, 8px); padding: 0.75rem; container-type: inline-size;
}
*, *::before, *::after { box-sizing: border-box; }
h3 { font-size: 1.05rem; margin: 0 0 0.5rem; }
p { margin: 0.25rem 0 0.5rem; }
.muted { color: var(--bs-muted); }
.row { display: flex; flex-wrap: wrap; gap: 0.5rem 1rem; align-items: center; margin: 0.4rem 0; }
label { cursor: pointer; }
input, select, button, textarea { font: inherit; color: inherit; background: var(--bs-bg); border: 1px solid var(--bs-border); border-radius: 6px; }
input[type="text"], input[type="number"], textarea, select { padding: 0.25rem 0.4rem; max-width: 100%; }
input[type="range"] { accent-color: var(--bs-accent); max-width: 100%; }
input[type="checkbox"] { accent-color: var(--bs-accent); }
button { padding: 0.3rem 0.75rem; cursor: pointer; background: var(--bs-panel); }
button:disabled { cursor: not-allowed; opacity: 0.6; }
:focus-visible { outline: 3px solid var(--bs-focus); outline-offset: 2px; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; max-width: 100%; }
th, td { padding: 0.15rem 0.5rem; text-align: right; border-bottom: 1px solid var(--bs-border); }
th:first-child, td:first-child { text-align: left; }
.scroll { overflow-x: auto; max-width: 100%; position: relative; }
.num { font-variant-numeric: tabular-nums; font-family: ui-monospace, "SF Mono", Menlo, Consolas, monospace; }
.error { color: var(--bs-c2); font-weight: 600; }
.status { min-height: 1.45em; }
svg { display: block; width: 100%; max-width: 760px; height: auto; overflow: visible; }
svg text { fill: var(--bs-fg); font-size: 12px; }
svg .axis path, svg .axis line { stroke: var(--bs-muted); }
svg .axis text { fill: var(--bs-muted); }
svg .grid line { stroke: var(--bs-border); stroke-opacity: 0.7; }
svg .axis-label { fill: var(--bs-fg); font-size: 12px; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
@media (prefers-reduced-motion: no-preference) { .animate { transition: all 150ms ease-out; } }
`;

/** Formats a core value for display with fixed decimals (−0 shown as 0). */
export function fmt(value, digits = 4) {
  if (!Number.isFinite(value)) return String(value);
  const s = value.toFixed(digits);
  return /^-0\.?0*$/.test(s) ? s.slice(1) : s.replace('-', '−');
}

/**
 * Parses one typed number (a "−" minus sign is accepted); throws an Error naming it (`name`, e.g. "entry 2" or
 * "W₁ row 3, column 2") when it is empty or not a finite number. The one number parser every widget uses.
 */
export function parseNumber(text, name) {
  const raw = String(text).trim();
  if (raw === '') throw new Error(`${name} is empty`);
  const v = Number(raw.replace(/−/g, '-'));
  if (!Number.isFinite(v)) throw new Error(`${name} ("${raw}") is not a number`);
  return v;
}

/** Parses "1, 3, 5, 7" (commas/spaces) into numbers; throws an Error naming the bad entry. */
export function parseNumbers(text) {
  const parts = String(text).trim().split(/[\s,;]+/).filter(Boolean);
  if (parts.length === 0) throw new Error('enter at least one number');
  return parts.map((p, i) => parseNumber(p, `entry ${i + 1}`));
}

/**
 * Parses rows of numbers, "1, 3; 4, 5" (rows split by ";", "|" or newlines), each with parseNumbers; throws an Error
 * naming the row (`${rowName} ${t + 1}: …`). Row lengths and limits are the caller's to check.
 */
export function parseRows(text, rowName) {
  const parts = String(text).split(/[;|\n]/).map((s) => s.trim()).filter(Boolean);
  if (parts.length === 0) throw new Error('enter at least one token vector');
  return parts.map((p, t) => {
    try {
      return parseNumbers(p);
    } catch (err) {
      throw new Error(`${rowName} ${t + 1}: ${err.message}`);
    }
  });
}

/**
 * Deep links: the URL hash can set widget attributes, addressed by element id or tag name,
 * e.g. `#gelu.min=-5&gelu.derivative=true` or `#gelu-explorer.max=4`. Returns the raw name -> value pairs;
 * BlockscopeElement.applyHash checks them against the attribute metadata before setting anything.
 */
export function hashAttributes(element) {
  const out = {};
  const hash = typeof location === 'undefined' ? '' : location.hash.slice(1);
  if (!hash) return out;
  const params = new URLSearchParams(hash);
  const names = [element.id, element.localName].filter(Boolean);
  for (const [key, value] of params) {
    const dot = key.lastIndexOf('.');
    if (dot > 0 && names.includes(key.slice(0, dot))) out[key.slice(dot + 1)] = value;
  }
  return out;
}

/**
 * One attribute's metadata from a `static attrs` entry: either a plain default (`min: -3`) or
 * `{default, min, max, int, options, url, doc}`. The type follows the default (number, boolean, string) unless
 * `type` says otherwise; `options` makes it an enumeration; `url: true` marks a URL that deep links may not set.
 */
export function attrSpec(entry) {
  const spec = entry !== null && typeof entry === 'object' ? { ...entry } : { default: entry };
  spec.type ??= typeof spec.default === 'number' ? 'number' : typeof spec.default === 'boolean' ? 'boolean' : 'string';
  return spec;
}

/**
 * A value for an attribute from an untrusted source (a URL), within the limits its control has: numbers are
 * clamped to [min, max] (rounded when `int`), enumerations must be one of `options`, booleans "", "true" or
 * "false". Returns the string to set, or null to reject it.
 */
export function sanitizeAttr(spec, raw) {
  const text = String(raw);
  if (spec.options) return spec.options.map(String).includes(text) ? text : null;
  if (spec.type === 'boolean') return ['', 'true', 'false'].includes(text) ? text : null;
  if (spec.type === 'number') {
    let v = Number(text.replace('−', '-'));
    if (text.trim() === '' || !Number.isFinite(v)) return null;
    if (spec.int) v = Math.round(v);
    if (spec.min != null) v = Math.max(spec.min, v);
    if (spec.max != null) v = Math.min(spec.max, v);
    return String(v);
  }
  return text.length <= (spec.maxLength ?? 2000) ? text : null;
}

// A 1×1 canvas turns any CSS colour syntax (rgb, oklch, color-mix, …) into sRGB bytes.
let colorProbe = null;
function rgba(color) {
  colorProbe ??= document.createElement('canvas').getContext('2d', { willReadFrequently: true });
  colorProbe.clearRect(0, 0, 1, 1);
  colorProbe.fillStyle = '#000';
  colorProbe.fillStyle = color;
  colorProbe.fillRect(0, 0, 1, 1);
  return colorProbe.getImageData(0, 0, 1, 1).data;
}

/** Relative luminance (WCAG) of sRGB bytes. */
function luminance([r, g, b]) {
  const lin = (c) => ((c /= 255) <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

/**
 * The host page's theme around `element`: the luminance of the nearest ancestor's opaque background (crossing
 * shadow roots); with none, the canvas, which is dark only when the page declares a dark color-scheme and the
 * reader prefers dark.
 */
export function pageTheme(element) {
  for (let n = element.parentElement ?? element.getRootNode().host; n; n = n.parentElement ?? n.getRootNode().host) {
    const bg = getComputedStyle(n).backgroundColor;
    if (!bg || bg === 'transparent' || bg === 'rgba(0, 0, 0, 0)') continue;
    const px = rgba(bg);
    if (px[3] < 128) continue; // mostly see-through: the colour behind it decides
    return luminance(px) < 0.18 ? 'dark' : 'light'; // ≈ where white text starts to contrast better than black
  }
  const meta = document.querySelector('meta[name="color-scheme"]')?.content ?? '';
  const scheme = `${getComputedStyle(document.documentElement).colorScheme} ${meta}`;
  return /dark/.test(scheme) && matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}

const UA_DEFAULT_FONT = /^("?Times New Roman"?|Times|serif)$/i;
const SYSTEM_FONT = 'system-ui, -apple-system, "Segoe UI", sans-serif';
const DEFAULT_PARTS = { h3: 'title', '.status': 'status', '.chart': 'chart' };

/**
 * Base class of every widget. Subclasses define `static attrs` (name -> default, or name -> {default, min, max,
 * options, …}: see attrSpec) and setup()/start(). Besides its own attributes every widget takes `theme`
 * (auto | light | dark), `sync-url` and `allow-remote-models`.
 */
export class BlockscopeElement extends HTMLElement {
  static attrs = {};
  static get observedAttributes() {
    return [...Object.keys(this.attrs), 'theme'];
  }

  /** Every attribute's metadata (see attrSpec), by name. */
  static attrSpecs() {
    if (!Object.hasOwn(this, '_specs')) {
      this._specs = Object.fromEntries(Object.entries(this.attrs).map(([name, entry]) => [name, attrSpec(entry)]));
    }
    return this._specs;
  }

  /**
   * `raw` (from a URL: a deep link or embed.html's query) as a value for attribute `name`, or null when the
   * widget has no such attribute, the value is outside its control's limits (see sanitizeAttr), or it is a URL
   * and remote models are not allowed.
   */
  static checkedValue(name, raw, { allowRemote = false } = {}) {
    if (name === 'theme') return ['auto', 'light', 'dark'].includes(raw) ? raw : null;
    const spec = this.attrSpecs()[name];
    if (!spec || (spec.url && !allowRemote)) return null;
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
    this._debounced = new Map(); // debounce(): key -> pending timer
    this._whileConnected = []; // whileConnected(): {start, stop}
  }

  connectedCallback() {
    if (this._connected && this._released) {
      this._released = false;
      this.invalidate(3); // back on the page after its model was freed: rebuild it
    }
    // The theme, and the first time also setup() (build()) and start() (begin()), follow in a microtask (start-order.js).
    scheduleConnected(this);
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
    this.shadowRoot.prepend(Object.assign(document.createElement('style'), { textContent: BASE_CSS }), this._themeStyle);
    this.setup();
    this.markParts();
  }

  /**
   * Starts the widget (after build()); start-order.js calls this once, when the widget's turn comes. Returns a
   * promise settled once start() and the updates it asked for have run (the widget shows its first numbers or an
   * error, or a placeholder while it waits to be scrolled to).
   */
  begin() {
    this.build();
    this.begun = true;
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
    // reconnects at once, keeping them).
    setTimeout(() => {
      if (this.isConnected || !this._connected) return; // moved, or never set up
      for (const timer of this._debounced.values()) clearTimeout(timer);
      this._debounced.clear();
      if (this.release()) this._released = true;
    }, 0);
  }

  /**
   * Frees the worker-side objects the widget holds, once it has left the page, and returns true if there were
   * any (the widget then rebuilds them with invalidate(3) when it comes back). The default holds nothing; a widget
   * that keeps runtime objects overrides this.
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
   * Sets this.visible and rebuilds (invalidate(3)) once the widget comes within 600 px of the viewport, or at once
   * with loading="eager", without IntersectionObserver, or with {now: true} (the user asked for it). For widgets
   * whose start() loads something heavy. Returns true if it became visible now; else the caller shows a placeholder.
   */
  showWhenNearViewport({ now = false } = {}) {
    this.observer?.disconnect();
    const show = () => {
      this.observer?.disconnect();
      this.visible = true;
      this.invalidate(3);
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
   * Runs fn once `ms` have passed without another call for the same `key` (e.g. typing in a prompt box).
   * Pending calls are dropped when the widget leaves the page (not on a DOM move).
   */
  debounce(key, fn, ms = 200) {
    clearTimeout(this._debounced.get(key));
    this._debounced.set(key, setTimeout(() => {
      this._debounced.delete(key);
      fn();
    }, ms));
  }

  attributeChangedCallback(name, oldValue, newValue) {
    if (name === 'theme') {
      if (this.isConnected) this.applyTheme();
      return;
    }
    if (!this._connected || oldValue === newValue) return;
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
    const asked = this.getAttribute('theme');
    this.resolvedTheme = asked === 'light' || asked === 'dark' ? asked : pageTheme(this);
    const family = getComputedStyle(this.parentElement ?? document.body).fontFamily.trim();
    const font = UA_DEFAULT_FONT.test(family) ? `--bs-font: var(--bs-font-fallback, ${SYSTEM_FONT});` : '';
    const dark = this.resolvedTheme === 'dark' ? DARK_VARS : '';
    return dark || font ? `:host { ${dark} ${font} }` : '';
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

  /**
   * Applies attributes deep-linked through the URL hash, within their controls' limits (sanitizeAttr); a URL
   * attribute (a model to download) only with the author's opt-in `allow-remote-models`.
   */
  applyHash() {
    const allowRemote = this.hasAttribute('allow-remote-models');
    for (const [name, raw] of Object.entries(hashAttributes(this))) {
      const value = this.constructor.checkedValue(name, raw, { allowRemote });
      if (value !== null && value !== this.getAttribute(name)) this.setAttribute(name, value);
    }
  }

  /** With `sync-url`: writes the attributes that differ from their defaults into the hash, 300 ms after the last change. */
  scheduleUrlSync() {
    clearTimeout(this._syncTimer);
    this._syncTimer = setTimeout(() => this.writeHash(), 300);
  }

  writeHash() {
    const prefix = this.id || this.localName;
    const params = new URLSearchParams(location.hash.slice(1));
    for (const key of [...params.keys()]) if (key.startsWith(`${prefix}.`)) params.delete(key);
    for (const [name, spec] of Object.entries(this.constructor.attrSpecs())) {
      const value = this.getAttribute(name);
      if (value === null || value === String(spec.default)) continue;
      if (spec.url && !this.hasAttribute('allow-remote-models')) continue;
      params.set(`${prefix}.${name}`, value);
    }
    const hash = params.toString();
    const url = `${location.pathname}${location.search}${hash ? `#${hash}` : ''}`;
    if (url !== `${location.pathname}${location.search}${location.hash}`) history.replaceState(history.state, '', url);
  }

  /** String attribute with the class default. */
  attr(name) {
    return this.getAttribute(name) ?? String(this.constructor.attrSpecs()[name]?.default ?? '');
  }
  /** Numeric attribute; falls back to the default when missing or not a number. */
  numAttr(name) {
    const v = Number(this.getAttribute(name));
    return this.hasAttribute(name) && Number.isFinite(v) ? v : Number(this.constructor.attrSpecs()[name]?.default);
  }
  /** Boolean attribute: present (and not "false") means true. */
  boolAttr(name) {
    if (!this.hasAttribute(name)) return Boolean(this.constructor.attrSpecs()[name]?.default);
    return this.getAttribute(name) !== 'false';
  }

  /** The shared runtime (a Web Worker behind client.js). */
  runtime() {
    return connect();
  }

  /** Dispatches `blockscope-<name>` (bubbles, crosses the shadow boundary). */
  emit(name, detail) {
    this.dispatchEvent(new CustomEvent(`blockscope-${name}`, { detail, bubbles: true, composed: true }));
  }

  /** Shows a message in the widget's status line; errors are announced politely and styled. */
  status(message, { error = false } = {}) {
    const el = this.shadowRoot.querySelector('.status');
    if (!el) return;
    el.textContent = message;
    el.classList.toggle('error', error);
  }

  /**
   * Schedules an update of at least `level` (higher levels include the lower ones' work, e.g. 1 = redraw,
   * 2 = recompute + redraw, 3 = rebuild + recompute + redraw). Requests made while an update runs coalesce into
   * one more run at the highest level asked for; updates never overlap. Errors are shown in the status line.
   */
  invalidate(level = 1) {
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
        this.status(err.message, { error: true });
      }
    }
  }

  /** The work behind invalidate(level) (override). */
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

/** Defines a custom element once (bundles may be loaded twice on a page). */
export function define(tag, cls) {
  if (!customElements.get(tag)) customElements.define(tag, cls);
}

/** Creates an element with attributes and children: h('button', {type: 'button'}, 'Go'). */
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (v == null || v === false) continue;
    if (k === 'class') el.className = v;
    else if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k in el && typeof v !== 'string') el[k] = v;
    else el.setAttribute(k, v === true ? '' : v);
  }
  el.append(...children.flat().filter((c) => c != null && c !== false));
  return el;
}
