// A light-first runtime host (web/runtime/runtime-host.js, as the worker and the in-thread fallback run it): it answers
// from the light module until a top-level call needs a member api.js does not mark light; that call loads the full
// module — once, however many such calls arrive together — and from then on every top-level call goes to the full
// module, with the same results. A full module that cannot be loaded fails the call that needed it with the reason,
// the light calls keep working, and the next such call tries again.
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { pathToFileURL } from 'node:url';

import { loadBlockscope } from '../../web/runtime/blockscope.js';
import { connect } from '../../web/runtime/client.js';
import { createHost } from '../../web/runtime/runtime-host.js';

const CONFIG = { vocab_size: 16, context_length: 8, emb_dim: 8, n_heads: 2, n_layers: 1, drop_rate: 0 };
const X = Float32Array.from({ length: 64 }, (_, i) => Math.sin(i) * 3);

/** A light-first host and its send(msg) -> Promise of the reply; events are collected per request id. */
function lightHost() {
  let nextId = 1;
  const pending = new Map();
  const events = new Map();
  const handle = createHost((msg) => {
    if (msg.event) {
      events.set(msg.id, [...(events.get(msg.id) ?? []), msg]);
      return;
    }
    pending.get(msg.id)?.(msg);
    pending.delete(msg.id);
  }, { lightFirst: true });
  const send = (msg) => new Promise((resolve) => {
    const id = nextId++;
    pending.set(id, resolve);
    handle({ ...msg, id });
  });
  return { send, events };
}

const ok = (reply) => {
  assert.equal(reply.ok, true, reply.error);
  return reply.result;
};
const moduleOf = async (send) => ok(await send({ op: 'call', method: 'buildInfo' })).module;

test('a light-first host answers from the light module, loads the full one for a GPT, and serves both kinds of call', async () => {
  const full = await loadBlockscope({ flavour: 'simd' });
  const { send, events } = lightHost();
  const init = ok(await send({ op: 'init', options: { flavour: 'simd' } }));
  assert.equal(init.build.module, 'light');
  assert.equal(await moduleOf(send), 'light');
  const before = ok(await send({ op: 'call', method: 'layerNorm', args: [X, { dim: 8 }] }));
  assert.deepEqual(before.output, full.layerNorm(X, { dim: 8 }).output);
  assert.equal(await moduleOf(send), 'light', 'a light call loads nothing');

  // Two GPTs and a light call at once: the GPTs wait for the one full load; the light call need not.
  const [a, b, gelu] = await Promise.all([
    send({ op: 'create', method: 'createGPT', args: [CONFIG, { seed: 1 }] }),
    send({ op: 'create', method: 'createGPT', args: [CONFIG, { seed: 1 }] }),
    send({ op: 'call', method: 'activation', args: ['gelu_tanh', X] }),
  ]).then((replies) => replies.map(ok));
  assert.deepEqual(gelu, full.activation('gelu_tanh', X));
  assert.equal(await moduleOf(send), 'full');
  const logits = await Promise.all([a, b].map(async (g) =>
    ok(await send({ op: 'call', handle: g.handle, method: 'forward', args: [[1, 2, 3]] })).logits));
  assert.deepEqual(logits[0], logits[1], 'the same seed in the same module gives the same logits');
  const gpt = full.createGPT(CONFIG, { seed: 1 });
  assert.deepEqual(logits[0], gpt.forward([1, 2, 3]).logits);
  gpt.dispose();

  // Training and generation, which only the full module has.
  const trainer = ok(await send({ op: 'create', handle: a.handle, method: 'createTrainer',
    args: [{ tokens: Array.from({ length: 200 }, (_, i) => (i * 5) % 16), config: { steps: 2, batch_size: 2, seq_len: 8 } }] }));
  const run = ok(await send({ op: 'stream', handle: trainer.handle, method: 'train', args: [{ steps: 2 }] }));
  assert.equal(run.stepsDone, 2);
  const generated = ok(await send({ op: 'stream', handle: b.handle, method: 'generate', args: [[1, 2], { maxNewTokens: 3 }] }));
  assert.equal(generated.tokens.length, 3);
  assert.ok(events.size >= 2, 'the streams reported as they went');

  // Light members keep working, now from the full module, with the same numbers.
  const afterwards = ok(await send({ op: 'call', method: 'layerNorm', args: [X, { dim: 8 }] }));
  assert.deepEqual(afterwards, before);
  assert.equal(await moduleOf(send), 'full');
});

test('a full module that cannot be loaded fails the call that needs it; light calls go on and a later call retries', async (t) => {
  // A copy of the build that has the glue and the light module but not (yet) the full one.
  const dir = mkdtempSync(join(tmpdir(), 'blockscope-light-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const dist = new URL('../../web/dist/', import.meta.url);
  for (const file of ['blockscope-glue.js', 'blockscope-light-baseline.wasm']) copyFileSync(new URL(file, dist), join(dir, file));
  const { send } = lightHost();
  ok(await send({ op: 'init', options: { flavour: 'baseline', baseUrl: pathToFileURL(`${dir}/`).href } }));
  const failed = await send({ op: 'create', method: 'createGPT', args: [CONFIG] });
  assert.equal(failed.ok, false);
  assert.match(failed.error, /blockscope-baseline\.wasm/);
  assert.equal(ok(await send({ op: 'call', method: 'activation', args: ['relu', [-1, 2]] }))[1], 2);
  assert.equal(await moduleOf(send), 'light');
  t.diagnostic(`the failed load said: ${failed.error}`);

  copyFileSync(new URL('blockscope-baseline.wasm', dist), join(dir, 'blockscope-baseline.wasm'));
  const gpt = ok(await send({ op: 'create', method: 'createGPT', args: [CONFIG] }));
  assert.equal(gpt.config.vocab_size, 16);
  assert.equal(await moduleOf(send), 'full');
});

test('the page client in-thread starts light first and moves to the full module when a widget needs it', async () => {
  const client = await connect({ inThread: true, flavour: 'simd' });
  assert.equal(client.mode, 'in-thread');
  assert.equal((await client.buildInfo()).module, 'light');
  const x = [0.5, -1.5, 2.5];
  const light = await client.activationDerivative('gelu_erf', x);
  const tokenizer = await client.createTokenizer({ kind: 'bytes' });
  assert.deepEqual(Array.from(await tokenizer.encode('hi')), [104, 105]);
  assert.equal((await client.buildInfo()).module, 'full');
  assert.deepEqual(await client.activationDerivative('gelu_erf', x), light);
  await tokenizer.dispose();
});
