// layernorm-rows.js — <layernorm-explorer>'s token rows: parsing "1, 3; 4, 5" with the widget's limits, and the
// marshalling between a (T, d) matrix and its flat, transposed and row forms (no arithmetic). No DOM. Error messages
// come from the widget's message table through `t` (the element's t; English when none is given).
import { parseRows } from '../kit/values.js';
import { addEnglish, messages } from '../kit/i18n.js';
import en from '../i18n/en/layernorm-explorer.js';

addEnglish(en); // its messages, also where it is used without the widget (tools, tests)
const english = (key, params) => messages('en').t(key, params);

export const MAX_TOKENS = 8;
export const MAX_FEATURES = 24;

/** Parses "1, 3; 4, 5" into rows of equal length; throws an Error naming the offending token (in `t`'s language). */
export function parseTokens(text, t = english) {
  return checkRows(parseRows(text, t('layernorm.rows.name')), t);
}

/** Checks the widget's limits and that every row has the same length; throws an Error (in `t`'s language). */
export function checkRows(rows, t = english) {
  if (rows.length > MAX_TOKENS) throw new Error(t('layernorm.rows.tooMany', { max: MAX_TOKENS, count: rows.length }));
  const d = rows[0].length;
  if (d > MAX_FEATURES) throw new Error(t('layernorm.rows.tooWide', { max: MAX_FEATURES, count: d }));
  rows.forEach((r, i) => {
    if (r.length !== d) throw new Error(t('layernorm.rows.ragged', { token: i + 1, count: r.length, d }));
  });
  return rows;
}

export const rowsToText = (rows) => rows.map((r) => r.join(', ')).join('; ');
export const sameRow = (a, b) => a.length === b.length && a.every((v, i) => v === b[i]);

/** (rows, cols) row-major -> (cols, rows): marshalling for the wrong-axis mode, no arithmetic. */
export function transpose(flat, rows, cols) {
  const out = new Float32Array(rows * cols);
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) out[c * rows + r] = flat[r * cols + c];
  return out;
}
export const toRows = (flat, rows, cols) => Array.from({ length: rows }, (_, r) => Array.from(flat.subarray(r * cols, (r + 1) * cols)));


/**
 * A vector for reading in the widget's language: "[1.0000, −2.5000]" (English), "[1,0000; −2,5000]" (German, whose
 * decimal comma needs another separator). `host`: the element or a panel port (t and num).
 */
export const vectorText = (host, v, digits = 4) => `[${listText(host, v, digits)}]`;
/** The same numbers without brackets. */
export const listText = (host, v, digits = 4) => Array.from(v, (e) => host.num(e, digits)).join(host.t('layernorm.sep'));
