// A seeded fuzz of the JavaScript API, every flavour: random calls with random (often hostile) arguments on
// random live or disposed objects, disposed in random orders. Every failure must be an ordinary Error naming
// a problem (never a wasm trap or an embind marshalling error), and afterwards the stack pointer is where it
// started, the heap holds no more than the runtime's reusable buffers, and the runtime still computes the
// same numbers. FUZZ_OPS / FUZZ_SEED override the length and seed (npm run fuzz runs it longer).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { loadBlockscope } from '../../web/runtime/blockscope.js';
import { FLAVOURS } from './support.mjs';

const OPS = Number(process.env.FUZZ_OPS ?? 4000);
const SEED = Number(process.env.FUZZ_SEED ?? 20261201);
const TINY = { vocab_size: 40, context_length: 8, emb_dim: 8, n_heads: 2, n_layers: 1 };

function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function deepObject(depth) {
  let o = {};
  for (let i = 0; i < depth; i++) o = { a: o };
  return o;
}

const cyclic = {};
cyclic.self = cyclic;
const HOSTILE = [0, -1, 1, 2, 3, 7, 2.5, NaN, Infinity, -Infinity, 1e300, -1e300, 2 ** 31, 2 ** 32, 2 ** 32 + 1, 2 ** 53,
  2 ** 64, '', 'a\ud800b', '\udc00', 'gelu_tanh', 'pre', 'post', 'book', 'huggingface', null, undefined, {}, [], [1, 2, 3],
  true, 5n, () => 1, cyclic, deepObject(5000), new Float32Array(3), new Int32Array([1, -1]), 'x'.repeat(10000)];
// Errors a hostile call may raise: the core's (BlockscopeError) and the API's own argument checks.
const ALLOWED_ERRORS = new Set(['Error', 'BlockscopeError', 'TypeError', 'RangeError']);

