// Blockscope WebAssembly worker of the peer benchmark: one flavour (simd-relaxed, simd or baseline) in Node, loaded
// through web/runtime/blockscope.js exactly as a page loads it, answering bench/peers/protocol.mjs requests.
//   node [--experimental-wasm-relaxed-simd] bench/peers/worker-blockscope.mjs MODEL_DIR --flavour simd-relaxed|simd|baseline
//        [--weights f32|int8]
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { loadBlockscope } from '../../web/runtime/blockscope.js';
import { benchIds, cpuMs, maxAbsDiff, processMemory, serve } from './protocol.mjs';

const [dir, ...rest] = process.argv.slice(2);
const opt = (name, fallback) => (rest.includes(name) ? rest[rest.indexOf(name) + 1] : fallback);
const flavour = opt('--flavour', 'simd');
const weights = opt('--weights', 'f32');

const bs = await loadBlockscope({ flavour });
let gpt = null;

function memory() {
  return { ...processMemory(), heap: bs.memoryStats().heapBytes };
}

serve({
  async load() {
    const t0 = performance.now();
    const source = { config: readFileSync(join(dir, 'config.json'), 'utf8'), weights: readFileSync(join(dir, 'model.safetensors')) };
    gpt = await bs.loadModel(source, weights === 'f32' ? {} : { weights });
    if (gpt.weightFormat !== weights) throw new Error(`asked for ${weights} weights, the model reports ${gpt.weightFormat}`);
    return { ms: performance.now() - t0, parameters: gpt.numParameters, runtime: `wasm ${bs.flavour}, Node ${process.versions.node}` };
  },
  memory,
  forward({ T }) {
    const ids = benchIds(T, gpt.config.vocab_size);
    const t0 = performance.now();
    const c0 = cpuMs();
    gpt.forward(ids);
    return { ms: performance.now() - t0, cpu_ms: cpuMs() - c0 };
  },
  check({ ids, reference }) {
    return { max_abs_diff: maxAbsDiff(gpt.forward(ids).logits, reference) };
  },
  // n greedy tokens: the generator's first step prefills the KV cache, the other n - 1 are decode steps.
  decode({ prompt, n }) {
    const tokens = [];
    let t0 = performance.now();
    let prefillMs = 0;
    let c0 = cpuMs();
    for (const { token } of gpt.generate(prompt, { maxNewTokens: n, temperature: 0 })) {
      tokens.push(token);
      if (tokens.length === 1) {
        prefillMs = performance.now() - t0;
        t0 = performance.now();
        c0 = cpuMs();
      }
    }
    return { tokens, prefill_ms: prefillMs, decode_ms: performance.now() - t0, decode_cpu_ms: cpuMs() - c0, steps: n - 1 };
  },
});
