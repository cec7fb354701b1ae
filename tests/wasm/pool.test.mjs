// The page client's pool of workers (web/runtime/pool.js + client.js), driven in Node with stand-in workers that run
// the real runtime host (runtime-host.js) and record what they are sent: its size (hardwareConcurrency − 1, 1 to 4,
// or connect({workers})), lazy growth (a second worker only for a second heavy object), placement (a GPT on the
// least-loaded worker, its trainer with it, stateless calls on an idle worker), the same compiled module posted to
// every worker, identical training curves on one worker and on two, and a dead worker replaced alone.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';

import { connect } from '../../web/runtime/client.js';
import { MAX_RESTARTS, MAX_WORKERS, poolSize } from '../../web/runtime/pool.js';
import { createHost } from '../../web/runtime/runtime-host.js';
import { wasmUrl } from '../../web/runtime/locations.js';

/** A Web Worker stand-in: the runtime host on this thread, answering asynchronously as a worker would. */
class FakeWorker {
  static started = [];
  constructor(url) {
    this.url = url;
    this.received = []; // every request it was sent
    this.modules = []; // the {wasmModule} messages it was handed
    this.index = Number(new URLSearchParams(url.split('#')[1]).get('worker'));
    this.host = createHost((msg) => setTimeout(() => this.onmessage?.({ data: msg }), 0));
    FakeWorker.started.push(this);
    setTimeout(() => this.onmessage?.({ data: { ready: true } }), 0);
  }
  postMessage(msg) {
    if (msg && 'wasmModule' in msg) this.modules.push(msg);
    else {
      this.received.push(msg);
      setTimeout(() => this.host(msg), 0);
    }
  }
  terminate() {
    this.terminated = true;
    this.host = () => {}; // a terminated worker answers nothing
  }
  /** An uncaught error inside the worker. */
  crash(message) {
    this.onerror?.({ message, preventDefault() {} });
  }
  /** The methods of the requests it was sent with op `op`. */
  ops(op) {
    return this.received.filter((m) => m.op === op).map((m) => m.method);
  }
}

const CONFIG = { vocab_size: 32, context_length: 16, emb_dim: 32, n_heads: 4, n_layers: 2, drop_rate: 0 };
const tokens = Array.from({ length: 3000 }, (_, i) => (i * 7 + Math.floor(i / 5)) % 32);
const trainerOptions = (seed) => ({ tokens, config: { steps: 30, batch_size: 4, lr: 3e-3, seed } });
let compiles = 0;
const compiledByUrl = new Map(); // the page's compiles: the light module (first worker) and the full one (the others)
const originals = { compileStreaming: WebAssembly.compileStreaming, fetch: globalThis.fetch };

before(async () => {
  globalThis.Worker = FakeWorker;
  // The page compiles each wasm it needs once (transport.js precompile): real modules, counted.
  globalThis.fetch = async (url) => ({ ok: true, url: String(url) });
  WebAssembly.compileStreaming = async (response) => {
    const { url } = await response;
    compiles++;
    const module = await WebAssembly.compile(readFileSync(new URL(url)));
    compiledByUrl.set(url, module);
    return module;
  };
});
after(() => {
  delete globalThis.Worker;
  WebAssembly.compileStreaming = originals.compileStreaming;
  globalThis.fetch = originals.fetch;
});

/** Two GPTs (seeds 1 and 2) and their trainers on `client`, trained at once; the curves and where each object lives. */
async function trainPair(client, steps = 30) {
  const gpts = await Promise.all([1, 2].map((seed) => client.createGPT(CONFIG, { seed })));
  const trainers = await Promise.all(gpts.map((g, i) => g.createTrainer(trainerOptions(10 + i))));
  const curves = [[], []];
  await Promise.all(trainers.map((t, i) => t.train({ steps, evalEvery: 10, onStep: (s) => curves[i].push([s.loss, s.gradNorm, s.valLoss]) })));
  const placed = { gpts: gpts.map((g) => g.worker), trainers: trainers.map((t) => t.worker) };
  return { gpts, trainers, curves, placed };
}

test('the default pool: hardwareConcurrency − 1 workers but two on two cores, at least 1, at most 4; connect({workers}) is checked', async () => {
  assert.deepEqual([undefined, 0, 1, 2, 3, 4, 5, 16, 64].map((cores) => poolSize('auto', cores)), [1, 1, 1, 2, 2, 3, 4, 4, 4]);
  assert.equal(MAX_WORKERS, 4);
  assert.equal(poolSize(2, 1), 2, 'a number asked for is used as is (one core or not)');
  for (const bad of [0, -1, 1.5, '2', 17, NaN, null]) {
    assert.throws(() => poolSize(bad), new RegExp(`workers must be 'auto' or an integer from 1 to 16, got ${String(bad)}`));
  }
  await assert.rejects(connect({ workers: 0 }), /connect\(\): workers must be 'auto' or an integer from 1 to 16, got 0/);
});

