// Sizes that would wrap wasm32's 32-bit size_t, parameter counts beyond int64 or any allocator, top-k beyond
// 2^32 and lone surrogates, through the JS API of every flavour: each is refused (or handled) with a clear
// message, nothing is allocated, and the runtime keeps working.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { BlockscopeError, loadBlockscope } from '../../web/runtime/blockscope.js';
import { FLAVOURS } from './support.mjs';

for (const flavour of FLAVOURS) {
  test(`wasm ${flavour}: sizes past 2^32, huge counts, top-k 2^32 and lone surrogates`, async () => {
    const bs = await loadBlockscope({ flavour });
    const start = bs.memoryStats();

    // Attention weights B x NH x T x T = 2^32 floats: T = 65,536 with one head; 16 heads x T = 16,384.
    for (const [heads, T] of [[1, 65536], [16, 16384]]) {
      const gpt = bs.createGPT({ vocab_size: 2, context_length: T, emb_dim: 16, n_heads: heads, n_layers: 1 });
      assert.throws(() => gpt.forward(new Int32Array(T)), (err) => err instanceof BlockscopeError &&
        /memory budget/.test(err.message), `T = ${T} with ${heads} head(s)`);
      assert.equal(gpt.forward([1, 0, 1]).logits.length, 6, 'the model still works');
      gpt.dispose();
    }
    // Logits B x T x vocab >= 2^32 floats.
    const wide = bs.createGPT({ vocab_size: 1 << 20, context_length: 4096, emb_dim: 1, n_heads: 1, n_layers: 1 });
    assert.throws(() => wide.forward(new Int32Array(4096)), /memory budget/);
    wide.dispose();

    // Parameter counts: beyond the size limits, and beyond int64.
    assert.throws(() => bs.countParameters({ vocab_size: 50, context_length: 8, emb_dim: 2 ** 32, n_heads: 1, n_layers: 1 }),
      /emb_dim 4294967296 exceeds the limit/);
    assert.throws(() => bs.countParameters({ vocab_size: 50, context_length: 8, emb_dim: 8, n_heads: 1, n_layers: 88888888888888881 }),
      /n_layers .* exceeds the limit of 4096/);
    assert.throws(() => bs.createGPT({ vocab_size: 2 ** 31 - 1, context_length: 8, emb_dim: 4096, n_heads: 1, n_layers: 1 }),
      /memory budget/);

    // A KV cache over the budget is refused when generation starts; the model is unchanged.
    const deep = bs.createGPT({ vocab_size: 4, context_length: 1 << 20, emb_dim: 2, n_heads: 1, n_layers: 1000 });
    assert.throws(() => [...deep.generate([1], { maxNewTokens: 1 })], /KV cache .* memory budget/);
    deep.dispose();

    // top-k at or beyond the vocabulary keeps every token (as 0 does); 2^32 + 1 is no longer top-1.
    const gpt = bs.createGPT({ vocab_size: 40, context_length: 16, emb_dim: 8, n_heads: 2, n_layers: 1 });
    const sample = (topK) => [...gpt.generate([1, 2], { maxNewTokens: 8, topK, seed: 3 })].map((s) => s.token);
    assert.deepEqual(sample(2 ** 32), sample(0));
    assert.deepEqual(sample(2 ** 32 + 1), sample(0));
    assert.throws(() => sample(2 ** 64), /topK/);

    // Lone surrogates become U+FFFD (EF BF BD) instead of swallowing the next character.
    const tok = await bs.createTokenizer({ kind: 'bytes' });
    assert.deepEqual(Array.from(tok.encode('a\ud800b')), [0x61, 0xef, 0xbf, 0xbd, 0x62]);
    assert.deepEqual(Array.from(tok.encode('\udc00')), [0xef, 0xbf, 0xbd]);
    assert.deepEqual(Array.from(tok.encode('😀')), [0xf0, 0x9f, 0x98, 0x80], 'pairs are untouched');
    tok.dispose();
    gpt.dispose();

    const end = bs.memoryStats();
    assert.equal(end.stackPointer, start.stackPointer);
    assert.ok(end.heapBytes <= 256 * 2 ** 20, `wasm memory grew to ${end.heapBytes} bytes`);
  });
}
