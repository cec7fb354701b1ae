// Which flavour a runtime loads (web/runtime/locations.js): 'auto' takes the first of FLAVOURS the engine runs —
// simd-relaxed where relaxed SIMD validates, then simd, then baseline —, any flavour can be forced, and forcing one
// the engine cannot run is an Error naming what it lacks. Node 20 has relaxed SIMD only behind
// --experimental-wasm-relaxed-simd, so both cases run here: this process has the flag (scripts/test.sh), a child
// process started without it has not.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';

import { loadBlockscope } from '../../web/runtime/blockscope.js';
import { FLAVOURS, relaxedSimdSupported, resolveFlavour, simdSupported } from '../../web/runtime/locations.js';
import { WASM_FLAGS } from './support.mjs';

test('with relaxed SIMD, auto loads simd-relaxed, whose kernels are the relaxed ones', async () => {
  assert.ok(WASM_FLAGS.includes('--experimental-wasm-relaxed-simd'), 'run the wasm tests with node --experimental-wasm-relaxed-simd');
  assert.equal(relaxedSimdSupported(), true);
  assert.deepEqual(FLAVOURS, ['simd-relaxed', 'simd', 'baseline']);
  assert.equal(resolveFlavour(), 'simd-relaxed');
  const bs = await loadBlockscope();
  assert.equal(bs.flavour, 'simd-relaxed');
  assert.deepEqual({ ...bs.buildInfo(), version: undefined }, { flavour: 'simd-relaxed', isa: 'relaxed-simd', version: undefined, module: 'full' });
  for (const flavour of ['simd', 'baseline']) {
    const forced = await loadBlockscope({ flavour });
    assert.equal(forced.buildInfo().flavour, flavour);
    assert.equal(forced.buildInfo().isa, flavour === 'simd' ? 'simd128' : 'generic');
  }
  assert.throws(() => resolveFlavour('relaxed'), /unknown flavour 'relaxed' \(expected auto, simd-relaxed, simd, baseline\)/);
});

const CHILD = `
const { loadBlockscope } = await import(${JSON.stringify(new URL('../../web/runtime/blockscope.js', import.meta.url).href)});
const auto = await loadBlockscope();
const forced = await loadBlockscope({ flavour: 'simd-relaxed' }).then(() => null, (e) => e.message);
console.log(JSON.stringify({ auto: auto.flavour, forced }));`;

test('without relaxed SIMD, auto falls back to simd and a forced simd-relaxed says what the engine lacks', () => {
  assert.equal(simdSupported(), true);
  const out = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', CHILD], { encoding: 'utf8' }));
  assert.equal(out.auto, 'simd');
  assert.match(out.forced, /^cannot load the simd-relaxed flavour: this engine does not support WebAssembly relaxed SIMD .*--experimental-wasm-relaxed-simd.*; use the simd flavour$/);
});
