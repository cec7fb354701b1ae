// i18n.js — the widgets' language: which locale a widget speaks (its `lang` attribute, else the nearest `lang` of
// the host page, across shadow roots, else the browser's languages, else English), its strings from one message
// table per locale (web/widgets/i18n/<locale>/: one file per widget, merged by the locale's index.js) and its
// numbers through Intl.NumberFormat. Numbers meant for code or for scripts (Copy as PyTorch, event details) never
// come through here: they use values.js fmt(), which is locale-free.
// English travels with the code: the kit's messages are here, each widget's are added by its own module
// (addEnglish), so they are in that widget's chunk of the bundle. Every other table is a module of its own
// (dist/i18n/<locale>.js next to the bundle; web/widgets/i18n/<locale>.js unbundled), loaded the first time a widget
// on the page asks for that language (loadLocale), so a page pays only for the languages it shows.
import kit from '../i18n/en/kit.js';

/* global BLOCKSCOPE_BUNDLED */
// Where the tables are, relative to this module (dist/i18n/ next to the bundle: scripts/build-widgets.mjs defines
// BLOCKSCOPE_BUNDLED there), each URL written out so that an app bundler copies the file (runtime/locations.js).
const TABLE_URLS = typeof BLOCKSCOPE_BUNDLED !== 'undefined'
  ? { de: () => new URL('./i18n/de.js', import.meta.url), es: () => new URL('./i18n/es.js', import.meta.url) }
  : { de: () => new URL('../i18n/de.js', import.meta.url), es: () => new URL('../i18n/es.js', import.meta.url) };
const table = (locale) => () => import(/* webpackIgnore: true */ /* @vite-ignore */ TABLE_URLS[locale]().href);

// The English messages of the code loaded so far: the kit's, then each widget's (addEnglish).
const en = { ...kit };

/**
 * The shipped locales: tag -> {name (in its own language), dir, load (the table's module, imported on demand)}.
 * English is the reference every other table translates (i18n/en/index.js merges its files); here it holds the
 * messages of the code loaded so far, and is always loaded.
 */
export const LOCALES = Object.freeze({
  en: { name: 'English', dir: 'ltr', load: async () => ({ default: en }) },
  de: { name: 'Deutsch', dir: 'ltr', load: table('de') },
  es: { name: 'Español', dir: 'ltr', load: table('es') },
});
export const DEFAULT_LOCALE = 'en';

const tables = new Map([['en', en]]); // locale -> its loaded table
const loading = new Map(); // locale -> the promise of its table

/**
 * Adds a widget's English messages (its file in i18n/en/) to the English table: each widget's module does, so its
 * messages are part of its chunk. Adding a file twice is harmless; a key with another text than before is an error.
 */
export function addEnglish(table) {
  if (table === null || typeof table !== 'object') throw new Error(`addEnglish: expected a message table, got ${table}`);
  for (const [key, message] of Object.entries(table)) {
    if (Object.hasOwn(en, key) && en[key] !== message) throw new Error(`addEnglish: message "${key}" is already English for another text`);
    en[key] = message;
  }
}

/** Whether `locale`'s table is loaded (messages(locale) then speaks it; until then it speaks English). */
export function isLoaded(locale) {
  return tables.has(matchLocale(locale) ?? DEFAULT_LOCALE);
}

/**
 * Loads `locale`'s message table (once; later calls share the promise). Resolves when messages(locale) speaks it;
 * rejects, with the reason, if the chunk cannot be loaded (the widget then stays in English).
 */
export function loadLocale(locale) {
  const key = matchLocale(locale) ?? DEFAULT_LOCALE;
  if (tables.has(key)) return Promise.resolve();
  if (!loading.has(key)) {
    loading.set(key, LOCALES[key].load().then((module) => {
      tables.set(key, module.default);
    }, (err) => {
      loading.delete(key); // a later widget may try again (e.g. back online)
      throw err;
    }));
  }
  return loading.get(key);
}

/** The shipped locale that serves BCP 47 tag `tag` ("de-AT" -> "de"), or null. */
export function matchLocale(tag) {
  if (!tag) return null;
  const lower = String(tag).trim().toLowerCase().replace(/_/g, '-');
  if (Object.hasOwn(LOCALES, lower)) return lower;
  const base = lower.split('-')[0];
  return Object.hasOwn(LOCALES, base) ? base : null;
}

/**
 * The language `el` should speak: its own `lang`, else the nearest ancestor's (crossing shadow roots into their
 * hosts), else the first of the browser's languages Blockscope ships, else English. `asked` is the tag that decided
 * (it may name a locale Blockscope lacks: then `locale` is English and `missing` true).
 */
