// The light module (wasm/CMakeLists.txt: blockscope-light-<flavour>.wasm) against the full one of the same flavour:
// every runtime member web/runtime/api.js marks light runs on it and gives bit-identical results (same bytes for every
// float), the same errors, and the same number text in them (wasm/shortest_text.cpp, laid out as the native build's
// nlohmann writes it); every member not marked light is refused by name; and the light module holds none of the full
// module's other bindings.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { before, describe, test } from 'node:test';

import { API } from '../../web/runtime/api.js';
import { loadBlockscope } from '../../web/runtime/blockscope.js';
import { wasmUrl } from '../../web/runtime/locations.js';
import { checkedModule } from '../../web/runtime/wasm-module.js';
import { FLAVOURS } from './support.mjs';

const KINDS = ['gelu_tanh', 'gelu_erf', 'relu', 'tanh'];

/** n seeded values: a spread over [-12, 12] with zeros, signed zeros, tiny and large magnitudes mixed in. */
function values(n, seed) {
  let s = seed >>> 0;
  const special = [0, -0, 1e-30, -1e-30, 3e-8, -3e-8, 1e4, -1e4, 88.5, -88.5, 5.5, -5.5];
  return Float32Array.from({ length: n }, (_, i) => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return i % 9 === 4 ? special[(s >>> 8) % special.length] : (s / 2 ** 32 - 0.5) * 24;
  });
}

/** Throws unless a and b are the same, a float's bytes included (NaN payloads, signed zeros). */
function assertSame(a, b, path = 'result') {
  if (ArrayBuffer.isView(a)) {
    assert.ok(ArrayBuffer.isView(b) && a.constructor === b.constructor && a.length === b.length, `${path}: type or length`);
    const x = new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
    const y = new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
    const i = x.findIndex((v, k) => v !== y[k]);
    assert.equal(i, -1, `${path}: element ${Math.floor(i / a.BYTES_PER_ELEMENT)} differs (${a[Math.floor(i / a.BYTES_PER_ELEMENT)]} vs ${b[Math.floor(i / a.BYTES_PER_ELEMENT)]})`);
  } else if (a && typeof a === 'object') {
    assert.deepEqual(Object.keys(a).sort(), Object.keys(b).sort(), `${path}: keys`);
    for (const k of Object.keys(a)) assertSame(a[k], b[k], `${path}.${k}`);
  } else {
    assert.ok(Object.is(a, b), `${path}: ${a} vs ${b}`);
  }
}

/** Every light member's calls, as [label, runtime => result] (runtimes answer synchronously). */
const CASES = {
  activation: () => KINDS.map((kind) => [kind, (rt) => rt.activation(kind, values(1003, 1))]),
  activationDerivative: () => KINDS.map((kind) => [kind, (rt) => rt.activationDerivative(kind, values(1003, 2))]),
  gelu: () => ['tanh', 'none'].map((approximate) => [approximate, (rt) => rt.gelu(values(517, 3), { approximate })]),
  activationMistakes: () => KINDS.map((kind) => [kind, (rt) => rt.activationMistakes(kind)]),
  activationMistake: (full) => KINDS.flatMap((kind) => full.activationMistakes(kind).map((id) =>
    [`${kind} ${id}`, (rt) => rt.activationMistake(id, kind, values(333, 4))])),
  layerNorm: () => [[1, 7], [5, 64], [3, 768]].map(([rows, d]) => [`${rows}x${d}`, (rt) => rt.layerNorm(values(rows * d, d),
    { gamma: values(d, 5), beta: values(d, 6), eps: 1e-5 })]).concat([['defaults', (rt) => rt.layerNorm(values(10, 7))]]),
  layerNormMistakes: () => [['ids', (rt) => rt.layerNormMistakes()]],
  layerNormMistake: (full) => full.layerNormMistakes().map((id) => [id, (rt) => rt.layerNormMistake(id, values(4 * 48, 8),
    { gamma: values(48, 9), beta: values(48, 10), eps: 1e-5 })]),
  mistakes: () => [['list', (rt) => rt.mistakes()]],
  buildInfo: () => [['info', (rt) => { const { module, ...info } = rt.buildInfo(); return info; }]],
  memoryStats: () => [['keys', (rt) => Object.keys(rt.memoryStats()).sort()]],
};

const LIGHT = Object.entries(API.Blockscope.members).filter(([, spec]) => spec.light).map(([name]) => name);

test('only the runtime\'s own members are marked light, and each has calls here', () => {
  for (const [cls, entry] of Object.entries(API)) {
    if (cls === 'Blockscope') continue;
    const marked = Object.entries(entry.members).filter(([, spec]) => spec.light).map(([name]) => name);
    assert.deepEqual(marked, [], `${cls}'s methods run in the module that created the object; none can be light`);
  }
  assert.deepEqual(LIGHT.slice().sort(), Object.keys(CASES).sort(), 'a light member without calls in this test (or a stale one)');
});

