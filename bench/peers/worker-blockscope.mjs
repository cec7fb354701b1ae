// Blockscope WebAssembly worker of the peer benchmark: one flavour (simd or baseline) in Node, loaded through
// web/blockscope.js exactly as a page loads it, answering bench/peers/protocol.mjs requests.
//   node bench/peers/worker-blockscope.mjs MODEL_DIR --flavour simd|baseline [--weights f32|int8]
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { GPT, loadBlockscope } from '../../web/blockscope.js';
import { benchIds, maxAbsDiff, processMemory, serve } from './protocol.mjs';

const [dir, ...rest] = process.argv.slice(2);
const opt = (name, fallback) => (rest.includes(name) ? rest[rest.indexOf(name) + 1] : fallback);
const flavour = opt('--flavour', 'simd');
const weights = opt('--weights', 'f32');

const bs = await loadBlockscope({ flavour });
let gpt = null;

// Whether this build loads int8 weights. Without them loadModel would ignore {weights: 'int8'} and an f32
// model would be timed under the int8 label. A build that has them reads the option before anything else and
// names an unknown format in its error, which costs nothing to ask; its GPT also reports its weight format.
async function hasInt8() {
  if ('weightFormat' in GPT.prototype) return true;
  try {
    await bs.loadModel({ config: '{}', weights: new Uint8Array(0) }, { weights: 'no-such-format' });
  } catch (err) {
    return String(err?.message).includes('no-such-format');
  }
  return false;
}
const weightFormat = (model) => model.weightFormat ?? model.raw.weightFormat?.();

function memory() {
  return { ...processMemory(), heap: bs.memoryStats().heapBytes };
}

serve({
  async load() {
    if (weights === 'int8' && !(await hasInt8())) return { unsupported: 'this build has no int8 weights' };
    const t0 = performance.now();
    const source = { config: readFileSync(join(dir, 'config.json'), 'utf8'), weights: readFileSync(join(dir, 'model.safetensors')) };
    gpt = await bs.loadModel(source, weights === 'f32' ? {} : { weights });
    if (weights !== 'f32' && weightFormat(gpt) !== weights) {
      return { unsupported: `asked for ${weights} weights, the model reports ${weightFormat(gpt)}` };
    }
    return { ms: performance.now() - t0, parameters: gpt.numParameters, runtime: `wasm ${bs.flavour}, Node ${process.versions.node}` };
  },
  memory,
  forward({ T }) {
    const ids = benchIds(T, gpt.config.vocab_size);
    const t0 = performance.now();
    gpt.forward(ids);
    return { ms: performance.now() - t0 };
  },
  check({ ids, reference }) {
    return { max_abs_diff: maxAbsDiff(gpt.forward(ids).logits, reference) };
  },
  // n greedy tokens: the generator's first step prefills the KV cache, the other n - 1 are decode steps.
  decode({ prompt, n }) {
    const tokens = [];
    let t0 = performance.now();
    let prefillMs = 0;
    for (const { token } of gpt.generate(prompt, { maxNewTokens: n, temperature: 0 })) {
      tokens.push(token);
      if (tokens.length === 1) {
        prefillMs = performance.now() - t0;
        t0 = performance.now();
      }
    }
    return { tokens, prefill_ms: prefillMs, decode_ms: performance.now() - t0, steps: n - 1 };
  },
});
