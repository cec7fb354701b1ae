// Writes tests/golden/simd128_bits.json: the SIMD128 flavour's exact outputs on a small seeded GPT
// (tests/reference/simd128_bits.mjs), which later builds must reproduce bit for bit. A regression reference of the
// flavour's own bits, not a correctness one (PyTorch's goldens are those). Regenerate only when a change is meant to
// alter the SIMD128 flavour's arithmetic, and say so in the commit.
//   node tests/reference/make_simd128_bits.mjs [--dist DIR]   (default web/dist; DIR may hold an older build)
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';

import { loadBlockscope } from '../../web/runtime/blockscope.js';
import { simd128Outputs } from './simd128_bits.mjs';

const args = process.argv.slice(2);
const dist = args.includes('--dist') ? `${args[args.indexOf('--dist') + 1].replace(/\/$/, '')}/` : undefined;
const bs = await loadBlockscope({ flavour: 'simd', ...(dist ? { baseUrl: new URL(dist, `file://${process.cwd()}/`) } : {}) });
const outputs = await simd128Outputs(bs, async (bytes) => createHash('sha256').update(bytes).digest('hex'));
const file = new URL('../golden/simd128_bits.json', import.meta.url);
writeFileSync(file, `${JSON.stringify({ made_by: 'node tests/reference/make_simd128_bits.mjs', outputs }, null, 2)}\n`);
console.log(outputs);
