// Faults of the whole runtime rather than of one input, in every wasm flavour: the memory budget is the runtime's
// (models, KV caches and generators that each fit their own budget but not together end in a BlockscopeError naming
// what the runtime holds — never a trap — and the stack and heap are as before); generations dropped half-way are
// freed by the garbage collector or with their model; int8 weights report a non-finite activation as float32
// does; topCandidates ranks every id when k reaches the vocabulary; detached and shared typed arrays are handled
// before they cross into wasm.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

import { BlockscopeError, loadBlockscope } from '../../web/runtime/blockscope.js';
import { FLAVOURS } from './support.mjs';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc');
const GiB = 2 ** 30;
const MiB = 2 ** 20;

/** Collects garbage until the FinalizationRegistry callbacks have run. */
async function collect() {
  for (let i = 0; i < 4; i++) {
    gc();
    await new Promise((r) => setTimeout(r, 20));
  }
}

for (const flavour of FLAVOURS) {
  test(`wasm ${flavour}: models that fit one by one but not together end in a BlockscopeError, not a trap`, async () => {
    const bs = await loadBlockscope({ flavour });
    // 354M parameters: 1.3 GiB each, well inside a model's own 2 GiB budget; the third would pass 3.5 GiB.
    const cfg = { vocab_size: 256, context_length: 64, emb_dim: 2048, n_layers: 7, n_heads: 16, drop_rate: 0, qkv_bias: false };
    const start = bs.memoryStats();
    const models = [bs.createGPT(cfg, { seed: 1 }), bs.createGPT(cfg, { seed: 2 })];
    const held = bs.memoryStats();
    assert.ok(held.allocatedBytes > 2.2 * GiB, `allocatedBytes ${held.allocatedBytes}: counted past 2 GiB without wrapping`);
    assert.throws(() => bs.createGPT(cfg, { seed: 3 }), (err) => err instanceof BlockscopeError &&
      /needs 1\.3 GiB but this runtime already holds 2\.6 GiB of its 3\.5 GiB/.test(err.message), 'the third model');
    assert.equal(bs.memoryStats().stackPointer, start.stackPointer, 'no stack lost');
    assert.equal(models[0].forward([1, 2, 3]).logits.length, 3 * 256, 'the models still work');
    for (const m of models) m.dispose();
    assert.ok(bs.memoryStats().allocatedBytes - start.allocatedBytes < MiB, 'everything freed');
  });

  test(`wasm ${flavour}: 2,000 live generators end in a BlockscopeError; dropped ones are freed by GC and by dispose()`, async () => {
    const bs = await loadBlockscope({ flavour });
    const start = bs.memoryStats().allocatedBytes;
    // A KV cache of 2 x 4 layers x 4096 x 256 floats = 32 MiB per generation: about 110 fit in the runtime.
    const gpt = bs.createGPT({ vocab_size: 64, context_length: 4096, emb_dim: 256, n_heads: 4, n_layers: 4 }, { seed: 5 });
    const base = bs.memoryStats();
    const live = [];
    let error = null;
    for (let i = 0; i < 2000 && !error; i++) {
      try {
        const g = gpt.generate([1, 2, 3], { maxNewTokens: 2, seed: i });
        g.next();
        live.push(g);
      } catch (err) {
        error = err;
      }
    }
    assert.ok(error instanceof BlockscopeError, `a BlockscopeError after ${live.length} generators, got ${error}`);
    assert.match(error.message, /KV cache .* but this runtime already holds/);
    assert.ok(live.length > 50 && live.length < 2000, `${live.length} generators fitted`);
    assert.equal(bs.memoryStats().stackPointer, base.stackPointer);
    for (const g of live) g.return();
    assert.ok(bs.memoryStats().allocatedBytes - base.allocatedBytes < MiB, 'return() frees each generation');

    // Dropped half-way, never finished nor returned: the garbage collector frees them.
    const small = bs.createGPT({ vocab_size: 64, context_length: 512, emb_dim: 128, n_heads: 4, n_layers: 2 }, { seed: 6 });
    const before = bs.memoryStats().allocatedBytes;
    for (let i = 0; i < 500; i++) small.generate([1, 2], { maxNewTokens: 5, seed: i }).next();
    const dropped = bs.memoryStats().allocatedBytes - before;
    assert.ok(dropped > 200 * MiB, `500 open generations hold ${(dropped / MiB).toFixed(0)} MiB`);
    await collect();
    const afterGc = bs.memoryStats().allocatedBytes - before;
    console.log(`${flavour}: 500 dropped generations held ${(dropped / MiB).toFixed(0)} MiB, ${(afterGc / MiB).toFixed(1)} MiB after GC`);
    assert.ok(afterGc < MiB, `${(afterGc / MiB).toFixed(1)} MiB still held after GC`);
    // Kept but abandoned: disposing the model frees them (and stepping one afterwards says why it cannot).
    const kept = Array.from({ length: 100 }, (_, i) => small.generate([1, 2], { maxNewTokens: 5, seed: i }));
    kept.forEach((g) => g.next());
    assert.ok(bs.memoryStats().allocatedBytes - before > 50 * MiB, 'the kept generations hold their caches');
    small.dispose();
    gpt.dispose();
    assert.ok(bs.memoryStats().allocatedBytes - start < MiB, 'the models and their generations are freed');
    assert.throws(() => kept[0].next(), /the GPT was disposed during generation/);
    assert.deepEqual(kept[0].next(), { done: true, value: undefined }, 'and is finished after saying so');
  });

  test(`wasm ${flavour}: int8 weights report a non-finite activation as float32 does`, async () => {
    const bs = await loadBlockscope({ flavour });
    const f = bs.createGPT({ vocab_size: 40, context_length: 8, emb_dim: 64, n_heads: 4, n_layers: 1 }, { seed: 7 });
    // LayerNorm's shift at 3e38 (finite) overflows the first projection's input to inf.
    f.setParameter('trf_blocks.0.norm1.shift', new Float32Array(64).fill(3e38));
    f.setParameter('trf_blocks.0.norm1.scale', new Float32Array(64).fill(3e38));
    const { config, weights } = f.save();
    const q = await bs.loadModel({ config, weights }, { weights: 'int8' });
    assert.equal(q.weightFormat, 'int8');
    const outcome = (m) => {
      try {
        return { logitsFinite: m.forward([1, 2, 3]).logits.every(Number.isFinite) };
      } catch (err) {
        return { error: err.message.replace(/int8 |float32 /g, '') };
      }
    };
    const ff = outcome(f);
    assert.ok(ff.error || ff.logitsFinite === false, 'float32 reports the non-finite activation');
    assert.deepEqual(outcome(q), ff, 'int8 reports it the same way');
    assert.throws(() => [...q.generate([1, 2, 3], { maxNewTokens: 3 })], /NaN|finite/, 'int8 does not sample from NaN');
    f.dispose();
    q.dispose();
  });

  test(`wasm ${flavour}: topCandidates with k at or past the vocabulary ranks every id; detached arrays are refused`, async () => {
    const bs = await loadBlockscope({ flavour });
    const logits = Float32Array.from([0.5, 3, -1, 2, 100, 1]);
    for (const k of [6, 7, 1000]) {
      const c = bs.topCandidates(logits, { k });
      assert.deepEqual(c.map((x) => x.id), [4, 1, 3, 5, 0, 2], `k = ${k}: every id, best first`);
      assert.ok(c.every((x) => Number.isFinite(x.probability)), `k = ${k}: finite probabilities`);
      assert.ok(Math.abs(c.reduce((s, x) => s + x.probability, 0) - 1) < 1e-6, `k = ${k}: they sum to 1`);
    }
    assert.throws(() => bs.topCandidates([1, Infinity]), /logit 1 is \+inf/);
    assert.throws(() => bs.topCandidates([-Infinity, -Infinity]), /every logit is -inf/);

    const stack = bs.memoryStats().stackPointer;
    for (let i = 0; i < 1000; i++) {
      const a = new Float32Array(4).fill(1);
      structuredClone(a.buffer, { transfer: [a.buffer] });
      assert.throws(() => bs.gelu(a), /activation input is a detached Float32Array/);
      assert.throws(() => bs.layerNorm(a), /detached/);
    }
    const ids = new Int32Array([1, 2]);
    structuredClone(ids.buffer, { transfer: [ids.buffer] });
    const gpt = bs.createGPT({ vocab_size: 10, context_length: 4, emb_dim: 8, n_heads: 2, n_layers: 1 });
    assert.throws(() => gpt.forward(ids), /token ids is a detached Int32Array/);
    assert.equal(bs.memoryStats().stackPointer, stack, 'no stack lost');
    // A SharedArrayBuffer's contents are copied first: the same numbers as an ordinary array.
    const shared = new Float32Array(new SharedArrayBuffer(16)).fill(0.5);
    assert.deepEqual(Array.from(bs.gelu(shared)), Array.from(bs.gelu(new Float32Array(4).fill(0.5))));
    gpt.dispose();
  });
}
