// Loading a checkpoint streams model.safetensors into the parameters: in a fresh runtime (a child process per
// flavour, so no earlier allocation hides growth), wasm memory after loading stays within 1.2x the float32
// weights — holding the file and then the parameters, as loaders that read the whole file do, would need
// 2x — and the loaded model computes the same logits as the one saved. Both a float32 file (from disk, in
// Node's stream chunks) and its bytes from memory are covered.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { loadBlockscope } from '../../web/runtime/blockscope.js';
import { assertClose, FLAVOURS, LOGITS_ATOL, WASM_FLAGS } from './support.mjs';

// 8.5 M parameters (34 MB of float32): large next to the runtime's own 16 MiB of memory.
const CONFIG = { vocab_size: 8192, context_length: 256, emb_dim: 256, n_heads: 4, n_layers: 8, drop_rate: 0, qkv_bias: true, tie_weights: true };
const dir = mkdtempSync(join(tmpdir(), 'blockscope-load-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const runtimeUrl = new URL('../../web/runtime/blockscope.js', import.meta.url).href;
// Runs in a child process: loads the model into a fresh runtime and prints memory before/after and logits.
const CHILD = `
const { loadBlockscope } = await import(${JSON.stringify(runtimeUrl)});
const [flavour, url, how] = process.argv.slice(1);
const bs = await loadBlockscope({ flavour });
const before = bs.memoryStats();
let gpt;
if (how === 'url') gpt = await bs.loadModel({ url });
else {
  const { readFileSync } = await import('node:fs');
  gpt = await bs.loadModel({ config: readFileSync(new URL('config.json', url), 'utf8'), weights: readFileSync(new URL('model.safetensors', url)) });
}
const after = bs.memoryStats();
const logits = Array.from(gpt.forward([1, 2, 3, 4]).logits.slice(-8));
console.log(JSON.stringify({ before, after, parameters: gpt.numParameters, logits }));
`;

test('save an 8.5M-parameter model for the load tests', async () => {
  const bs = await loadBlockscope({ flavour: 'simd' });
  const gpt = bs.createGPT(CONFIG, { seed: 7 });
  const saved = gpt.save({ layout: 'huggingface' });
  writeFileSync(join(dir, 'config.json'), saved.config);
  writeFileSync(join(dir, 'model.safetensors'), saved.weights);
  writeFileSync(join(dir, 'logits.json'), JSON.stringify(Array.from(gpt.forward([1, 2, 3, 4]).logits.slice(-8))));
  gpt.dispose();
});

for (const flavour of FLAVOURS) {
  for (const how of ['url', 'bytes']) {
    test(`wasm ${flavour}: loading from ${how} grows memory by at most 1.2x the float32 weights`, async () => {
      const { readFileSync } = await import('node:fs');
      const url = `file://${dir}/`;
      const out = JSON.parse(execFileSync(process.execPath, [...WASM_FLAGS, '--input-type=module', '-e', CHILD, flavour, url, how],
        { encoding: 'utf8', cwd: fileURLToPath(new URL('../../', import.meta.url)) }));
      const weightBytes = 4 * out.parameters;
      assert.equal(out.parameters, 8_481_280);
      const grown = out.after.heapBytes - out.before.heapBytes;
      const held = out.after.allocatedBytes - out.before.allocatedBytes;
      assert.ok(held >= weightBytes && held <= weightBytes * 1.02 + (1 << 20),
        `malloc'd ${held} B after loading ${weightBytes} B of weights: the file or a staging copy is still held`);
      assert.ok(grown <= weightBytes * 1.2, `wasm memory grew by ${grown} B for ${weightBytes} B of weights (limit 1.2x)`);
      // Saved from the simd flavour: the baseline's sums round differently.
      assertClose(out.logits, JSON.parse(readFileSync(join(dir, 'logits.json'), 'utf8')), `${flavour} loaded logits`,
        { atol: LOGITS_ATOL, rtol: 0 });
    });
  }
}
