// Int8 weights through the JavaScript API: loadModel(…, {weights: 'int8'}) on the shipped trained model gives
// a GPT that says it is int8, holds under a third of the float32 bytes, computes logits within 0.5 of the
// float32 model's and mostly the same greedy tokens, refuses gradients, and a bad format is an Error naming
// it before anything is read. In a fresh runtime (a child process), loading grows wasm memory by at most
// 0.35x the float32 weights: the matrices are quantized as they stream in, never held in float32.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { loadBlockscope } from '../../web/runtime/blockscope.js';
import { connect } from '../../web/runtime/client.js';
import { FLAVOURS, WASM_FLAGS } from './support.mjs';

const brown = new URL('../../web/models/brown/', import.meta.url);
const source = () => ({ config: readFileSync(new URL('config.json', brown), 'utf8'), weights: readFileSync(new URL('model.safetensors', brown)) });
const maxAbsDiff = (a, b) => a.reduce((m, x, i) => Math.max(m, Math.abs(x - b[i])), 0);
const ids = Array.from({ length: 64 }, (_, t) => (t * 7 + 3) % 256);

for (const flavour of FLAVOURS) {
  test(`wasm ${flavour}: an int8 load of the shipped model stays close to float32`, async () => {
    const bs = await loadBlockscope({ flavour });
    const f = await bs.loadModel(source());
    const q = await bs.loadModel(source(), { weights: 'int8' });
    assert.equal(f.weightFormat, 'f32');
    assert.equal(q.weightFormat, 'int8');
    assert.equal(q.numParameters, f.numParameters);
    assert.equal(f.parameterBytes, 4 * f.numParameters);
    assert.ok(q.parameterBytes < 0.32 * f.parameterBytes, `int8 parameters take ${q.parameterBytes} B of ${f.parameterBytes}`);
    const d = maxAbsDiff(q.forward(ids).logits, f.forward(ids).logits);
    assert.ok(d > 0 && d <= 0.5, `max |Δ logits| ${d} (limit 0.5; measured 0.27 of logits up to 25)`);
    const greedy = (m) => [...m.generate(ids.slice(0, 8), { maxNewTokens: 64, temperature: 0 })].map((x) => x.token);
    const a = greedy(f), b = greedy(q);
    const same = a.findIndex((t, i) => t !== b[i]);
    assert.ok(same < 0 || same >= 32, `greedy tokens agree for the first ${same} of 64`);
    assert.ok(Number.isFinite(q.loss(ids.slice(0, 63), ids.slice(1))), 'evaluation works on int8 weights');
    assert.throws(() => q.lossAndGradients(ids.slice(0, 63), ids.slice(1)), /inference-only/);
    assert.throws(() => q.getParameter('trf_blocks.0.att.W_query.weight'), /stored as int8/);
    // parameters() lists every parameter, the int8 matrices marked as such.
    const numel = (list) => list.reduce((n, p) => n + p.shape.reduce((a, b) => a * b, 1), 0);
    assert.equal(numel(q.parameters()), q.numParameters);
    assert.deepEqual(q.parameters().map((p) => p.name).sort(), f.parameters().map((p) => p.name).sort());
    const int8 = q.parameters().filter((p) => p.format === 'int8').map((p) => p.name);
    assert.ok(int8.includes('tok_emb.weight') && int8.includes('trf_blocks.0.att.W_query.weight'), int8.join());
    assert.ok(!int8.includes('pos_emb.weight') && f.parameters().every((p) => p.format === undefined));
    f.dispose();
    q.dispose();
  });
}

test('loadModel names a bad weights option before reading anything', async () => {
  const bs = await loadBlockscope({ flavour: 'simd' });
  for (const bad of ['int4', 'INT8', '', 8]) {
    await assert.rejects(bs.loadModel({ url: 'file:///nonexistent/' }, { weights: bad }),
      (err) => err.message.includes(`'${bad}'`) && err.message.includes("'f32' or 'int8'"), `weights: ${JSON.stringify(bad)}`);
  }
});

test('the page client (web/runtime/client.js) forwards {weights} to the runtime and reports the format', async () => {
  const client = await connect({ inThread: true, flavour: 'simd' });
  const { config, weights } = source();
  const q = await client.loadModel({ config, weights }, { weights: 'int8' });
  const f = await client.loadModel({ config, weights });
  assert.equal(q.weightFormat, 'int8');
  assert.equal(f.weightFormat, 'f32');
  assert.ok(q.parameterBytes < 0.32 * f.parameterBytes, `int8 ${q.parameterBytes} B vs f32 ${f.parameterBytes} B`);
  await assert.rejects(client.loadModel({ config, weights }, { weights: 'int4' }), /'int4'/);
  await q.dispose();
  await f.dispose();
});

// 8.5 M parameters (34 MB of float32): large next to the runtime's own 16 MiB of memory.
const CONFIG = { vocab_size: 8192, context_length: 256, emb_dim: 256, n_heads: 4, n_layers: 8, drop_rate: 0, qkv_bias: true, tie_weights: true };
const dir = mkdtempSync(join(tmpdir(), 'blockscope-int8-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const runtimeUrl = new URL('../../web/runtime/blockscope.js', import.meta.url).href;
const CHILD = `
const { loadBlockscope } = await import(${JSON.stringify(runtimeUrl)});
const [flavour, url] = process.argv.slice(1);
const bs = await loadBlockscope({ flavour });
const before = bs.memoryStats();
const gpt = await bs.loadModel({ url }, { weights: 'int8' });
const after = bs.memoryStats();
console.log(JSON.stringify({ before, after, parameters: gpt.numParameters, format: gpt.weightFormat }));
`;

test('save an 8.5M-parameter model for the int8 memory test', async () => {
  const bs = await loadBlockscope({ flavour: 'simd' });
  const gpt = bs.createGPT(CONFIG, { seed: 7 });
  const saved = gpt.save({ layout: 'huggingface' });
  writeFileSync(join(dir, 'config.json'), saved.config);
  writeFileSync(join(dir, 'model.safetensors'), saved.weights);
  gpt.dispose();
});

for (const flavour of FLAVOURS) {
  test(`wasm ${flavour}: an int8 load grows memory by at most 0.35x the float32 weights`, () => {
    const out = JSON.parse(execFileSync(process.execPath, [...WASM_FLAGS, '--input-type=module', '-e', CHILD, flavour, `file://${dir}/`],
      { encoding: 'utf8', cwd: fileURLToPath(new URL('../../', import.meta.url)) }));
    assert.equal(out.format, 'int8');
    const weightBytes = 4 * out.parameters;
    const grown = out.after.heapBytes - out.before.heapBytes;
    const held = out.after.allocatedBytes - out.before.allocatedBytes;
    assert.ok(held <= weightBytes * 0.32, `malloc'd ${held} B after an int8 load of ${weightBytes} B of float32 weights`);
    assert.ok(grown <= weightBytes * 0.35, `wasm memory grew by ${grown} B for ${weightBytes} B of float32 weights (limit 0.35x)`);
  });
}
