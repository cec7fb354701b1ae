// Bad input through the wasm API: every mistake is a thrown Error whose message names the problem, and the
// module keeps working afterwards (every flavour).
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';

import { loadBlockscope } from '../../web/runtime/blockscope.js';
import { FLAVOURS } from './support.mjs';

const TINY = { vocab_size: 50, context_length: 12, emb_dim: 16, n_heads: 4, n_layers: 2 };

for (const flavour of FLAVOURS) {
  describe(`wasm ${flavour}: bad input`, () => {
    let bs;
    let gpt;
    before(async () => {
      bs = await loadBlockscope({ flavour });
      gpt = bs.createGPT(TINY);
    });

    const stillWorks = () => {
      const r = gpt.forward([1, 2, 3]);
      assert.equal(r.logits.length, 3 * 50);
      assert.ok(r.logits.every(Number.isFinite));
      assert.equal(bs.layerNorm([1, 3, 5, 7]).mean[0], 4);
    };

    test('invalid GPT configs', () => {
      assert.throws(() => bs.createGPT({ ...TINY, n_heads: 5 }), /emb_dim \(16\) must be divisible by n_heads \(5\)/);
      assert.throws(() => bs.createGPT({ ...TINY, n_layers: 0 }), /n_layers must be positive, got 0/);
      assert.throws(() => bs.createGPT({ ...TINY, vocab_size: -3 }), /vocab_size must be positive, got -3/);
      assert.throws(() => bs.createGPT({ ...TINY, context_length: 2.5 }), /'context_length' must be an integer/);
      assert.throws(() => bs.createGPT({ ...TINY, n_embd: 16 }), /unknown config key 'n_embd'/);
      assert.throws(() => bs.createGPT({ ...TINY, norm: 'sideways' }), /unknown norm placement 'sideways'/);
      assert.throws(() => bs.createGPT({ vocab_size: 50 }), /missing 'context_length'/);
      assert.throws(() => bs.createGPT(TINY, { seed: -1 }), /seed must be an integer/);
      stillWorks();
    });

    test('token ids outside the vocabulary, non-integers and too-long sequences', () => {
      assert.throws(() => gpt.forward([1, 50]), /token id 50 at position 1 is outside the vocabulary \[0, 50\)/);
      assert.throws(() => gpt.forward([-1]), /token id -1 at position 0/);
      assert.throws(() => gpt.forward([1, 2.5]), /token id 2.5 at position 1 is not an integer/);
      assert.throws(() => gpt.forward([1, NaN]), /token id NaN at position 1/);
      assert.throws(() => gpt.forward(['a']), /token id a at position 0/);
      assert.throws(() => gpt.forward(new Array(13).fill(1)), /sequence length 13 exceeds context_length 12/);
      assert.throws(() => gpt.forward(new Array(13).fill(1), { overflow: 'first' }), /overflow must be 'error' or 'crop', got 'first'/);
      assert.throws(() => gpt.forward([]), /sequence length must be positive/);
      assert.throws(() => gpt.forward([[1, 2], [3]]), /batch rows differ in length/);
      stillWorks();
    });

    test('overflow: "crop" reads the last context_length tokens of each sequence (the core\'s rule)', () => {
      const long = Array.from({ length: 15 }, (_, i) => (i * 7) % 50);
      const cropped = gpt.forward([long, long.slice().reverse()], { overflow: 'crop' });
      assert.equal(cropped.cropped, 3);
      assert.deepEqual(cropped.shape, [2, 12, 50]);
      const direct = gpt.forward([long.slice(3), long.slice().reverse().slice(3)]);
      assert.deepEqual(cropped.logits, direct.logits);
      assert.equal(gpt.forward(long.slice(0, 5), { overflow: 'crop' }).cropped, 0);
      stillWorks();
    });

    test('wrong lengths and shapes', () => {
      assert.throws(() => bs.layerNorm([1, 2, 3], { gamma: [1, 1] }), /length 3 is not a whole number of rows of length 2/);
      assert.throws(() => bs.layerNorm([1, 2], { gamma: [1, 1], beta: [0] }), /gamma has 2 values but beta has 1/);
      assert.throws(() => bs.layerNorm([1, 2], { eps: 0 }), /eps must be a positive finite number/);
      assert.throws(() => bs.layerNorm('abc'), /must be a Float32Array or an array of numbers/);
      assert.throws(() => gpt.setParameter('tok_emb.weight', new Float32Array(3)), /needs 800 values, got 3/);
      assert.throws(() => gpt.setParameter('nope.weight', new Float32Array(3)), /no parameter named 'nope.weight'/);
      const ff = bs.createFeedForward({ embDim: 4 });
      assert.throws(() => ff.forward([1, 2, 3]), /length 3 is not a whole number of rows of length emb_dim = 4/);
      ff.dispose();
      assert.throws(() => ff.forward([1, 2, 3, 4]), /has been disposed/);
      const block = bs.createBlock({ emb_dim: 8, context_length: 4, n_heads: 2 });
      assert.throws(() => block.forward(new Float32Array(8 * 5), 1, 5), /sequence length 5 exceeds context_length 4/);
      assert.throws(() => block.forward(new Float32Array(7), 1, 1), /needs B x T x emb_dim = 1 x 1 x 8 = 8 values, got 7/);
      block.dispose();
      assert.throws(() => bs.createBlock({ emb_dim: 8, context_length: 4, n_heads: 3 }), /must be divisible/);
      assert.throws(() => bs.createFeedForward({ embDim: 0 }), /emb_dim must be positive, got 0/);
      assert.throws(() => bs.activation('swish', [1]), /unknown activation 'swish'/);
      stillWorks();
    });

    test('NaN and infinity are rejected by name', () => {
      assert.throws(() => bs.layerNorm([1, NaN, 3]), /LayerNorm input contains a non-finite value \(nan\) at flat index 1/);
      assert.throws(() => bs.gelu([Infinity]), /activation input contains a non-finite value/);
      assert.throws(() => gpt.setParameter('final_norm.scale', new Float32Array(16).fill(NaN)), /final_norm.scale contains a non-finite value/);
      stillWorks();
    });
  });
}
