// 100,000 failing calls per flavour — methods, constructors, free functions and configs nested 100,000 deep —
// must leave the wasm stack pointer exactly where it was and the heap where it was, and every failure must be
// a BlockscopeError naming the problem. (Errors used to be thrown from inside wasm frames, losing ~16 bytes
// of stack and the arguments' buffers each time: after ~65,000 failures every call died.)
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { BlockscopeError, loadBlockscope } from '../../web/runtime/blockscope.js';
import { FLAVOURS } from './support.mjs';

const TINY = { vocab_size: 50, context_length: 12, emb_dim: 16, n_heads: 4, n_layers: 2 };
const CALLS = 100_000;
const DEEP = 100_000;

for (const flavour of FLAVOURS) {
  test(`wasm ${flavour}: ${CALLS.toLocaleString('en')} failing calls leave stack and heap where they started`, async () => {
    const bs = await loadBlockscope({ flavour });
    const gpt = bs.createGPT(TINY);
    const tok = await bs.createTokenizer({ kind: 'bytes' });
    const deepArray = '['.repeat(DEEP) + ']'.repeat(DEEP);
    const deepConfig = `{"vocab_size": ${deepArray}}`;
    const weights = new Uint8Array(16);
    const reference = gpt.forward([1, 2, 3]).logits;

    // Each entry fails inside the core (a C++ exception crossing back as a recorded error).
    const failing = [
      [() => gpt.forward([99]), /token id 99 at position 0 is outside the vocabulary/],
      [() => gpt.generate([1], { overflow: 5 }).next(), /'overflow' must be a string/],
      [() => gpt.generate([1], { topP: 2 }).next(), /top_p must be in \(0, 1\]/],
      [() => gpt.setParameter('nope.weight', new Float32Array(3)), /no parameter named 'nope.weight'/],
      [() => gpt.getParameter('nope.weight'), /nope.weight/],
      [() => gpt.setNormPlacement('sideways'), /unknown norm placement 'sideways'/],
      [() => gpt.loss([1, 2], [1, 77]), /77/],
      [() => bs.createGPT({ ...TINY, n_heads: 5 }), /must be divisible by n_heads/],
      [() => bs.createGPT({ ...TINY, n_layers: 1e300 }), /'n_layers' must be an integer/],
      [() => bs.createBlock({ emb_dim: 8, context_length: 4, n_heads: 3 }), /must be divisible/],
      [() => bs.createFeedForward({ embDim: 4, activation: 'swish' }), /unknown activation 'swish'/],
      [() => bs.createFeedForward({ embDim: NaN }), /embDim must be an integer/],
      [() => bs.countParameters({ ...TINY, n_embd: 3 }), /unknown config key 'n_embd'/],
      [() => bs.layerNorm([1, NaN, 3]), /non-finite value/],
      [() => bs.activation('swish', [1]), /unknown activation 'swish'/],
      [() => bs.topCandidates([1, 2, 3], { k: 2.5 }), /k must be an integer/],
      [() => bs.feedForwardCosts({ embDim: 8, batch: 1e300 }), /batch must be an integer/],
      [() => tok.tokenTexts([300]), /300/],
      [() => bs.createTrainer(gpt, { tokens: [1, 2, 3], config: { steps: -1 } }), /steps/],
    ];
    // Constructors that fail on text nested 100,000 deep (each ~200 KB through the parser).
    const deep = [
      [() => bs.createTokenizer({ kind: 'gpt2', vocab: deepArray, merges: '#version: 0.2\n' }), /nest/i],
      [() => bs.loadModel({ config: deepConfig, weights }), /nest/i],
    ];

    const expectFailure = async ([call, pattern]) => {
      try {
        await call();
      } catch (err) {
        if (!(err instanceof BlockscopeError)) throw new Error(`expected a BlockscopeError, got ${err?.name}: ${err?.message}`);
        if (!pattern.test(err.message)) throw new Error(`message ${JSON.stringify(err.message.slice(0, 200))} does not match ${pattern}`);
        return;
      }
      throw new Error(`expected ${pattern} to be thrown`);
    };

    for (let i = 0; i < 200; i++) await expectFailure(failing[i % failing.length]); // warm up
    for (const d of deep) await expectFailure(d);
    const before = bs.memoryStats();
    let deepCalls = 0;
    for (let i = 0; i < CALLS; i++) {
      if (i % 500 === 0) {
        await expectFailure(deep[deepCalls++ % deep.length]);
      } else {
        const [call, pattern] = failing[i % failing.length];
        try {
          call();
          assert.fail(`call ${i % failing.length} did not fail`);
        } catch (err) {
          if (!(err instanceof BlockscopeError) || !pattern.test(err.message)) await expectFailure([call, pattern]);
        }
      }
    }
    const after = bs.memoryStats();
    console.log(`${flavour}: ${CALLS} failing calls (${deepCalls} of them ${DEEP} deep): ` +
      `stack pointer ${before.stackPointer} -> ${after.stackPointer}, ` +
      `allocated ${before.allocatedBytes} -> ${after.allocatedBytes} bytes, wasm memory ${before.heapBytes} -> ${after.heapBytes} bytes`);
    assert.equal(after.stackPointer, before.stackPointer, 'the wasm stack pointer moved');
    assert.equal(after.heapBytes, before.heapBytes, 'wasm memory grew');
    assert.ok(after.allocatedBytes - before.allocatedBytes <= 4096,
      `malloc'd bytes grew from ${before.allocatedBytes} to ${after.allocatedBytes}`);
    assert.deepEqual(gpt.forward([1, 2, 3]).logits, reference, 'the model computes the same logits as before');
    tok.dispose();
    gpt.dispose();
  });
}
