// Size and speed report for the WebAssembly runtime (a benchmark, not a test; numbers are noisy on shared
// machines, so compare the ratios measured in one run).
//   node bench/run.mjs [--repeat N] [--tokens 1,64] [--decode-contexts 16,992] [--no-native]
//                      [--flavours simd-relaxed,simd,baseline]   (simd-relaxed: node --experimental-wasm-relaxed-simd)
// Prints: bytes (raw and gzip) of each wasm flavour and the shared glue, and for a GPT_CONFIG_124M-shaped model with
// seeded random weights, natively (the Release build, -march=native, and the portable SSE2 build if present) and
// in Node per wasm flavour: the first pass at each length, passes right after a length change, steady passes,
// and KV-cache decoding speed after a short and a ~1000-token prompt (prefill not counted).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';

import { loadBlockscope } from '../web/runtime/blockscope.js';
import { median, report } from './report.mjs';

const args = process.argv.slice(2);
const opt = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const repeat = Number(opt('--repeat', 5));
const tokens = opt('--tokens', '1,64').split(',').map(Number);
const contexts = opt('--decode-contexts', '16,992').split(',').map(Number);
const flavours = opt('--flavours', 'simd-relaxed,simd,baseline').split(',');
const native = !args.includes('--no-native');
const root = fileURLToPath(new URL('../', import.meta.url));
const GPT_CONFIG_124M = {
  vocab_size: 50257, context_length: 1024, emb_dim: 768, n_heads: 12, n_layers: 12, drop_rate: 0.1, qkv_bias: false,
};

function sizes() {
  const dist = `${root}web/dist/`;
  const rows = [];
  let gzipTotal = 0;
  for (const f of readdirSync(dist).filter((f) => /^blockscope-(simd\.wasm|simd-relaxed\.wasm|baseline\.wasm|glue\.js)$/.test(f)).sort()) {
    const bytes = readFileSync(dist + f);
    const gz = gzipSync(bytes, { level: 9 }).length;
    gzipTotal += gz;
    rows.push({ file: `web/dist/${f}`, raw: bytes.length, gzip: gz });
  }
  return { rows, gzipTotal };
}


const benchIds = (T) => Array.from({ length: T }, (_, t) => (t * 7919) % 50257);
// Process CPU milliseconds: the machine may be shared, and wall time would count the moments this process is
// descheduled. (V8's background compiler threads are included: their work is part of a first pass's cost.)
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const timed = (f) => {
  const s = cpuMs();
  f();
  return cpuMs() - s;
};

// The same measurements as bench/bench_forward.cpp, in the same order.
async function wasmRun(flavour) {
  const bs = await loadBlockscope({ flavour });
  const t0 = performance.now();
  const gpt = bs.createGPT(GPT_CONFIG_124M, { seed: 123 });
  const initMs = performance.now() - t0;
  const first = {}, steady = {}, changed = {}, decode = {};
  for (const T of tokens) first[T] = timed(() => gpt.forward(benchIds(T)));
  for (const T of tokens) {
    gpt.forward(benchIds(T));
    steady[T] = median(Array.from({ length: repeat }, () => timed(() => gpt.forward(benchIds(T)))));
  }
  tokens.forEach((T, i) => {
    const other = tokens[(i + 1) % tokens.length];
    changed[T] = median(Array.from({ length: repeat }, () => {
      gpt.forward(benchIds(other));
      return timed(() => gpt.forward(benchIds(T)));
    }));
  });
  // Decoding after a `context`-token prompt: 32 sampled tokens timed from the first one, after an untimed run.
  for (const context of contexts) {
    const opts = { maxNewTokens: 32, topK: 40, seed: 1 };
    for (let run = 0; run < 2; run++) {
      const it = gpt.generate(benchIds(context), opts);
      it.next(); // prefill and the first token
      const g0 = cpuMs();
      let n = 0;
      while (!it.next().done) n++;
      if (run === 1) decode[context] = n / ((cpuMs() - g0) / 1000);
    }
  }
  const parameters = gpt.numParameters;
  gpt.dispose();
  return {
    runtime: `wasm ${flavour} (Node ${process.versions.node})`, parameters, init_ms: initMs, first_ms: first,
    forward_ms: steady, after_change_ms: changed, decode_tokens_per_s: decode,
  };
}

