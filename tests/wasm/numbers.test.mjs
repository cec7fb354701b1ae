// Decimal numbers into the wasm core: its strtod is the JS engine's Number() (wasm/strtod.cpp), so a value sent in
// a JSON config must come back bit for bit. A training config's `clip` (any double >= 0) travels JS -> JSON text
// -> the core's parser -> a C++ double -> nlohmann's shortest-decimal writer -> JSON.parse, in every flavour; the
// native build reads the same texts with glibc (tests/unit/test_json_numbers.cpp).
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';

import { loadBlockscope } from '../../web/runtime/blockscope.js';
import { FLAVOURS } from './support.mjs';

const TINY = { vocab_size: 20, context_length: 8, emb_dim: 8, n_heads: 2, n_layers: 1 };
const TOKENS = Int32Array.from({ length: 200 }, (_, i) => (i * 7) % 20);

/** Non-negative finite doubles from random bit patterns (seeded), all exponents. */
function randomDoubles(n, seed) {
  const bits = new BigUint64Array(1);
  const view = new Float64Array(bits.buffer);
  const out = [];
  let s = BigInt(seed);
  while (out.length < n) {
    s = (s * 6364136223846793005n + 1442695040888963407n) & 0xffffffffffffffffn;  // 64-bit LCG
    bits[0] = s & 0x7fffffffffffffffn;  // sign bit clear
    if (Number.isFinite(view[0])) out.push(view[0]);
  }
  return out;
}

for (const flavour of FLAVOURS) {
  describe(`wasm ${flavour}: decimal numbers`, () => {
    let bs;
    let gpt;
    before(async () => {
      bs = await loadBlockscope({ flavour });
      gpt = bs.createGPT(TINY);
    });

    const roundTrip = (clip) => {
      const trainer = bs.createTrainer(gpt, { tokens: TOKENS, config: { steps: 1, batch_size: 1, clip } });
      try {
        return trainer.config.clip;
      } finally {
        trainer.dispose();
      }
    };

    test('hard cases come back bit for bit', () => {
      const hard = [0, 0.1, 0.30000000000000004, 1e-5, 3e-4, 2.2250738585072014e-308, 2.225073858507201e-308,
        5e-324, 1.7976931348623157e308, 9007199254740993, 123456789.12345679, 7.2057594037927933e16, 1 / 3];
      for (const clip of hard) assert.ok(Object.is(roundTrip(clip), clip), `clip ${clip}`);
    });

    test('2,000 random doubles come back bit for bit', () => {
      for (const clip of randomDoubles(2000, flavour === 'simd' ? 1 : 2)) {
        const got = roundTrip(clip);
        if (!Object.is(got, clip)) assert.fail(`clip ${clip} came back as ${got}`);
      }
    });
  });
}
