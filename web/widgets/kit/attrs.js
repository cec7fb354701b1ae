// attrs.js — attribute metadata: each widget's `static attrs` entries as specs (attrSpec), the attributes every
// widget takes (COMMON_ATTRS), values from untrusted sources (deep links, embed.html's query) checked against the
// limits the controls have (sanitizeAttr), and the URL-hash deep-link syntax (hashAttributes). The generated
// types (scripts/gen-widget-types.mjs) and the guide's tables read the same specs.

/**
 * Deep links: the URL hash can set widget attributes, addressed by element id or tag name,
 * e.g. `#gelu.min=-5&gelu.derivative=true` or `#gelu-explorer.max=4`. Returns the raw name -> value pairs;
 * BlockscopeElement.applyHash checks them against the attribute metadata before setting anything.
 */
export function hashAttributes(element) {
  const out = {};
  const hash = typeof location === 'undefined' ? '' : location.hash;
  const names = [element.id, element.localName].filter(Boolean);
  for (const { target, name, value } of parseDeepLink(hash).settings) if (names.includes(target)) out[name] = value;
  return out;
}

/**
 * The deep-link syntax itself (what sync-url writes after the #, and a <blockscope-tour> step's state): the settings
 * [{target, name, value}] in the order written, plus the keys that name no attribute (`malformed`). Accepts the hash
 * alone (`ln.gamma=2&block.step=3`), with its `#`, or a whole address ending in one.
 */
export function parseDeepLink(text) {
  let s = String(text ?? '').trim();
  const hash = s.indexOf('#');
  if (hash >= 0) s = s.slice(hash + 1);
  const settings = [];
  const malformed = [];
  for (const [key, value] of new URLSearchParams(s)) {
    const dot = key.lastIndexOf('.');
    if (dot > 0 && dot < key.length - 1) settings.push({ target: key.slice(0, dot), name: key.slice(dot + 1), value });
    else malformed.push(key);
  }
  return { settings, malformed };
}

/**
 * One attribute's metadata from a `static attrs` entry: either a plain default (`min: -3`) or
 * `{default, min, max, int, options, url, names, doc}`. The type follows the default (number, boolean, string) unless
 * `type` says otherwise; `options` makes it an enumeration; `url: true` marks a URL that deep links may not set, and
 * `names` the values of such an attribute that name something shipped with Blockscope instead (deep links may).
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

/** Per element, the (attribute, value) pairs already reported by warnAttr. */
const warned = new WeakMap();

/**
 * Reports once per element, attribute and value, with console.warn, that attribute `name`="raw" is not used as
 * written: `why` says what is wrong with it and `kept` what the widget uses instead.
 */
export function warnAttr(el, name, raw, why, kept) {
  if (!warned.has(el)) warned.set(el, new Set());
  const seen = warned.get(el);
  const key = `${name}\u0000${raw}`;
  if (seen.has(key)) return;
  seen.add(key);
  console.warn(`<${el.localName}> ${name}="${raw}": ${why}; using ${kept}`);
}

/**
 * Attribute text `raw` as attribute `name`'s spec reads it: {ok, value}. ok: the text is used as written (value typed:
 * a number, a boolean, the text). A value the spec refuses — a number that is not one (the default is used), outside
 * [min, max] (the nearest limit) or not whole where it must be (rounded), a word not among `options` (the default),
 * a boolean other than "", "true", "false" or its own name (true: the attribute is present) — is replaced and
 * reported once (warnAttr). A word that differs from an option only in case or surrounding spaces is read as that
 * option, unreported. `fallback`: the attribute's default on `el`.
 */
export function checkAttr(el, name, spec, raw, fallback) {
  const refuse = (why, value, kept = JSON.stringify(String(value))) => {
    warnAttr(el, name, raw, why, kept);
    return { ok: false, value };
  };
  if (spec.options) {
    const options = spec.options.map(String);
    if (options.includes(raw)) return { ok: true, value: spec.type === 'number' ? Number(raw) : raw };
    // "GELU " for gelu: the same word, read as the option it is (nothing to report).
    const same = options.find((o) => o.toLowerCase() === raw.trim().toLowerCase());
    if (same !== undefined) return { ok: false, value: spec.type === 'number' ? Number(same) : same };
    const list = options.map((o) => (o === '' ? '""' : o)).join(', ');
    return refuse(`not one of ${list}`, fallback);
  }
  if (spec.type === 'boolean') {
    if (['', 'true', 'false', name].includes(raw)) return { ok: true, value: raw !== 'false' };
    return refuse('not "true" or "false" (a present boolean attribute is true)', true, 'true');
  }
  if (spec.type !== 'number') return { ok: true, value: raw };
  const v = Number(raw.replace('\u2212', '-'));
  if (raw.trim() === '' || !Number.isFinite(v)) return refuse('not a number', Number(fallback), String(fallback));
  let kept = spec.int ? Math.round(v) : v;
  if (spec.min != null) kept = Math.max(spec.min, kept);
  if (spec.max != null) kept = Math.min(spec.max, kept);
  if (kept === v) return { ok: true, value: v };
  const outside = (spec.min != null && v < spec.min) || (spec.max != null && v > spec.max);
  const range = `${spec.min ?? '−∞'} … ${spec.max ?? '∞'}`;
  return refuse(outside ? `outside ${range}` : 'not a whole number', kept, String(kept));
}

