// Int8 weights benchmark (a program that prints figures, not a test; the machine is noisy, so compare the ratios
// of one interleaved run): float32 vs int8 weights (loadModel(…, {weights: 'int8'})) in the wasm build, on
//   - the shipped trained model (web/models/brown, 1.3 M parameters, byte vocabulary), and
//   - a GPT-2-124M-shaped model (random weights from a fixed seed, Hugging Face layout, tied head),
// printing decode tok/s (KV cache, 1 token per step), memory after load in a fresh runtime (wasm memory and
// malloc'd bytes, vs the float32 weights), and accuracy: max |Δ logits| over a 64-token prompt, greedy tokens
// equal over 256 generated, and (shipped model) the validation loss on the held-out Brown documents.
//   npm run bench:int8 [-- --rounds 5 --flavour simd|baseline --quick (fewer validation windows, no 124M)]
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { evalWindows } from '../models/brown/evaluate.mjs';
import { prepare } from '../models/brown/prepare-corpus.mjs';
import { loadBlockscope } from '../web/runtime/blockscope.js';
import { median, report } from './report.mjs';

const args = process.argv.slice(2);
const opt = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const rounds = Number(opt('--rounds', 5));
const flavour = opt('--flavour', 'simd');
const quick = args.includes('--quick');
const root = fileURLToPath(new URL('../', import.meta.url));
const log = (s) => process.stderr.write(`${s}\n`);
const MiB = (b) => `${(b / 2 ** 20).toFixed(1)} MiB`;
const FORMATS = ['f32', 'int8'];

const GPT2_124M = { vocab_size: 50257, context_length: 1024, emb_dim: 768, n_heads: 12, n_layers: 12, drop_rate: 0, qkv_bias: true, tie_weights: true };

// The 124M-shaped checkpoint, made once by Blockscope itself (seed 1) and cached under the temp directory.
async function gpt2Dir() {
  const dir = join(tmpdir(), 'blockscope-bench-int8', 'gpt2-124m-seed1');
  if (existsSync(join(dir, 'model.safetensors'))) return dir;
  log('making the GPT-2-124M-shaped checkpoint (once) ...');
  mkdirSync(dir, { recursive: true });
  const bs = await loadBlockscope({ flavour: 'simd' });
  const gpt = bs.createGPT(GPT2_124M, { seed: 1 });
  const saved = gpt.save({ layout: 'huggingface' });
  writeFileSync(join(dir, 'config.json'), saved.config);
  writeFileSync(join(dir, 'model.safetensors'), saved.weights);
  gpt.dispose();
  return dir;
}

