// Writes python/blockscope/attributes.json — what the Python package (python/) checks blockscope.show()'s keyword
// arguments against — from the widgets themselves, loaded the way scripts/gen-widget-types.mjs loads them: the tags
// index.js defines, each class's attrSpecs() (its `static attrs` plus controls/lock/sections) and COMMON_ATTRS.
// Besides the specs it records, per widget:
//   rows    the attributes that take a matrix of numbers ("1, 3; 4, 5"), with the limits the widget's own parser
//           enforces (found by asking that parser, so they cannot drift from it)
//   check   whether the widget has a check-your-implementation box (part="check-input"), which attribute value
//           shows it and, where the inputs are fixed (GELU's eight), the inputs
//   version the package version the file was made from
//   node scripts/gen-python-attrs.mjs           rewrite the file (scripts/build-web.sh does, after bundling)
//   node scripts/gen-python-attrs.mjs --check   exit 1 if it differs (tests/python checks it)
import { readFileSync, writeFileSync } from 'node:fs';

import { definedWidgets } from './gen-widget-types.mjs';

const ROOT = new URL('../', import.meta.url);
export const OUTPUT = 'python/blockscope/attributes.json';

/**
 * The attributes whose text is rows of numbers: widget -> attribute -> [module, exported parser, what a row is].
 * The parser is the one the widget reads the attribute with.
 */
const ROW_PARSERS = {
  'layernorm-explorer': { values: ['web/widgets/layernorm-explorer/layernorm-rows.js', 'parseTokens', 'token'] },
  'ffn-explorer': { demo: ['web/widgets/ffn-explorer/ffn-positionwise.js', 'parseDemo', 'position'] },
};

/**
 * The widgets with a check-your-implementation box (a textarea with part="check-input"): `when` is the attribute
 * value that shows it (null: always), `paste` what it reads — one tensor (kit/check-panel.js) or a dict of named
 * tensors (block-explorer's first-wrong-step check, block-learner.js); `inputs` the module and export of fixed inputs.
 */
const CHECKS = {
  'layernorm-explorer': { when: null, paste: 'tensor', what: 'your LayerNorm\'s output for all the tokens, shape (T, d)' },
  'gelu-explorer': { when: null, paste: 'tensor', what: 'your GELU of the lesson\'s eight inputs',
    inputs: ['web/widgets/gelu-explorer/gelu-learner.js', 'EIGHT'] },
  'ffn-explorer': { when: { preset: 'ffn-lesson82' }, paste: 'tensor', what: 'your FFN\'s output on the lesson\'s x' },
  'block-explorer': { when: { preset: 'encoder-block-lesson82' }, paste: 'tensor or dict',
    what: 'your EncoderBlock\'s steps as a dict (the hooks snippet\'s print), or one step\'s tensor' },
};

/** The largest n for which ok(n) holds (ok(1) must), searching up to `cap`. */
function largest(ok, cap = 1 << 16) {
  if (!ok(1)) throw new Error('the parser refuses even one row of one number');
  let lo = 1;
  let hi = 2;
  while (hi <= cap && ok(hi)) {
    lo = hi;
    hi *= 2;
  }
  if (hi > cap) return null; // no limit below cap
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (ok(mid)) lo = mid;
    else hi = mid;
  }
  return lo;
}

async function rowLimits(module, name) {
  const parse = (await import(new URL(module, ROOT).href))[name];
  if (typeof parse !== 'function') throw new Error(`${module} no longer exports ${name}`);
  const accepts = (text) => {
    try {
      parse(text);
      return true;
    } catch {
      return false;
    }
  };
  return {
    maxRows: largest((n) => accepts(Array(n).fill('1').join('; '))),
    maxColumns: largest((n) => accepts(Array(n).fill('1').join(', '))),
  };
}

/** Only what the Python side uses, in a stable key order. */
function specOf(spec) {
  const out = { type: spec.type, default: spec.default };
  for (const key of ['min', 'max', 'int', 'options', 'list', 'url', 'names', 'doc']) {
    if (spec[key] !== undefined) out[key] = spec[key];
  }
  return out;
}

export async function generate() {
  const { defined } = await definedWidgets();
  const { COMMON_ATTRS } = await import(new URL('web/widgets/kit/base.js', ROOT).href);
  const { version } = JSON.parse(readFileSync(new URL('package.json', ROOT), 'utf8'));
  const widgets = {};
  for (const { tag, cls } of defined) {
    const rows = {};
    for (const [attr, [module, name, row]] of Object.entries(ROW_PARSERS[tag] ?? {})) {
      if (!cls.attrSpecs()[attr]) throw new Error(`<${tag}> has no attribute ${attr} any more: update ROW_PARSERS`);
      rows[attr] = { row, ...(await rowLimits(module, name)) };
    }
    if (cls.attrSpecs().check) throw new Error(`<${tag}> has an attribute named check, which blockscope.show() reserves`);
    let check = CHECKS[tag] ?? null;
    if (check?.inputs) {
      const [module, name] = check.inputs;
      const inputs = (await import(new URL(module, ROOT).href))[name];
      if (!Array.isArray(inputs)) throw new Error(`${module} no longer exports ${name}: update CHECKS`);
      check = { ...check, inputs: [...inputs] };
    }
    widgets[tag] = {
      attrs: Object.fromEntries(Object.entries(cls.attrSpecs()).map(([n, s]) => [n, specOf(s)])),
      rows,
      check,
    };
  }
  for (const tag of Object.keys({ ...ROW_PARSERS, ...CHECKS })) {
    if (!widgets[tag]) throw new Error(`${tag} is not a widget any more: update scripts/gen-python-attrs.mjs`);
  }
  const data = {
    generated: 'by scripts/gen-python-attrs.mjs from the widgets\' static attrs (web/widgets/): do not edit',
    version,
    common: Object.fromEntries(Object.entries(COMMON_ATTRS).map(([n, s]) => [n, specOf(s)])),
    widgets,
  };
  return `${JSON.stringify(data, null, 1)}\n`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const text = await generate();
  const path = new URL(OUTPUT, ROOT);
  if (process.argv.includes('--check')) {
    let old = null;
    try {
      old = readFileSync(path, 'utf8');
    } catch { /* missing: stale */ }
    if (old !== text) {
      console.error(`${OUTPUT} is stale: run node scripts/gen-python-attrs.mjs`);
      process.exit(1);
    }
  } else {
    writeFileSync(path, text);
  }
}
