// layernorm-rows.js — <layernorm-explorer>'s token rows: parsing "1, 3; 4, 5" with the widget's limits, and the
// marshalling between a (T, d) matrix and its flat, transposed and row forms (no arithmetic). No DOM.
import { parseRows } from '../kit/base.js';

export const MAX_TOKENS = 8;
export const MAX_FEATURES = 24;

/** Parses "1, 3; 4, 5" into rows of equal length; throws an Error naming the offending token. */
export function parseTokens(text) {
  return checkRows(parseRows(text, 'token'));
}

export function checkRows(rows) {
  if (rows.length > MAX_TOKENS) throw new Error(`at most ${MAX_TOKENS} tokens, got ${rows.length}`);
  const d = rows[0].length;
  if (d > MAX_FEATURES) throw new Error(`at most ${MAX_FEATURES} features per token, got ${d}`);
  rows.forEach((r, t) => {
    if (r.length !== d) {
      throw new Error(`token ${t + 1} has ${r.length} features but token 1 has ${d}; every token needs the same d`);
    }
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

