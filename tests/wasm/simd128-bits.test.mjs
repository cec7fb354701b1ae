// The SIMD128 flavour reproduces tests/golden/simd128_bits.json bit for bit (forward passes on both kernel paths,
// sampled generation, training steps and the weights they leave; tests/reference/simd128_bits.mjs): the flavour
// reproducibility claims rest on stays the same from build to build. (The other flavours are held to tolerances:
// golden.test.mjs compares their logits with the simd flavour's, and every flavour's with PyTorch's.)
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { loadBlockscope } from '../../web/runtime/blockscope.js';
import { simd128Outputs } from '../reference/simd128_bits.mjs';

const golden = JSON.parse(readFileSync(new URL('../golden/simd128_bits.json', import.meta.url), 'utf8')).outputs;
const sha256 = async (bytes) => createHash('sha256').update(bytes).digest('hex');

test('the simd flavour computes exactly the bits of tests/golden/simd128_bits.json', async () => {
  assert.deepEqual(await simd128Outputs(await loadBlockscope({ flavour: 'simd' }), sha256), golden);
});