test('one worker at connect; a second only for a second GPT; trainers stay with their GPT; the curves equal one worker\'s', async () => {
  FakeWorker.started = [];
  const client = await connect({ workers: 2, flavour: 'simd' });
  assert.equal(client.mode, 'worker');
  assert.equal(FakeWorker.started.length, 1, 'one worker at connect');
  // Light objects and stateless calls start no worker.
  const ffn = await client.createFeedForward({ embDim: 8, seed: 1 });
  await client.activation('gelu_tanh', [1]);
  assert.equal(FakeWorker.started.length, 1, 'light work starts no other worker');
  assert.equal(ffn.worker, 0);

  const two = await trainPair(client);
  assert.equal(FakeWorker.started.length, 2, 'the second GPT started the second worker');
  assert.deepEqual(two.placed, { gpts: [0, 1], trainers: [0, 1] });
  const [w0, w1] = FakeWorker.started;
  assert.deepEqual(w0.ops('create'), ['createFeedForward', 'createGPT', 'createTrainer']);
  assert.deepEqual(w1.ops('create'), ['createGPT', 'createTrainer']);
  assert.deepEqual([w0.ops('stream'), w1.ops('stream')], [['train'], ['train']], 'each trainer trained in its own worker');
  // The first worker starts on the light module, the one added for the second GPT on the full module.
  assert.match(w0.url, /#flavour=simd&module=page&worker=0$/);
  assert.match(w1.url, /#flavour=simd&module=page&first=full&worker=1$/);
  // Each compiled once on the page and handed over.
  assert.equal(compiles, 2);
  assert.equal(w0.modules[0].wasmModule.url, wasmUrl('simd', null, 'light').href);
  assert.equal(w1.modules[0].wasmModule.url, wasmUrl('simd').href);
  assert.ok([w0, w1].every((w) => w.modules.length === 1 && w.modules[0].wasmModule.module === compiledByUrl.get(w.modules[0].wasmModule.url)));

  const one = await trainPair(await connect({ workers: 1, flavour: 'simd' }));
  assert.deepEqual(one.placed, { gpts: [0, 0], trainers: [0, 0] }, 'workers: 1 keeps everything on one worker');
  assert.equal(FakeWorker.started.length, 3, 'the one-worker client started one worker');
  assert.equal(compiles, 2, 'the second client reuses the page\'s compiled modules');
  const inThread = await trainPair(await connect({ inThread: true, flavour: 'simd' }));
  assert.equal(two.curves[0].length, 30);
  assert.deepEqual(two.curves, one.curves, 'two workers: the same curves as one, bit for bit');
  assert.deepEqual(two.curves, inThread.curves, 'and as in-thread');
  assert.notDeepEqual(two.curves[0], two.curves[1], 'the two runs differ (different seeds)');

  // The pool is full: a third GPT goes to the worker holding the fewest heavy objects (a tie: the first).
  const third = await client.createGPT(CONFIG, { seed: 3 });
  assert.equal(third.worker, 0);
  assert.equal(FakeWorker.started.length, 3, 'no worker beyond workers: 2');
  // Worker 1's GPT disposed (and with it its trainer): a new GPT goes there.
  await two.gpts[1].dispose();
  assert.deepEqual(client._workers().map((w) => w.load), [3, 0]);
  const fourth = await client.createGPT(CONFIG, { seed: 4 });
  assert.equal(fourth.worker, 1);
  // memoryStats covers every worker.
  const stats = await client.memoryStats();
  assert.equal(stats.workers.length, 2);
  assert.equal(stats.heapBytes, stats.workers[0].heapBytes + stats.workers[1].heapBytes);
  for (const o of [third, fourth, ffn, ...two.trainers, two.gpts[0]]) await o.dispose();
  assert.deepEqual(client._workers().map((w) => w.load), [0, 0], 'disposed objects leave no load behind');
});

test('a stateless call goes to an idle worker while another trains', async () => {
  FakeWorker.started = [];
  const client = await connect({ workers: 2, flavour: 'simd', workerUrl: new URL('../../web/runtime/worker.js?idle', import.meta.url) });
  const [a, b] = await Promise.all([1, 2].map((seed) => client.createGPT(CONFIG, { seed })));
  const trainer = await a.createTrainer(trainerOptions(5));
  // Worker 1 holds more heavy objects (two idle trainers) than worker 0: busy, not load, decides.
  const idle = [await b.createTrainer(trainerOptions(6)), await b.createTrainer(trainerOptions(7))];
  assert.deepEqual(client._workers().map((w) => w.load), [2, 3]);
  let steps = 0;
  const training = trainer.train({ steps: 20, onStep: () => steps++ });
  while (steps < 2) await new Promise((r) => setTimeout(r, 1));
  const [w0, w1] = FakeWorker.started;
  const before0 = w0.ops('call').length;
  await client.activation('gelu_tanh', [1, 2]);
  assert.equal(w0.ops('call').length, before0, 'not sent to the training worker');
  assert.deepEqual(w1.ops('call'), ['activation']);
  await training;
  for (const o of [trainer, ...idle, a, b]) await o.dispose();
});

test('a worker that dies is replaced alone: its objects are refused by name, the other worker\'s keep working', async () => {
  FakeWorker.started = [];
  const client = await connect({ workers: 2, flavour: 'simd', workerUrl: new URL('../../web/runtime/worker.js?crash', import.meta.url) });
  const heard = [];
  client.onRestart((info) => heard.push(info));
  const [a, b] = await Promise.all([1, 2].map((seed) => client.createGPT(CONFIG, { seed })));
  assert.deepEqual([a.worker, b.worker], [0, 1]);
  const reference = await a.forward([1, 2, 3]);
  const pending = b.forward([1, 2, 3]);
  FakeWorker.started[1].crash('simulated crash');
  await assert.rejects(pending, /the Blockscope worker stopped: it failed \(simulated crash\)/);
  await assert.rejects(b.forward([1]), /this GPT was lost when the runtime's worker stopped/);
  await b.dispose(); // an object of the dead worker: nothing to free, no error
  assert.deepEqual((await a.forward([1, 2, 3])).logits, reference.logits, 'worker 0\'s GPT is untouched');
  while (heard.length === 0) await new Promise((r) => setTimeout(r, 1));
  assert.deepEqual(heard, [{ reason: 'it failed (simulated crash)', mode: 'worker', worker: 1 }]);
  assert.equal(client.restartReason, 'it failed (simulated crash)');
  assert.equal(FakeWorker.started.length, 3, 'one new worker, for the dead one');
  assert.ok(FakeWorker.started[1].terminated);
  assert.match(FakeWorker.started[2].url, /&worker=1$/);
  assert.deepEqual(client._workers().map(({ load, epoch }) => [load, epoch]), [[1, 0], [0, 1]]);
  const c = await client.createGPT(CONFIG, { seed: 1 });
  assert.equal(c.worker, 1, 'the replaced worker, holding nothing, takes the next GPT');
  assert.deepEqual((await c.forward([1, 2, 3])).logits, reference.logits);

  // A worker that keeps dying is given up for the page's thread; worker 0 stays a worker.
  for (let i = 0; i < MAX_RESTARTS; i++) {
    const restarted = new Promise((resolve) => { const off = client.onRestart(() => { off(); resolve(); }); });
    FakeWorker.started.at(-1).crash(`crash ${i + 2}`);
    await restarted;
  }
  assert.equal(client.mode, 'in-thread');
  assert.match(client.fallbackReason, /the worker stopped \(it failed \(crash 4\)\) and could not be restarted: it stopped 4 times/);
  assert.deepEqual(client._workers().map((w) => w.mode), ['worker', 'in-thread']);
  assert.deepEqual((await a.forward([1, 2, 3])).logits, reference.logits, 'worker 0\'s GPT still answers');
  const d = await client.createGPT(CONFIG, { seed: 1 });
  assert.deepEqual((await d.forward([1, 2, 3])).logits, reference.logits);
  for (const o of [a, c, d]) await o.dispose();
});

test('no Worker at all: one in-thread runtime, heavy objects included', async () => {
  delete globalThis.Worker;
  try {
    const client = await connect({ workers: 3, flavour: 'simd', workerUrl: new URL('../../web/runtime/worker.js?none', import.meta.url) });
    assert.equal(client.mode, 'in-thread');
    assert.match(client.fallbackReason, /this context has no Worker/);
    const { placed } = await trainPair(client, 3);
    assert.deepEqual(placed, { gpts: [0, 0], trainers: [0, 0] });
    assert.equal(client._workers().length, 1);
  } finally {
    globalThis.Worker = FakeWorker;
  }
});
