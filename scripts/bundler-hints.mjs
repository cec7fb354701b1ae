// bundler-hints.mjs — marks every import() of a computed URL in the built bundles (the wasm glue, a language's
// message table, Node's own modules) with the comments app bundlers read, /* webpackIgnore: true */ /* @vite-ignore */:
// webpack would otherwise turn such an import() into a module context that fails at run time, and Vite warns.
// esbuild keeps these comments in the source but drops them when it minifies, so scripts/build-web.sh runs this on
// its output; each file's source map is shifted to match (columns after an insertion move right).
import { readFileSync, writeFileSync } from 'node:fs';

export const HINT = '/* webpackIgnore: true */ /* @vite-ignore */ ';
/** import( not preceded by a name or a dot, followed by anything but a string literal (a literal is a file the bundler follows). */
const COMPUTED_IMPORT = /(?<![\w$.])import\((?!["'])(?!\/\* webpackIgnore)/g;

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

function decodeVlq(segment) {
  const out = [];
  let value = 0;
  let shift = 0;
  for (const ch of segment) {
    const digit = B64.indexOf(ch);
    if (digit < 0) throw new Error(`bad base64 VLQ digit '${ch}' in a source map`);
    value += (digit & 31) << shift;
    if (digit & 32) shift += 5;
    else {
      out.push(value & 1 ? -(value >>> 1) : value >>> 1);
      value = shift = 0;
    }
  }
  return out;
}

function encodeVlq(values) {
  let s = '';
  for (const v of values) {
    let n = v < 0 ? (-v << 1) | 1 : v << 1;
    do {
      let digit = n & 31;
      n >>>= 5;
      if (n) digit |= 32;
      s += B64[digit];
    } while (n);
  }
  return s;
}

/** `mappings` (a source map's) with generated columns on line `line` moved by the insertions [{at, length}] (sorted). */
export function shiftMappings(mappings, line, insertions) {
  const lines = mappings.split(';');
  if (!lines[line]) return mappings;
  let column = 0;
  let moved = 0; // characters inserted before the current segment
  let next = 0;
  lines[line] = lines[line].split(',').map((segment) => {
    const fields = decodeVlq(segment);
    column += fields[0];
    const before = moved;
    while (next < insertions.length && insertions[next].at <= column) moved += insertions[next++].length;
    fields[0] += moved - before; // deltas: only the first segment after an insertion changes
    return encodeVlq(fields);
  }).join(',');
  return lines.join(';');
}

/** Adds HINT to each computed import() of `code`; returns {code, insertions: [{line, at, length}]}. */
export function addHints(code) {
  const insertions = [];
  const lines = code.split('\n').map((text, line) => text.replace(COMPUTED_IMPORT, (match, offset) => {
    insertions.push({ line, at: offset + match.length, length: HINT.length }); // a column of the code as esbuild wrote it
    return match + HINT;
  }));
  return { code: lines.join('\n'), insertions };
}

/** Rewrites the built file `path` (and `path`.map next to it, if any) with the hints. Returns how many it added. */
export function hintFile(path) {
  const { code, insertions } = addHints(readFileSync(path, 'utf8'));
  if (!insertions.length) return 0;
  writeFileSync(path, code);
  let map;
  try {
    map = JSON.parse(readFileSync(`${path}.map`, 'utf8'));
  } catch {
    return insertions.length; // no source map
  }
  for (const line of new Set(insertions.map((i) => i.line))) {
    map.mappings = shiftMappings(map.mappings, line, insertions.filter((i) => i.line === line));
  }
  writeFileSync(`${path}.map`, JSON.stringify(map));
  return insertions.length;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const path of process.argv.slice(2)) hintFile(path);
}
