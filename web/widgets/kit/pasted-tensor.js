// pasted-tensor.js — reads numbers a learner pasted from their own notebook, for the widgets' "check your
// implementation" boxes: PyTorch's print of a tensor (`tensor([[ 1.5410, -0.2934]], requires_grad=True)`, with
// grad_fn=<…>, dtype=…, device=… suffixes, scientific notation, nan/inf, "Parameter containing:"), `.tolist()`
// output, NumPy's repr (`array([[1., 2.]], dtype=float32)`) and print (`[[1. 2.]\n [3. 4.]]`). A print PyTorch or
// NumPy cut short with "..." is refused with how to print it in full. Each value comes with the precision it was
// printed at (half a unit in its last printed digit), so a comparison can allow for the print's rounding and no more.
// Pure functions: no DOM, they run in Node (tests/web/pasted-tensor.test.mjs).
import { messages } from './i18n.js';

/**
 * A paste that cannot be read; the message names the problem and where. Its `message` is English; `key` and
 * `params` (messages kit.paste.*) let a widget say it in the learner's language: localized(m).
 */
export class PasteError extends Error {
  constructor(key, params = {}) {
    const known = messages('en').has(key);
    super(known ? PasteError.say(messages('en'), key, params) : key);
    this.name = 'PasteError';
    this.key = known ? key : null;
    this.params = params;
  }

  /** key in Messages `m`, with params that are themselves {key, params} (or PasteErrors) said in `m` too. */
  static say(m, key, params) {
    const said = Object.fromEntries(Object.entries(params).map(([name, v]) =>
      [name, v instanceof PasteError ? v.localized(m) : v && typeof v === 'object' && v.key ? PasteError.say(m, v.key, v.params ?? {}) : v]));
    return m.t(key, said);
  }

  /** The message in Messages `m` (a widget's port.messages()). */
  localized(m) {
    return this.key ? PasteError.say(m, this.key, this.params) : this.message;
  }
}

// The keyword arguments PyTorch and NumPy append to a repr after the values.
const SUFFIX = /^(?:\s*,\s*(?:requires_grad=(?:True|False)|grad_fn=<[\w.:]+>|dtype=[\w.]+|device='[^']*'|layout=[\w.]+))*\s*$/;
const NUMBER = /^[-+]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|nan|inf|True|False)/;

/**
 * Half a unit in the last digit number text `t` stands for, by format. PyTorch pads every value to the same digits
 * (4 after the point, or a 4-digit mantissa), and prints "1." only when every value is a whole number. NumPy drops
 * trailing zeros of its 8 decimals (so "1.5" is 1.5 to 8 decimals; float32 arrays print only the digits that tell
 * float32 values apart), Python's list repr is the shortest text that
 * reads back as the same double: exact. 0 for integers, booleans, nan and inf.
 */
function halfUnit(t, format) {
  const m = t.match(/^[-+]?(\d*)(?:\.(\d*))?(?:[eE]([-+]?\d+))?$/);
  if (!m || format === 'list') return 0;
  const decimals = m[2]?.length ?? 0;
  const exponent = m[3] ? Number(m[3]) : 0;
  if (m[2] === undefined && !m[3]) return 0; // an integer: exact
  // NumPy: 8 decimals at most, and a float32 array only as many digits as tell its float32 values apart.
  if (format === 'numpy') return Math.max(0.5 * 10 ** (exponent - 8), Math.abs(Number(t)) * 2 ** -24);
  return decimals === 0 ? 0 : 0.5 * 10 ** (exponent - decimals);
}

function valueOf(t) {
  if (t === 'True') return 1;
  if (t === 'False') return 0;
  if (/^[-+]?nan$/.test(t)) return NaN;
  if (/^[-+]?inf$/.test(t)) return t.startsWith('-') ? -Infinity : Infinity;
  return Number(t);
}

/** Where character `at` of `text` is, for messages: {line, column} (as text: "line 2, column 5"). */
function where(text, at) {
  const before = text.slice(0, at).split('\n');
  return { line: String(before.length), column: String(before.at(-1).length + 1) };
}

/**
 * Reads a nested list of numbers from text[at…]: returns {node, at} where node is a number token or an array of
 * nodes. Elements may be separated by commas (PyTorch, lists) or only by whitespace (NumPy's print).
 */
function readNode(text, at) {
  const skip = () => {
    while (at < text.length && /\s/.test(text[at])) at++;
  };
  skip();
  if (text[at] === '[') {
    at++;
    const items = [];
    for (;;) {
      skip();
      if (text[at] === ']') return { node: items, at: at + 1 };
      if (at >= text.length) throw new PasteError('kit.paste.unclosed', where(text, at));
      const r = readNode(text, at);
      items.push(r.node);
      at = r.at;
      skip();
      if (text[at] === ',') at++;
      else if (text[at] !== ']' && text[at] !== '[' && !NUMBER.test(text.slice(at))) {
        if (at >= text.length) throw new PasteError('kit.paste.unclosed', where(text, at));
        throw new PasteError('kit.paste.unexpected', { found: text.slice(at, at + 12).split('\n')[0], ...where(text, at) });
      }
    }
  }
  const m = text.slice(at).match(NUMBER);
  if (!m) {
    const found = text.slice(at, at + 12).split('\n')[0];
    throw found ? new PasteError('kit.paste.notNumber', { found, ...where(text, at) }) : new PasteError('kit.paste.endsEarly');
  }
  return { node: m[0], at: at + m[0].length };
}

