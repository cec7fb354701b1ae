// 10,000 widget-style calls must not grow the wasm heap: every temporary is freed and every handle disposed.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { loadBlockscope } from '../../web/runtime/blockscope.js';
import { FLAVOURS } from './support.mjs';

for (const flavour of FLAVOURS) {
  test(`wasm ${flavour}: 10,000 widget-style calls leave the heap stable`, async () => {
    const bs = await loadBlockscope({ flavour });
    const gpt = bs.createGPT({ vocab_size: 50, context_length: 12, emb_dim: 16, n_heads: 4, n_layers: 2 });
    const xs = Float32Array.from({ length: 61 }, (_, i) => -3 + 0.1 * i);
    const call = (i) => {
      switch (i % 6) {
        case 0: return bs.layerNorm([1, 3, 5, 7], { gamma: [1, 2, 1, 1], beta: [0, 0, 0.5, 0] });
        case 1: return bs.gelu(xs);
        case 2: return bs.activationDerivative('gelu_erf', xs);
        case 3: return gpt.forward([1, 2, 3, (i % 47) + 1], { inspect: true });
        case 4: {
          const ff = bs.createFeedForward({ embDim: 8, seed: i });
          const r = ff.forward(new Float32Array(16).fill(0.5));
          ff.dispose();
          return r;
        }
        default:
          try {
            gpt.forward([99]); // a failing call must not leak either
          } catch {
            return null;
          }
          throw new Error('expected an error');
      }
    };
    for (let i = 0; i < 600; i++) call(i); // warm up: workspaces reach their steady size
    const before = bs.memoryStats();
    for (let i = 0; i < 10000; i++) call(i);
    const afterStats = bs.memoryStats();
    console.log(`${flavour}: allocated ${before.allocatedBytes} -> ${afterStats.allocatedBytes} bytes, ` +
      `heap ${before.heapBytes} -> ${afterStats.heapBytes} bytes`);
    assert.equal(afterStats.heapBytes, before.heapBytes, 'wasm memory grew');
    assert.ok(afterStats.allocatedBytes - before.allocatedBytes <= 4096,
      `malloc'd bytes grew from ${before.allocatedBytes} to ${afterStats.allocatedBytes}`);
    gpt.dispose();
  });
}
