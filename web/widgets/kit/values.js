// values.js — the one number formatter and the parsers every widget uses for typed numbers and rows of numbers.
// Re-exported by base.js. The parsers' errors are in English unless given a Messages (i18n.js) to speak; each error
// also carries its message key and params (err.key, err.params), so a caller may translate it later.
import { messages as messagesOf } from './i18n.js';

/** Formats a core value for display with fixed decimals (−0 shown as 0). Locale-free: for code and events. */
export function fmt(value, digits = 4) {
  if (!Number.isFinite(value)) return String(value);
  const s = value.toFixed(digits);
  return /^-0\.?0*$/.test(s) ? s.slice(1) : s.replace('-', '−');
}

/** `m` if it is a Messages (has t()), else English: the parsers' optional last argument. */
export function speaking(m) {
  return typeof m?.t === 'function' ? m : messagesOf('en');
}

/** An Error whose message is `key` in `m`, carrying key and params. */
function parseError(m, key, params) {
  return Object.assign(new Error(m.t(key, params)), { key, params });
}

/**
 * Parses one typed number (a "−" minus sign is accepted); throws an Error naming it (`name`, e.g. "entry 2" or
 * "W₁ row 3, column 2") when it is empty or not a finite number. The one number parser every widget uses.
 * `m`: the Messages the error speaks (default English).
 */
export function parseNumber(text, name, m) {
  m = speaking(m);
  const raw = String(text).trim();
  if (raw === '') throw parseError(m, 'kit.parse.empty', { name });
  const v = Number(raw.replace(/−/g, '-'));
  if (!Number.isFinite(v)) throw parseError(m, 'kit.parse.notNumber', { name, text: raw });
  return v;
}

/** Parses "1, 3, 5, 7" (commas/spaces) into numbers; throws an Error naming the bad entry (in `m`, default English). */
export function parseNumbers(text, m) {
  m = speaking(m);
  const parts = String(text).trim().split(/[\s,;]+/).filter(Boolean);
  if (parts.length === 0) throw parseError(m, 'kit.parse.none', {});
  return parts.map((p, i) => parseNumber(p, m.t('kit.parse.entry', { n: i + 1 }), m));
}

/**
 * Parses rows of numbers, "1, 3; 4, 5" (rows split by ";", "|" or newlines), each with parseNumbers; throws an Error
 * naming the row (`${rowName} ${t + 1}: …`, in `m`, default English). Row lengths and limits are the caller's to check.
 */
export function parseRows(text, rowName, m) {
  m = speaking(m);
  const parts = String(text).split(/[;|\n]/).map((s) => s.trim()).filter(Boolean);
  if (parts.length === 0) throw parseError(m, 'kit.parse.noRows', {});
  return parts.map((p, t) => {
    try {
      return parseNumbers(p, m);
    } catch (err) {
      throw parseError(m, 'kit.parse.row', { row: rowName, n: t + 1, problem: err.message });
    }
  });
}

/** The decimal mark of Messages `m` ("." or ","). */
export function decimalMark(m) {
  return speaking(m).num(1.5, 1).replace(/\d/g, '');
}

/**
 * Number text made by JavaScript (String(v), toExponential, toPrecision: "0.01", "2.34e-4") for reading in `m`'s
 * language: its decimal point becomes the locale's mark and a minus sign U+2212. English text stays as it is, but
 * for the minus sign.
 */
export function localeDigits(text, m) {
  return String(text).replace('.', decimalMark(m)).replace(/^-/, '−');
}