// simd-relaxed differs from simd only in its matrix products, so it has no light module of its own and starts on simd's.
const OWN_LIGHT = FLAVOURS.filter((f) => wasmUrl(f, undefined, 'light').pathname.endsWith(`/blockscope-light-${f}.wasm`));

test('simd-relaxed starts on simd\'s light module, as a runtime of its own flavour', async () => {
  assert.deepEqual(OWN_LIGHT, ['simd', 'baseline']);
  const light = await loadBlockscope({ flavour: 'simd-relaxed', module: 'light' });
  assert.equal(light.flavour, 'simd-relaxed');
  assert.deepEqual({ ...light.buildInfo(), version: undefined }, { flavour: 'simd', isa: 'simd128', version: undefined, module: 'light' });
  assertSame(light.gelu(values(517, 3)), (await loadBlockscope({ flavour: 'simd-relaxed' })).gelu(values(517, 3)), 'gelu');
});

for (const flavour of OWN_LIGHT) {
  describe(`${flavour}: the light module`, () => {
    let light;
    let full;
    before(async () => {
      [light, full] = await Promise.all([loadBlockscope({ flavour, module: 'light' }), loadBlockscope({ flavour })]);
    });

    test('is its own runtime, and says which module it is', () => {
      assert.notEqual(light, full);
      assert.equal(light.buildInfo().module, 'light');
      assert.equal(full.buildInfo().module, 'full');
      assert.equal(light.flavour, flavour);
    });

    test('every member marked light gives bit-identical results to the full module', () => {
      let calls = 0;
      for (const name of LIGHT) {
        for (const [label, call] of CASES[name](full)) {
          assertSame(call(light), call(full), `${name} ${label}`);
          calls++;
        }
      }
      assert.ok(calls > 30, `${calls} calls`);
    });

    test('bad input fails with the full module\'s message, numbers written as the native build writes them', () => {
      const message = (rt, f) => {
        try {
          f(rt);
        } catch (err) {
          return `${err.name}: ${err.message}`;
        }
        return assert.fail('no error');
      };
      const bad = [
        (rt) => rt.activation('swish', [1]),
        (rt) => rt.activation('gelu_tanh', [1, NaN]),
        (rt) => rt.activationMistake('no-eps', 'relu', [1]),
        (rt) => rt.layerNormMistake('unknown-thing', [1, 2]),
        (rt) => rt.layerNorm([1, 2, 3], { gamma: [1, 1] }),
        (rt) => rt.layerNorm(new Float32Array(2), { gamma: 'x' }),
      ];
      for (const f of bad) assert.equal(message(light, f), message(full, f));
      // The eps text is the float's shortest decimal (short_float) in json::dump's layout without its ".0".
      const eps = [[-0.1, '-0.1'], [-100, '-100'], [-1e-5, '-1e-05'], [-1e-4, '-0.0001'], [-123456.7, '-123456.7'],
        [0, '0'], [-0, '-0'], [NaN, 'nan'], [-Infinity, '-inf'], [-1e15, '-1e+15'], [-2.5e-7, '-2.5e-07'],
        [-3.4028234663852886e38, '-3.4028234663852886e+38'], [-1e30, '-1.0000000150474662e+30'],
        [-1.401298464324817e-45, '-1.401298464324817e-45'], [-65504, '-65504']];
      for (const [value, text] of eps) {
        const f = (rt) => rt.layerNorm([1, 2], { eps: value });
        assert.equal(message(light, f), `BlockscopeError: LayerNorm eps must be a positive finite number, got ${text}`);
        assert.equal(message(full, f), message(light, f));
      }
    });

    test('every member not marked light fails naming it and the full module', async () => {
      const refused = Object.entries(API.Blockscope.members)
        .filter(([name, spec]) => !spec.light && typeof full[name] === 'function').map(([name]) => name);
      assert.ok(refused.includes('createGPT') && refused.includes('loadModel') && refused.includes('createBlock'));
      for (const name of refused) {
        const spec = API.Blockscope.members[name];
        const expected = { message: new RegExp(`^${name}\\(\\) needs Blockscope's full module; this runtime runs the light one`) };
        if (spec.async) await assert.rejects(() => light[name](), expected, name);
        else assert.throws(() => light[name](), expected, name);
      }
    });

    test('holds a subset of the full module\'s bindings and no class', async () => {
      const { default: createModule } = await import(new URL('../../web/dist/blockscope-glue.js', import.meta.url).href);
      const raw = (file) => createModule({ wasmBinary: readFileSync(new URL(`../../web/dist/${file}`, import.meta.url)),
        print: () => {}, printErr: () => {} });
      const [l, f] = await Promise.all([raw(`blockscope-light-${flavour}.wasm`), raw(`blockscope-${flavour}.wasm`)]);
      const ln = l.bindingNames();
      const fn = f.bindingNames();
      assert.deepEqual(ln.classes, []);
      assert.deepEqual(ln.functions.filter((n) => !fn.functions.includes(n)), []);
      assert.ok(fn.functions.length > ln.functions.length + 5 && fn.classes.includes('GPT'));
      assert.deepEqual(Object.keys(checkedModule(l)).sort(), ln.functions.slice().sort());
    });
  });
}
