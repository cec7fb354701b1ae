// The JS wrappers come from the bindings themselves: every bindings file registers through wasm/marshal.hpp's
// bind_function / bind_class (which record the name), the module reports those names (bindingNames()), and
// web/runtime/wasm-module.js's checkedModule wraps exactly them — so a new binding needs no JS list, and one that
// bypasses the helpers (and so the error check) fails here.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';

import { BlockscopeError, checkedModule } from '../../web/runtime/wasm-module.js';
import { FLAVOURS } from './support.mjs';

const wasmDir = new URL('../../wasm/', import.meta.url);
const dist = new URL('../../web/dist/', import.meta.url);

async function rawModule(flavour) {
  const { default: createModule } = await import(new URL('blockscope-glue.js', dist).href);
  const wasmBinary = readFileSync(new URL(`blockscope-${flavour}.wasm`, dist));
  return createModule({ wasmBinary, print: () => {}, printErr: () => {} });
}

test('bindings files register only through bind_function / bind_class', () => {
  const files = readdirSync(wasmDir).filter((f) => f.endsWith('.cpp') && f !== 'marshal.cpp');
  assert.ok(files.length >= 3, `expected the bindings files in wasm/, found ${files.join(', ')}`);
  for (const file of files) {
    // Comments and strings cannot hide a registration: strip comments, then look for the raw embind calls.
    const code = readFileSync(new URL(file, wasmDir), 'utf8').replace(/\/\/.*$/gm, '');
    const raw = [...code.matchAll(/(?<![\w.])(?:emscripten::)?(function|class_<[^>]*>)\s*\(\s*"(\w+)"/g)];
    assert.deepEqual(raw.map((m) => `${m[1]}("${m[2]}")`), [], `${file} registers without the helpers`);
  }
});

for (const flavour of FLAVOURS) {
  test(`${flavour}: checkedModule wraps every registered binding and nothing else`, async () => {
    const m = await rawModule(flavour);
    const { functions, classes } = m.bindingNames();
    // The ones the runtime is built on are there (a sanity floor, not a second list).
    for (const name of ['layerNorm', 'loadOptions', 'evaluateTokens']) assert.ok(functions.includes(name), name);
    for (const name of ['Block', 'GPT', 'Trainer', 'Tokenizer']) assert.ok(classes.includes(name), name);
    assert.equal(new Set([...functions, ...classes]).size, functions.length + classes.length, 'a name registered twice');
    const checked = checkedModule(m);
    assert.deepEqual(Object.keys(checked).sort(), [...functions, ...classes].sort());
    assert.ok(!('takeError' in checked) && !('bindingNames' in checked), 'the error channel is not a binding');
    // A registered function and a registered constructor each report the core's error as a BlockscopeError.
    assert.throws(() => checked.layerNorm(new Float32Array([1, 2, 3]), new Float32Array(2), new Float32Array(2), 1e-5),
      BlockscopeError);
    assert.throws(() => checked.GPT('{"vocab_size": -1}', 0), BlockscopeError);
    assert.equal(m.takeError(), null, 'the error was taken');
    // ... and so does a registered method; the module keeps working afterwards.
    const ff = checked.FeedForward(4, 8, 'gelu_tanh', 1);
    assert.throws(() => ff.forward(new Float32Array(3)), BlockscopeError);
    ff.delete();
    const out = checked.layerNorm(new Float32Array([1, 2, 3, 4]), new Float32Array(4).fill(1), new Float32Array(4), 1e-5);
    assert.equal(out.mean[0], 2.5);
  });
}
