// The page client (web/runtime/client.js) hands loadModel's options to the core exactly as given — maxParameterBytes: 0
// included, which refuses every model — and leaves the defaults to the core; the core's rules reach the page
// through it: the tokenizer a vocabulary gets and the held-out loss of a token stream.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';

import { connect } from '../../web/runtime/client.js';
import { loadBlockscope } from '../../web/runtime/blockscope.js';

const dir = new URL('../golden/models/book_tiny/', import.meta.url);
const source = () => ({ config: readFileSync(new URL('config.json', dir), 'utf8'), weights: readFileSync(new URL('model.safetensors', dir)) });
let client;
const held = [];
before(async () => {
  client = await connect({ inThread: true, flavour: 'simd' });
});
after(() => Promise.all(held.map((m) => m.dispose())));

test('maxParameterBytes reaches the core as given: 0 refuses every model, the exact size admits it', async () => {
  const gpt = await client.loadModel(source()); // the core's default limit
  held.push(gpt);
  const bytes = 4 * gpt.numParameters;
  await assert.rejects(client.loadModel(source(), { maxParameterBytes: 0 }), /float32 weights \(8768 parameters\); the limit is 0 bytes/);
  await assert.rejects(client.loadModel(source(), { maxParameterBytes: bytes - 1 }), /needs 34\.3 KiB .*; the limit is 34\.2 KiB/);
  held.push(await client.loadModel(source(), { maxParameterBytes: bytes }));
  await assert.rejects(client.loadModel(source(), { maxParameterBytes: -1 }), /maxParameterBytes must be >= 0, got -1/);
});

test("the core's rules through the client: a vocabulary's tokenizer, held-out evaluation windows", async () => {
  assert.equal(await client.defaultTokenizerKind(50257), 'gpt2');
  assert.equal(await client.defaultTokenizerKind(257), 'bytes+eot');
  assert.equal(await client.defaultTokenizerKind(256), 'bytes');
  assert.equal(await client.defaultTokenizerKind(60), null);
  const remote = await client.loadModel(source());
  held.push(remote);
  const ids = Int32Array.from({ length: 50 }, (_, i) => (i * 7) % 60);
  const r = await remote.evaluateTokens(ids, { seqLen: 8, batch: 3 });
  assert.equal(r.tokens, 49);
  assert.equal(r.windows, 7); // six full windows of 8 and one of 1
  // The same numbers as the runtime used directly, and the mean of the windows' own losses.
  const bs = await loadBlockscope({ flavour: 'simd' });
  const gpt = await bs.loadModel(source());
  assert.deepEqual(gpt.evaluateTokens(ids, { seqLen: 8, batch: 3 }), r);
  let nats = 0;
  for (let s = 0; s < 49; s += 8) {
    const n = Math.min(8, 49 - s);
    nats += gpt.loss([ids.subarray(s, s + n)], [ids.subarray(s + 1, s + n + 1)]) * n;
  }
  assert.ok(Math.abs(r.loss - nats / 49) < 1e-6, `${r.loss} vs ${nats / 49}`);
  assert.throws(() => gpt.evaluateTokens(ids, { seqLen: 99 }), /seqLen must be in \[0, context_length = \d+\]/);
  gpt.dispose();
});