function nativeRun(preset) {
  const exe = `${root}build/${preset}/bench/blockscope_bench_forward`;
  if (!existsSync(exe)) return null;
  const out = execFileSync(exe, ['--repeat', String(repeat), '--tokens', tokens.join(','), '--decode-contexts',
    contexts.join(',')], { encoding: 'utf8' });
  const r = JSON.parse(out);
  r.runtime = preset === 'portable' ? 'native portable (SSE2)' : 'native Release (-march=native)';
  return r;
}

const out = report('forward', 'npm run bench:forward');
await out.capture(async () => {
  const s = sizes();
  console.log('## Download size\n');
  console.log('| file | bytes | gzip -9 |\n|---|---:|---:|');
  for (const r of s.rows) console.log(`| ${r.file} | ${r.raw.toLocaleString('en')} | ${r.gzip.toLocaleString('en')} |`);
  console.log(`| **every flavour together** | | **${s.gzipTotal.toLocaleString('en')}** (budget 307,200) |\n`);

  const runs = [...(native ? [nativeRun('release'), nativeRun('portable')] : [])];
  for (const flavour of flavours) runs.push(await wasmRun(flavour));
  const present = runs.filter(Boolean);
  const ref = present[0];
  const tok = (t) => `T=${t}`;
  console.log(`## Forward pass, GPT_CONFIG_124M shape (${(ref.parameters / 1e6).toFixed(1)}M parameters), CPU ms, median of ${repeat}\n`);
  console.log('first: the first pass at that length (the model\'s first pass for the first length); after change: a pass');
  console.log('right after a pass of another length; steady: passes at one length; ×ref: steady time relative to the first row.\n');
  const cols = tokens.flatMap((t) => [`${tok(t)} first`, `${tok(t)} after change`, `${tok(t)} steady`, '×ref']);
  console.log(`| runtime | init ms | ${cols.join(' | ')} |`);
  console.log(`|---|---:|${cols.map(() => '---:').join('|')}|`);
  for (const r of present) {
    const cells = tokens.flatMap((t) => [r.first_ms[t], r.after_change_ms[t], r.forward_ms[t]].map((v) => v.toFixed(1))
      .concat((r.forward_ms[t] / ref.forward_ms[t]).toFixed(2)));
    console.log(`| ${r.runtime} | ${r.init_ms.toFixed(0)} | ${cells.join(' | ')} |`);
  }
  console.log(`\n## KV-cache decoding, tokens/s (32 tokens after a prompt of ${contexts.join(' or ')} tokens; prefill not counted)\n`);
  console.log(`| runtime | ${contexts.map((c) => `context ${c}`).join(' | ')} |`);
  console.log(`|---|${contexts.map(() => '---:').join('|')}|`);
  for (const r of present) console.log(`| ${r.runtime} | ${contexts.map((c) => r.decode_tokens_per_s[c].toFixed(1)).join(' | ')} |`);
  // Matrix-product FLOPs per token: 2 per weight of every Linear (the untied out_head included); the two
  // embedding tables are lookups. Attention's T x T products are small at these lengths and left out.
  const { vocab_size: V, context_length: L, emb_dim: C } = GPT_CONFIG_124M;
  const flops = (T) => 2 * T * (ref.parameters - V * C - L * C);
  console.log(`\n(${tokens.map((t) => `${t} token${t > 1 ? 's' : ''} ≈ ${(flops(t) / 1e9).toFixed(2)} GFLOP`).join(', ')} in matrix products.)`);
});
out.publish();