/** The shape of a nested list, checking that every row at a depth has the same length. */
function shapeOf(node, path = []) {
  if (!Array.isArray(node)) return [];
  if (node.length === 0) return [0];
  const inner = shapeOf(node[0], [...path, 0]);
  node.forEach((child, i) => {
    const s = shapeOf(child, [...path, i]);
    if (s.length !== inner.length || s.some((d, k) => d !== inner[k])) {
      const name = (p) => (p.length ? `[${p.join('][')}]` : { key: 'kit.paste.topLevel' });
      throw new PasteError('kit.paste.ragged', { row: name([...path, i]), shape: s.join(', '), first: name([...path, 0]),
        firstShape: inner.join(', ') });
    }
  });
  return [node.length, ...inner];
}

function flatten(node, out) {
  if (Array.isArray(node)) for (const child of node) flatten(child, out);
  else out.push(node);
  return out;
}

/**
 * The numbers in a pasted print: {shape, values: Float64Array (row-major), halfUnits: Float64Array (each value's
 * print precision), format: 'torch' | 'numpy' | 'list'}. Throws PasteError naming what it could not read.
 */
export function parsePasted(input) {
  let text = String(input).trim().replace(/^Parameter containing:\s*/, '');
  if (text === '') throw new PasteError('kit.paste.empty');
  if (text.includes('...') || text.includes('…')) throw new PasteError('kit.paste.truncated');
  let format = 'list';
  const wrapper = text.match(/^(tensor|array)\(/);
  if (wrapper) {
    format = wrapper[1] === 'tensor' ? 'torch' : 'numpy';
    if (!text.endsWith(')')) throw new PasteError('kit.paste.wrapperUnclosed', { wrapper: wrapper[1] });
    text = text.slice(wrapper[0].length, -1);
  } else if (/^\[/.test(text) && !text.includes(',')) format = 'numpy'; // NumPy's print: no commas
  const { node, at } = readNode(text, 0);
  const rest = text.slice(at);
  if (!(wrapper ? SUFFIX : /^\s*$/).test(rest)) {
    throw new PasteError('kit.paste.trailing', { found: rest.trim().slice(0, 20), ...where(text, at) });
  }
  const shape = shapeOf(node);
  const tokens = flatten(node, []);
  return {
    shape,
    values: Float64Array.from(tokens, valueOf),
    halfUnits: Float64Array.from(tokens, (t) => halfUnit(t, format)),
    format,
  };
}

/**
 * A printed dict of named tensors or lists — `{'norm1': tensor([...]), 'att': [[...]]}`, as a hooks snippet prints
 * its recorded steps — as {name: parsePasted(value)} in the printed order. Throws PasteError naming the entry that
 * cannot be read. A paste that is not a dict is refused (parsePasted reads single tensors).
 */
export function parsePastedDict(input) {
  const text = String(input).trim();
  if (!text.startsWith('{')) throw new PasteError('kit.paste.notDict', { example: "{'norm1': [...], 'att': [...]}" });
  if (!text.endsWith('}')) throw new PasteError('kit.paste.dictUnclosed');
  const body = text.slice(1, -1);
  // Keys start the dict or follow a comma at depth 0 (no bracket or parenthesis open); other quotes (device='cpu')
  // are skipped whole.
  const keys = [];
  let depth = 0;
  let prev = ','; // the last non-space character outside quotes: ',' at the start
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c === "'" || c === '"') {
      const m = body.slice(i).match(/^(['"])([\w.-]+)\1\s*:/);
      if (m && depth === 0 && prev === ',') {
        keys.push({ name: m[2], start: i, valueAt: i + m[0].length });
        i += m[0].length - 1;
        prev = ':';
        continue;
      }
      const close = body.indexOf(c, i + 1);
      i = close < 0 ? body.length : close;
      prev = c;
      continue;
    }
    if (c === '[' || c === '(' || c === '{') depth++;
    else if (c === ']' || c === ')' || c === '}') depth--;
    if (!/\s/.test(c)) prev = c;
  }
  if (keys.length === 0) throw new PasteError('kit.paste.dictEmpty');
  const out = {};
  keys.forEach((k, n) => {
    const end = n + 1 < keys.length ? keys[n + 1].start : body.length;
    const value = body.slice(k.valueAt, end).trim().replace(/,$/, '');
    try {
      out[k.name] = parsePasted(value);
    } catch (err) {
      if (err instanceof PasteError) throw new PasteError('kit.paste.inEntry', { name: k.name, problem: err });
      throw err;
    }
  });
  return out;
}