for (const flavour of FLAVOURS) {
  test(`wasm ${flavour}: ${OPS} random API calls (seed ${SEED}) keep the runtime sound`, async () => {
    const bs = await loadBlockscope({ flavour });
    const rand = mulberry32(SEED + (flavour === 'simd' ? 0 : 1));
    const pick = (a) => a[Math.floor(rand() * a.length)];
    const int = (n) => Math.floor(rand() * n);
    const hostile = () => pick(HOSTILE);
    const maybe = (good) => (rand() < 0.7 ? good : hostile());
    const ids = (n = 1 + int(10)) => Array.from({ length: n }, () => (rand() < 0.95 ? int(45) : hostile()));
    // Data of about n values: mostly n, sometimes a wrong small length, sometimes not an array at all.
    const floats = (n) => {
      if (rand() < 0.1) return hostile();
      const len = rand() < 0.8 ? n : pick([0, 1, n - 1, n + 1, 2 * n]);
      return Float32Array.from({ length: Math.max(0, len) }, () => rand() * 4 - 2);
    };
    const config = (base) => {
      const c = { ...base };
      for (let i = int(3); i > 0; i--) c[pick([...Object.keys(base), 'bogus'])] = rand() < 0.5 ? 1 + int(9) : hostile();
      return rand() < 0.05 ? hostile() : c;
    };

    const reference = bs.gelu([-1, 0, 0.5, 2]);
    const probe = bs.createGPT(TINY, { seed: 1 });
    const probeLogits = probe.forward([1, 2, 3]).logits;
    probe.dispose();
    const start = bs.memoryStats();

    const live = []; // {kind, obj}
    const of = (kind) => live.filter((o) => o.kind === kind).map((o) => o.obj);
    const create = {
      gpt: () => ({ kind: 'gpt', obj: bs.createGPT(config(TINY), { seed: maybe(int(100)) }) }),
      block: () => ({ kind: 'block', obj: bs.createBlock(config({ emb_dim: 8, context_length: 6, n_heads: 2 })) }),
      attention: () => ({ kind: 'attention', obj: bs.createAttention(config({ d_in: 4, d_out: 4, context_length: 6, num_heads: 2 })) }),
      ff: () => ({ kind: 'ff', obj: bs.createFeedForward({ embDim: maybe(4), expansion: maybe(2), activation: maybe('gelu_tanh') }) }),
      mlp: () => ({ kind: 'mlp', obj: bs.createResidualMLP(config({ depth: 3, dim: 4 })) }),
      tokenizer: async () => {
        const r = rand();
        const options = r < 0.7 ? { kind: pick(['bytes', 'bytes+eot']) }
          : r < 0.85 ? { kind: 'symbols', tokens: maybe(pick(['["a", "b", "SEP"]', '["a", "a"]', '[1]', '["x y"]'])) }
            : { kind: maybe('gpt2'), vocab: maybe('{"a": 0, "b": 1}'), merges: maybe('#version: 0.2\na b\n') };
        return { kind: 'tokenizer', obj: await bs.createTokenizer(options) };
      },
      trainer: () => {
        const gpt = pick(of('gpt'));
        if (!gpt) return null;
        return { kind: 'trainer', obj: bs.createTrainer(gpt, { tokens: ids(40), config: config({ steps: 2, batch_size: 1, seq_len: 4, val_fraction: 0.25 }) }) };
      },
      model: async () => {
        const gpt = pick(of('gpt'));
        if (!gpt || gpt.disposed) return null;
        const saved = gpt.save({ layout: maybe(pick(['book', 'huggingface'])) });
        const weights = saved.weights.slice();
        for (let i = int(4); i > 0; i--) weights[int(weights.length)] = int(256);
        const cut = rand() < 0.2 ? weights.subarray(0, int(weights.length)) : weights;
        return { kind: 'gpt', obj: await bs.loadModel({ config: rand() < 0.8 ? saved.config : maybe(saved.config.slice(0, int(saved.config.length))), weights: rand() < 0.95 ? cut : hostile() }) };
      },
    };
    const methods = {
      gpt: [
        (g) => g.forward(rand() < 0.2 ? [ids(3), ids(3)] : ids(), { inspect: rand() < 0.3, lastOnly: rand() < 0.3 }),
        (g) => [...g.generate(ids(1 + int(3)), rand() < 0.5 ? { maxNewTokens: 3 } : { maxNewTokens: maybe(3), topK: maybe(5), topP: maybe(0.9), temperature: maybe(1), seed: maybe(1), stopToken: maybe(2), overflow: maybe('crop') })],
        (g) => g.loss(ids(4), ids(4)),
        (g) => g.lossAndGradients(ids(4), rand() < 0.8 ? ids(4) : ids(3)),
        (g) => g.setParameter(maybe('final_norm.scale'), floats(8)),
        (g) => g.getParameter(maybe('pos_emb.weight')),
        (g) => g.setNormPlacement(maybe(pick(['pre', 'post']))),
        (g) => g.save({ layout: maybe('book') }),
        (g) => g.parameters(),
      ],
      block: [(b) => b.forward(floats(16), maybe(1), maybe(2)), (b) => b.setNormPlacement(maybe('post'))],
      attention: [(a) => a.forward(floats(8), maybe(1), maybe(2))],
      ff: [(f) => f.forward(floats(8)), (f) => f.getParameter(maybe('fc1.weight'))],
      mlp: [(m) => m.forward(floats(8), maybe(2)), (m) => m.backwardSum(), (m) => m.getGradient(maybe('layers.0.weight'))],
      tokenizer: [(t) => t.encode(maybe('hello \ud800 world')), (t) => t.decode(ids()), (t) => t.tokenTexts(ids())],
      trainer: [(t) => t.step(), (t) => t.evaluate(), (t) => t.loadOptimizerState(rand() < 0.5 ? t.saveOptimizerState() : floats(8)),
        (t) => t.step({ ids: [ids(4)], targets: [ids(4)] })],
    };
    const free = [
      () => bs.layerNorm(floats(8), { gamma: rand() < 0.7 ? undefined : floats(4), eps: maybe(1e-5) }),
      () => bs.activation(maybe('relu'), floats(5)),
      () => bs.gelu(floats(5), { approximate: maybe('none') }),
      () => bs.topCandidates(floats(10), { k: maybe(3), temperature: maybe(1) }),
      () => bs.countParameters(config(TINY)),
      () => bs.blockParameters(config({ emb_dim: 8, context_length: 6, n_heads: 2 })),
      () => bs.feedForwardCosts({ embDim: maybe(8), batch: maybe(2), tokens: maybe(3) }),
    ];

    const counts = { ok: 0, failed: 0 };
    for (let op = 0; op < OPS; op++) {
      const r = rand();
      let what;
      try {
        if (r < 0.15) {
          what = 'create';
          const made = await pick(Object.values(create))();
          if (made) live.push(made);
        } else if (r < 0.22 && live.length) {
          what = 'dispose';
          const i = int(live.length);
          live[i].obj.dispose();
          if (rand() < 0.5) live.splice(i, 1); // else keep it: later calls must say it was disposed
        } else if (r < 0.85 && live.length) {
          const { kind, obj } = pick(live);
          what = kind;
          await pick(methods[kind])(obj);
        } else {
          what = 'free';
          pick(free)();
        }
        counts.ok++;
      } catch (err) {
        counts.failed++;
        if (!(err instanceof Error) || !ALLOWED_ERRORS.has(err.name) || !err.message) {
          assert.fail(`op ${op} (${what}) threw ${err?.name}: ${String(err?.message ?? err).slice(0, 300)}`);
        }
      }
      while (live.length > 12) live.shift().obj.dispose();
    }
    for (const { obj } of live) obj.dispose();
    const end = bs.memoryStats();
    console.log(`${flavour}: ${counts.ok} calls succeeded, ${counts.failed} failed cleanly; stack pointer ` +
      `${start.stackPointer} -> ${end.stackPointer}, allocated ${start.allocatedBytes} -> ${end.allocatedBytes} bytes, ` +
      `wasm memory ${start.heapBytes} -> ${end.heapBytes} bytes`);
    assert.ok(counts.failed > OPS / 10 && counts.ok > OPS / 10, 'the fuzz exercises both successes and failures');
    assert.equal(end.stackPointer, start.stackPointer, 'the wasm stack pointer moved');
    // The runtime keeps a few reusable buffers (the last gradients, outputs): bounded, not growing per call.
    assert.ok(end.allocatedBytes - start.allocatedBytes < 1 << 20,
      `malloc'd bytes grew from ${start.allocatedBytes} to ${end.allocatedBytes} with every object disposed`);
    assert.deepEqual(bs.gelu([-1, 0, 0.5, 2]), reference);
    const again = bs.createGPT(TINY, { seed: 1 });
    assert.deepEqual(again.forward([1, 2, 3]).logits, probeLogits);
    again.dispose();
  });
}
