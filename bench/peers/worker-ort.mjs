// onnxruntime worker of the peer benchmark: onnxruntime-web (its wasm backend, 1 thread, in Node) or
// onnxruntime-node (CPU, 1 intra-op thread) running the graphs bench/peers/export.py wrote, answering
// bench/peers/protocol.mjs requests. The packages come from build/peers/node_modules (run.mjs installs them).
//   node bench/peers/worker-ort.mjs MODEL_DIR --package onnxruntime-web|onnxruntime-node --modules DIR
// forward.onnx serves forward and check; decode.onnx (with past/present keys and values) serves decode and is
// loaded on the first decode, so "memory after load" is one graph's and the peak includes the second copy.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';

import { argmax, benchIds, cpuMs, maxAbsDiff, processMemory, serve } from './protocol.mjs';

const [dir, ...rest] = process.argv.slice(2);
const opt = (name, fallback) => (rest.includes(name) ? rest[rest.indexOf(name) + 1] : fallback);
const pkg = opt('--package', 'onnxruntime-web');
const modules = opt('--modules', '');
const web = pkg === 'onnxruntime-web';

const require = createRequire(join(resolve(modules), 'noop.js'));
const ort = require(pkg); // onnxruntime-web resolves to its Node build (ort.node.min.js), wasm backend
const version = JSON.parse(readFileSync(join(resolve(modules), pkg, 'package.json'), 'utf8')).version;
const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
const H = config.n_head, hs = config.n_embd / config.n_head, L = config.n_layer, V = config.vocab_size;

const sessionOptions = web
  ? { executionProviders: ['wasm'], graphOptimizationLevel: 'all' }
  : { executionProviders: ['cpu'], intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential', graphOptimizationLevel: 'all' };
if (web) {
  ort.env.wasm.numThreads = 1;
  ort.env.wasm.proxy = false;
}

async function session(file) {
  // onnxruntime-web takes the bytes; onnxruntime-node reads the file itself (what each is normally given).
  return ort.InferenceSession.create(web ? readFileSync(join(dir, file)) : join(dir, file), sessionOptions);
}

const idsTensor = (ids) => new ort.Tensor('int64', BigInt64Array.from(ids, BigInt), [1, ids.length]);
let forwardSession = null;
let decodeSession = null;

async function forward(ids) {
  const out = await forwardSession.run({ input_ids: idsTensor(ids) });
  return out.logits.data;
}

serve({
  async load() {
    const t0 = performance.now();
    forwardSession = await session('forward.onnx');
    return { ms: performance.now() - t0, runtime: `${pkg} ${version}${web ? `, wasm, Node ${process.versions.node}` : ', CPU'}` };
  },
  memory: () => processMemory(),
  async forward({ T }) {
    const ids = benchIds(T, V);
    const t0 = performance.now();
    const c0 = cpuMs();
    await forward(ids);
    return { ms: performance.now() - t0, cpu_ms: cpuMs() - c0 };
  },
  async check({ ids, reference }) {
    return { max_abs_diff: maxAbsDiff(await forward(ids), reference) };
  },
  // n greedy tokens: a prefill of the prompt with an empty cache, then n - 1 single-token steps feeding each
  // step's present keys/values back as the next step's past.
  async decode({ prompt, n }) {
    let loadMs = null;
    if (!decodeSession) {
      const t = performance.now();
      decodeSession = await session('decode.onnx');
      loadMs = performance.now() - t;
    }
    const feeds = { input_ids: idsTensor(prompt) };
    for (let i = 0; i < L; i++) {
      for (const kind of ['key', 'value']) feeds[`past_${kind}_${i}`] = new ort.Tensor('float32', new Float32Array(0), [1, H, 0, hs]);
    }
    const tokens = [];
    let t0 = performance.now();
    let prefillMs = 0;
    let c0 = cpuMs();
    for (;;) {
      const out = await decodeSession.run(feeds);
      const logits = out.logits.data;
      tokens.push(argmax(logits.subarray(logits.length - V)));
      if (tokens.length === 1) {
        prefillMs = performance.now() - t0;
        t0 = performance.now();
        c0 = cpuMs();
      }
      if (tokens.length === n) break;
      feeds.input_ids = idsTensor([tokens[tokens.length - 1]]);
      for (let i = 0; i < L; i++) {
        for (const kind of ['key', 'value']) feeds[`past_${kind}_${i}`] = out[`present_${kind}_${i}`];
      }
    }
    return { tokens, prefill_ms: prefillMs, decode_ms: performance.now() - t0, decode_cpu_ms: cpuMs() - c0, steps: n - 1, decode_graph_load_ms: loadMs };
  },
});
