// The runtime host (web/runtime/runtime-host.js) serves only what the API's declaration (web/runtime/api.js) declares,
// by kind: declared calls, creates and streams work; an undeclared method, internals (raw, _module, constructor,
// prototype names), a member of another kind (dispose through 'call', a create through 'call', a call through
// 'stream'), unknown handles and unknown operations are each an error naming the problem, and the host keeps working.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';

import { createHost } from '../../web/runtime/runtime-host.js';

let send;
before(async () => {
  let nextId = 1;
  const pending = new Map();
  const handle = createHost((msg) => {
    if (msg.event) return;
    pending.get(msg.id)?.(msg);
    pending.delete(msg.id);
  });
  send = (msg) => new Promise((resolve) => {
    const id = nextId++;
    pending.set(id, resolve);
    handle({ ...msg, id });
  });
  const init = await send({ op: 'init', options: { flavour: 'simd' } });
  assert.equal(init.ok, true, init.error);
});

const CONFIG = { vocab_size: 16, context_length: 8, emb_dim: 8, n_heads: 2, n_layers: 1, drop_rate: 0 };

test('declared calls, creates and streams are served, and a create returns the declared snapshot', async () => {
  const gelu = await send({ op: 'call', method: 'activation', args: ['gelu_tanh', [1]] });
  assert.equal(gelu.ok, true, gelu.error);
  assert.ok(Math.abs(gelu.result[0] - 0.8412) < 1e-4);
  const gpt = await send({ op: 'create', method: 'createGPT', args: [CONFIG, { seed: 1 }] });
  assert.equal(gpt.ok, true, gpt.error);
  assert.deepEqual(Object.keys(gpt.result).sort(),
    ['config', 'handle', 'numParameters', 'parameterBytes', 'parameters', 'weightFormat']);
  const trainer = await send({ op: 'create', handle: gpt.result.handle, method: 'createTrainer',
    args: [{ tokens: Array.from({ length: 200 }, (_, i) => i % 16), config: { steps: 2, batch_size: 2 } }] });
  assert.equal(trainer.ok, true, trainer.error);
  assert.deepEqual(Object.keys(trainer.result).sort(), ['config', 'handle', 'memoryBytes', 'stepsDone']);
  const tokens = await send({ op: 'stream', handle: gpt.result.handle, method: 'generate', args: [[1, 2], { maxNewTokens: 3 }] });
  assert.equal(tokens.ok, true, tokens.error);
  assert.equal(tokens.result.tokens.length, 3);
  assert.equal((await send({ op: 'dispose', handle: gpt.result.handle })).ok, true);
});

test('anything undeclared, or of another kind, is refused with a message naming it', async () => {
  const gpt = (await send({ op: 'create', method: 'createGPT', args: [CONFIG, {}] })).result;
  const refused = [
    [{ op: 'call', handle: gpt.handle, method: 'dispose' }, /GPT has no method 'dispose'/],
    [{ op: 'call', handle: gpt.handle, method: 'raw' }, /GPT has no method 'raw'/],
    [{ op: 'call', handle: gpt.handle, method: '_module' }, /GPT has no method '_module'/],
    [{ op: 'call', handle: gpt.handle, method: 'constructor' }, /GPT has no method 'constructor'/],
    [{ op: 'call', handle: gpt.handle, method: 'toString' }, /GPT has no method 'toString'/],
    [{ op: 'call', handle: gpt.handle, method: 'generate' }, /GPT has no method 'generate'/],
    [{ op: 'call', handle: gpt.handle, method: 'createTrainer', args: [{}] }, /GPT has no method 'createTrainer'/],
    [{ op: 'call', method: 'createTrainer' }, /Blockscope has no method 'createTrainer'/], // runtime-only
    [{ op: 'create', method: 'layerNorm', args: [[1, 2]] }, /Blockscope has no constructor method 'layerNorm'/],
    [{ op: 'stream', handle: gpt.handle, method: 'forward', args: [[1]] }, /GPT has no streaming method 'forward'/],
    [{ op: 'call', handle: 999999, method: 'forward' }, /handle 999999 does not exist/],
    [{ op: 'frobnicate' }, /unknown operation 'frobnicate'/],
    [{ op: '__proto__' }, /unknown operation '__proto__'/],
  ];
  for (const [msg, message] of refused) {
    const r = await send(msg);
    assert.equal(r.ok, false, JSON.stringify(msg));
    assert.match(r.error, message);
  }
  // Still serving, and the GPT was never disposed by the refused 'call dispose'.
  const r = await send({ op: 'call', handle: gpt.handle, method: 'forward', args: [[1, 2]] });
  assert.equal(r.ok, true, r.error);
  assert.deepEqual(r.result.shape, [1, 2, 16]);
});