/**
 * Attribute `name` of widget `el` as `kind` ('text', 'number' or 'boolean'): its default (el.defaultOf) when absent, else
 * as its spec reads it (checkAttr: a refused value is replaced and reported once). Text of an attribute without a spec
 * is returned as written.
 */
export function readAttr(el, name, kind = 'text') {
  const raw = el.getAttribute(name);
  const fallback = el.defaultOf(name);
  if (kind === 'boolean') return raw === null ? Boolean(fallback) : raw !== 'false';
  if (raw === null) return kind === 'number' ? Number(fallback) : String(fallback ?? '');
  const spec = el.constructor.attrSpecs()[name];
  const { ok, value } = spec ? checkAttr(el, name, spec, raw, fallback) : { ok: true, value: raw };
  if (kind === 'number') return Number(value);
  return ok ? raw : String(value);
}

/**
 * A value as attribute text, locale-free: a boolean as presence (returns true / false), a number as JavaScript
 * writes it, a list of numbers as "1, 3, 5, 7" and a list of rows as "1, 3; 5, 7" (what the widgets' vector and
 * row fields read), anything else as String(value).
 */
export function attrText(value) {
  if (typeof value === 'boolean') return value;
  if (ArrayBuffer.isView(value)) value = Array.from(value);
  if (Array.isArray(value)) {
    const rows = value.map((row) => (ArrayBuffer.isView(row) ? Array.from(row) : row));
    return rows.some(Array.isArray) ? rows.map((row) => [].concat(row).join(', ')).join('; ') : rows.join(', ');
  }
  return String(value);
}

/** el.state: every attribute the widget has that is set, typed by its spec (numbers, booleans, text). */
export function stateOf(el) {
  const out = {};
  for (const [name, spec] of Object.entries(el.constructor.attrSpecs())) {
    if (!el.hasAttribute(name)) continue;
    const raw = el.getAttribute(name);
    out[name] = spec.type === 'boolean' ? raw !== 'false' : spec.type === 'number' && raw.trim() !== '' && Number.isFinite(Number(raw)) ? Number(raw) : raw;
  }
  return out;
}

/**
 * el.state = {…}: sets several attributes at once (see attrText; null or undefined removes one, false too for a
 * boolean). Names must be the widget's attributes (or lang, theme): an unknown one throws, naming it.
 */
export function applyState(el, state) {
  if (state === null || typeof state !== 'object') throw new TypeError(`<${el.localName}>.state must be an object of attributes`);
  const specs = el.constructor.attrSpecs();
  for (const name of Object.keys(state)) {
    if (!Object.hasOwn(specs, name) && !Object.hasOwn(COMMON_ATTRS, name)) {
      throw new TypeError(`<${el.localName}> has no attribute ${name}`);
    }
  }
  for (const [name, value] of Object.entries(state)) {
    const text = value == null ? false : attrText(value);
    if (text === false) el.removeAttribute(name);
    else el.setAttribute(name, text === true ? '' : text);
  }
}

/** The attributes every widget takes besides its own `static attrs` (types/widget-elements.d.ts is generated from both). */
export const COMMON_ATTRS = Object.fromEntries(Object.entries({
  theme: { default: 'auto', options: ['auto', 'light', 'dark'], doc: 'auto follows the page\'s background' },
  'sync-url': { default: false, doc: 'write changed attributes into the URL hash (deep links)' },
  'allow-remote-models': { default: false, doc: 'let deep links set URL attributes such as model' },
  lang: { default: '', maxLength: 35, doc: 'the widget\'s language (en, de, es); default: the nearest lang of the page, then the browser\'s' },
}).map(([name, entry]) => [name, attrSpec(entry)]));
