// Size and speed report for the WebAssembly runtime (a benchmark, not a test; numbers are noisy on shared
// machines, so compare the ratios measured in one run).
//   node bench/run.mjs [--repeat N] [--tokens 1,64]
// Prints: bytes (raw and gzip) of each wasm flavour and its JS glue, and the forward-pass time of a
// GPT_CONFIG_124M-shaped model with seeded random weights natively (the Release build, -march=native, and the
// portable SSE2 build if present) and in Node with and without SIMD128.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';

import { loadBlockscope } from '../web/blockscope.js';

const args = process.argv.slice(2);
const opt = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const repeat = Number(opt('--repeat', 5));
const tokens = opt('--tokens', '1,64').split(',').map(Number);
const root = fileURLToPath(new URL('../', import.meta.url));
const GPT_CONFIG_124M = {
  vocab_size: 50257, context_length: 1024, emb_dim: 768, n_heads: 12, n_layers: 12, drop_rate: 0.1, qkv_bias: false,
};

function sizes() {
  const dist = `${root}web/dist/`;
  const rows = [];
  let gzipTotal = 0;
  for (const f of readdirSync(dist).filter((f) => /^blockscope-(simd|baseline)\.(js|wasm)$/.test(f)).sort()) {
    const bytes = readFileSync(dist + f);
    const gz = gzipSync(bytes, { level: 9 }).length;
    gzipTotal += gz;
    rows.push({ file: `web/dist/${f}`, raw: bytes.length, gzip: gz });
  }
  return { rows, gzipTotal };
}

const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];

async function wasmRun(flavour) {
  const bs = await loadBlockscope({ flavour });
  const t0 = performance.now();
  const gpt = bs.createGPT(GPT_CONFIG_124M, { seed: 123 });
  const initMs = performance.now() - t0;
  const forwardMs = {};
  for (const T of tokens) {
    const ids = Array.from({ length: T }, (_, t) => (t * 7919) % 50257);
    gpt.forward(ids); // warm-up: V8 tiers up the hot kernels
    gpt.forward(ids);
    const ms = [];
    for (let r = 0; r < repeat; r++) {
      const s = performance.now();
      gpt.forward(ids);
      ms.push(performance.now() - s);
    }
    forwardMs[T] = median(ms);
  }
  // KV-cache generation: 16-token prompt, 32 sampled tokens (after a warm-up run), as the native bench does.
  const prompt = [464, 3290, 318, 257, 1332, 286, 262, 3726, 11, 290, 340, 318, 1049, 13, 383, 2068];
  const opts = { maxNewTokens: 32, topK: 40, seed: 1 };
  [...gpt.generate(prompt, opts)];
  const g0 = performance.now();
  const n = [...gpt.generate(prompt, opts)].length;
  const tokensPerS = n / ((performance.now() - g0) / 1000);
  const parameters = gpt.numParameters;
  gpt.dispose();
  return {
    runtime: `wasm ${flavour} (Node ${process.versions.node})`, parameters, init_ms: initMs, forward_ms: forwardMs,
    generate_tokens_per_s: tokensPerS,
  };
}

function nativeRun(preset) {
  const exe = `${root}build/${preset}/bench/blockscope_bench_forward`;
  if (!existsSync(exe)) return null;
  const out = execFileSync(exe, ['--repeat', String(repeat), '--tokens', tokens.join(',')], { encoding: 'utf8' });
  const r = JSON.parse(out);
  r.runtime = preset === 'portable' ? 'native portable (SSE2)' : 'native Release (-march=native)';
  return r;
}

const s = sizes();
console.log('## Download size\n');
console.log('| file | bytes | gzip -9 |\n|---|---:|---:|');
for (const r of s.rows) console.log(`| ${r.file} | ${r.raw.toLocaleString('en')} | ${r.gzip.toLocaleString('en')} |`);
console.log(`| **both flavours together** | | **${s.gzipTotal.toLocaleString('en')}** (budget 307,200) |\n`);

const runs = [nativeRun('release'), nativeRun('portable'), await wasmRun('simd'), await wasmRun('baseline')].filter(Boolean);
const ref = runs[0];
console.log(`## Forward pass, GPT_CONFIG_124M shape (${(ref.parameters / 1e6).toFixed(1)}M parameters), median of ${repeat}\n`);
console.log(`| runtime | init ms | ${tokens.map((t) => `${t} token${t > 1 ? 's' : ''} ms | ×native`).join(' | ')} | generate tokens/s |`);
console.log(`|---|---:|${tokens.map(() => '---:|---:').join('|')}|---:|`);
for (const r of runs) {
  const cells = tokens.map((t) => `${r.forward_ms[t].toFixed(1)} | ${(r.forward_ms[t] / ref.forward_ms[t]).toFixed(2)}`);
  console.log(`| ${r.runtime} | ${r.init_ms.toFixed(0)} | ${cells.join(' | ')} | ${r.generate_tokens_per_s.toFixed(1)} |`);
}
// Matrix-product FLOPs per token: 2 per weight of every Linear (the untied out_head included); the two
// embedding tables are lookups. Attention's T x T products are small at these lengths and left out.
const { vocab_size: V, context_length: L, emb_dim: C } = GPT_CONFIG_124M;
const flops = (T) => 2 * T * (ref.parameters - V * C - L * C);
console.log(`\n(×native: time relative to the native Release build; ${tokens.map((t) => `${t} token${t > 1 ? 's' : ''} ≈ ${(flops(t) / 1e9).toFixed(2)} GFLOP`).join(', ')} in matrix products.)`);