export function resolveLocale(el) {
  for (let node = el; node; node = node.parentElement ?? node.getRootNode?.().host ?? null) {
    const lang = node.getAttribute?.('lang');
    if (lang) {
      const locale = matchLocale(lang);
      return { locale: locale ?? DEFAULT_LOCALE, asked: lang, missing: locale === null };
    }
  }
  const browser = typeof navigator === 'undefined' ? [] : navigator.languages ?? [navigator.language];
  for (const tag of browser) {
    const locale = matchLocale(tag);
    if (locale) return { locale, asked: tag, missing: false };
  }
  return { locale: DEFAULT_LOCALE, asked: DEFAULT_LOCALE, missing: false };
}

const PLACEHOLDER = /\{(\w+)\}/g;

/**
 * A locale's messages and number formats. t(key, params) looks `key` up (falling back to English, then to the key
 * itself), picks a plural form when the message is {one, other, …} (Intl.PluralRules on params.count) and fills
 * {name} placeholders: numbers with num() (whole numbers grouped), anything else as text.
 */
export class Messages {
  constructor(locale = DEFAULT_LOCALE) {
    this.locale = matchLocale(locale) ?? DEFAULT_LOCALE;
    if (!tables.has(this.locale)) throw new Error(`the ${this.locale} messages are not loaded (loadLocale)`);
    this.table = tables.get(this.locale);
    this.dir = LOCALES[this.locale].dir;
    this._formats = new Map();
    this._plural = new Intl.PluralRules(this.locale);
  }

  /** Whether the message table (or English) has `key`. */
  has(key) {
    return Object.hasOwn(this.table, key) || Object.hasOwn(en, key);
  }

  t(key, params = {}) {
    let message = Object.hasOwn(this.table, key) ? this.table[key] : en[key];
    if (message === undefined) {
      warnOnce(`Blockscope: no message "${key}" in any locale`);
      return key;
    }
    if (typeof message === 'object') {
      const n = Number(params.count);
      message = message[n === 0 && message.zero ? 'zero' : this._plural.select(n)] ?? message.other;
    }
    return message.replace(PLACEHOLDER, (whole, name) => {
      if (!(name in params)) return whole;
      const v = params[name];
      return typeof v === 'number' ? this.num(v) : String(v);
    });
  }

  /**
   * `value` for reading, in this locale: with `digits` fixed decimals (as values.js fmt, e.g. 0,7500 in German), or
   * with none given a whole number grouped (1.234 in German) and any other number with up to 4 decimals. The minus
   * sign is U+2212, −0 shows as 0, NaN and ±Infinity as themselves.
   */
  num(value, digits) {
    if (typeof value !== 'number') value = Number(value);
    if (!Number.isFinite(value)) return String(value);
    const key = digits ?? (Number.isInteger(value) ? 'int' : 'auto');
    let format = this._formats.get(key);
    if (!format) {
      const options = key === 'int' ? { maximumFractionDigits: 0 }
        : key === 'auto' ? { maximumFractionDigits: 4, useGrouping: false }
          : { minimumFractionDigits: key, maximumFractionDigits: key, useGrouping: false };
      format = new Intl.NumberFormat(this.locale, options);
      this._formats.set(key, format);
    }
    const text = format.format(value);
    return /^-0([.,]0*)?$/.test(text) ? text.slice(1) : text.replace('-', '−');
  }

  /** A percentage of a fraction (0.964 -> "96,4 %" in German) with `digits` decimals. */
  percent(fraction, digits = 1) {
    const key = `pct${digits}`;
    let format = this._formats.get(key);
    if (!format) {
      format = new Intl.NumberFormat(this.locale, { style: 'percent', minimumFractionDigits: digits, maximumFractionDigits: digits });
      this._formats.set(key, format);
    }
    return format.format(fraction).replace('-', '−');
  }

  /** A list in this locale ("a, b and c" / "a, b und c"). */
  list(items) {
    this._list ??= new Intl.ListFormat(this.locale, { type: 'conjunction' });
    return this._list.format(items.map(String));
  }
}

const warned = new Set();
function warnOnce(text) {
  if (warned.has(text)) return;
  warned.add(text);
  console.warn(text);
}

const cache = new Map();
/** The Messages of `locale` (one per locale, shared) — English while that locale's table is not loaded (loadLocale). */
export function messages(locale) {
  let key = matchLocale(locale) ?? DEFAULT_LOCALE;
  if (!tables.has(key)) key = DEFAULT_LOCALE;
  if (!cache.has(key)) cache.set(key, new Messages(key));
  return cache.get(key);
}