// Memory after loading, in a fresh runtime (a child process): nothing allocated earlier hides growth.
function loadMemory(dir, weights) {
  const child = `
const { loadBlockscope } = await import(${JSON.stringify(new URL('../web/runtime/blockscope.js', import.meta.url).href)});
const bs = await loadBlockscope({ flavour: ${JSON.stringify(flavour)} });
const before = bs.memoryStats();
const t0 = performance.now();
const gpt = await bs.loadModel({ url: ${JSON.stringify(`file://${dir}/`)} }, { weights: ${JSON.stringify(weights)} });
const ms = performance.now() - t0;
const after = bs.memoryStats();
console.log(JSON.stringify({ ms, before, after, parameters: gpt.numParameters, parameterBytes: gpt.parameterBytes }));`;
  return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', child], { encoding: 'utf8', cwd: root, maxBuffer: 1 << 20 }));
}

const source = (dir) => ({ config: readFileSync(join(dir, 'config.json'), 'utf8'), weights: readFileSync(join(dir, 'model.safetensors')) });
const maxAbsDiff = (a, b) => a.reduce((m, x, i) => Math.max(m, Math.abs(x - b[i])), 0);
const maxAbs = (a) => a.reduce((m, x) => Math.max(m, Math.abs(x)), 0);

function greedy(gpt, prompt, n) {
  return [...gpt.generate(prompt, { maxNewTokens: n, temperature: 0, overflow: 'crop' })].map((x) => x.token);
}

// tok/s of `steps` single-token decode steps after a 16-token prefill (the prefill is not counted).
function decodeRate(gpt, prompt, steps) {
  let t0 = 0;
  let n = 0;
  for (const _ of gpt.generate(prompt, { maxNewTokens: steps + 1, temperature: 0 })) {
    if (n++ === 0) t0 = performance.now();
  }
  return (steps / (performance.now() - t0)) * 1000;
}

async function measure(name, dir, { prompt, valIds, steps }) {
  log(`${name}: memory after load (fresh runtime per format) ...`);
  const mem = Object.fromEntries(FORMATS.map((w) => [w, loadMemory(dir, w)]));
  const bs = await loadBlockscope({ flavour });
  const src = source(dir);
  const models = {};
  for (const w of FORMATS) models[w] = await bs.loadModel(src, { weights: w });
  const cfg = models.f32.config;
  log(`${name}: accuracy ...`);
  const lf = models.f32.forward(prompt).logits;
  const lq = models.int8.forward(prompt).logits;
  const step1 = maxAbsDiff(models.int8.forward(prompt.slice(0, 1)).logits, models.f32.forward(prompt.slice(0, 1)).logits);
  const gf = greedy(models.f32, prompt.slice(0, 8), 256);
  const gq = greedy(models.int8, prompt.slice(0, 8), 256);
  const first = gf.findIndex((t, i) => t !== gq[i]);
  const equal = gf.filter((t, i) => t === gq[i]).length;
  let val = null;
  if (valIds) {
    log(`${name}: validation loss over ${valIds.length - 1} tokens ...`);
    val = Object.fromEntries(FORMATS.map((w) => [w, evalWindows(models[w], valIds, cfg.context_length)]));
  }
  log(`${name}: decode speed, ${rounds} interleaved rounds ...`);
  const dprompt = prompt.slice(0, 16);
  for (const w of FORMATS) decodeRate(models[w], dprompt, 4); // warm-up
  const tps = { f32: [], int8: [] };
  const prefill = { f32: [], int8: [] }; // forward over the 64-token prompt (int8: dequantized panels + f32 GEMM)
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 ? [...FORMATS].reverse() : FORMATS;
    for (const w of order) {
      tps[w].push(decodeRate(models[w], dprompt, steps));
      const t0 = performance.now();
      models[w].forward(prompt);
      prefill[w].push(performance.now() - t0);
    }
  }
  for (const m of Object.values(models)) m.dispose();
  return { name, cfg, mem, lf, lq, step1, gf, gq, first, equal, val, tps, prefill };
}

const brownDir = join(root, 'web/models/brown');
const corpus = prepare();
const valBytes = new TextEncoder().encode(corpus.val);
const valIds = Int32Array.from(quick ? valBytes.subarray(0, 40 * 256 + 1) : valBytes);
const brownPrompt = Array.from(valBytes.subarray(0, 64));
const results = [await measure('shipped brown (1.3M)', brownDir, { prompt: brownPrompt, valIds, steps: 128 })];
if (!quick) {
  const dir = await gpt2Dir();
  const prompt = Array.from({ length: 64 }, (_, t) => (t * 7919 + 11) % 50257);
  results.push(await measure('GPT-2-124M shape (random)', dir, { prompt, valIds: null, steps: 32 }));
}

const out = report('int8', 'npm run bench:int8');
await out.capture(() => {
  const grown = (m) => m.after.heapBytes - m.before.heapBytes;
  console.log(`## Int8 weights vs float32, wasm ${flavour}, Node ${process.versions.node}, single thread\n`);
  console.log(`${rounds} interleaved rounds, medians. Int8: token embedding and every Linear matrix as int8 codes with one float32 ` +
    'scale per 32 values (Q8_0); decoding quantizes the activations per 32 too and sums int8 products exactly.\n');
  console.log('| model | format | decode tok/s (min–max) | speed-up | forward T=64 | parameter bytes | wasm memory grown by load | malloc\'d after load | load |');
  console.log('|---|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of results) {
    const f32Bytes = 4 * r.mem.f32.parameters;
    for (const w of FORMATS) {
      const m = r.mem[w];
      const t = median(r.tps[w]);
      console.log(`| ${r.name} | ${w} | ${t.toFixed(1)} (${Math.min(...r.tps[w]).toFixed(1)}–${Math.max(...r.tps[w]).toFixed(1)}) | ` +
        `${(t / median(r.tps.f32)).toFixed(2)}x | ${median(r.prefill[w]).toFixed(1)} ms | ${MiB(m.parameterBytes)} | ` +
        `${MiB(grown(m))} (${(grown(m) / f32Bytes).toFixed(2)}x f32 weights; ${MiB(m.after.heapBytes)} in all) | ` +
        `${MiB(m.after.allocatedBytes)} (${(m.after.allocatedBytes / f32Bytes).toFixed(2)}x) | ${m.ms.toFixed(0)} ms |`);
    }
  }
  console.log('\n| model | max \\|Δ logits\\| (64-token prompt) | of max \\|logit\\| | max \\|Δ\\| decoding (T=1) | greedy tokens equal (of 256) | first difference | validation loss f32 → int8 |');
  console.log('|---|---:|---:|---:|---:|---:|---|');
  for (const r of results) {
    const v = r.val ? `${r.val.f32.loss.toFixed(4)} → ${r.val.int8.loss.toFixed(4)} nats (${(r.val.int8.loss - r.val.f32.loss >= 0 ? '+' : '')}${(r.val.int8.loss - r.val.f32.loss).toFixed(4)}) over ${r.val.f32.tokens} tokens` : '—';
    console.log(`| ${r.name} | ${maxAbsDiff(r.lq, r.lf).toExponential(2)} | ${maxAbs(r.lf).toFixed(2)} | ${r.step1.toExponential(2)} | ${r.equal} | ` +
      `${r.first < 0 ? 'none' : `token ${r.first}`} | ${v} |`);
  }
  console.log('\n(memory: a fresh runtime per row, loadModel from a file URL; "grown" is wasm memory after minus before the load (the runtime starts with 16 MiB); the float32 weights are 4 bytes per parameter. ' +
    'Greedy: 8-token prompt, 256 new tokens, overflow crop. The 124M model has random weights, so its greedy agreement says little about a trained model.)');
});
out.publish();
