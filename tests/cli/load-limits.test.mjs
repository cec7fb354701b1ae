// One memory budget for the CLI and the page: the same checkpoint loads with `blockscope` and with the runtime's
// loadModel in every wasm flavour, or both refuse it with the same message — a GPT-2-layout file that stores its
// tied head twice (state_dict()'s lm_head.weight next to wte.weight) loads everywhere, a config whose float32
// weights exceed the core's limit and a model.safetensors larger than its config allows are refused alike.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';

import { BlockscopeError, loadBlockscope } from '../../web/runtime/blockscope.js';
import { FLAVOURS } from '../wasm/support.mjs';
import { ok, readSafetensors, run, scratch } from './support.mjs';

const work = scratch('load-limits');

/** Writes F32 tensors {name: {shape, data}} as safetensors (8-byte header length, JSON header, data). */
function writeSafetensors(path, tensors) {
  const header = { __metadata__: { format: 'pt' } };
  let offset = 0;
  for (const [name, { shape, data }] of Object.entries(tensors)) {
    header[name] = { dtype: 'F32', shape, data_offsets: [offset, offset + data.byteLength] };
    offset += data.byteLength;
  }
  const json = Buffer.from(JSON.stringify(header));
  const out = Buffer.alloc(8 + json.length + offset);
  out.writeBigUInt64LE(BigInt(json.length), 0);
  json.copy(out, 8);
  let at = 8 + json.length;
  for (const { data } of Object.values(tensors)) {
    Buffer.from(data.buffer, data.byteOffset, data.byteLength).copy(out, at);
    at += data.byteLength;
  }
  writeFileSync(path, out);
}

/** The runtime's error for loading `dir` (file: URL), or null if it loads; a loaded model is measured and freed. */
async function wasmLoad(flavour, dir) {
  const bs = await loadBlockscope({ flavour });
  try {
    const gpt = await bs.loadModel({ url: pathToFileURL(`${dir}/`).href });
    const loaded = { parameters: gpt.numParameters, logits: gpt.forward([1, 2, 3]).logits.slice(-4) };
    gpt.dispose();
    return loaded;
  } catch (err) {
    assert.ok(err instanceof BlockscopeError, `${flavour}: ${err.stack}`);
    return { error: err.message };
  }
}

/** The CLI's message for `info --model dir` (it prints "blockscope: error: <message>"). */
function cliError(dir) {
  const r = run('info', '--model', dir);
  assert.equal(r.code, 1, r.stderr);
  return r.stderr.replace(/^blockscope: error: /, '').trimEnd();
}

test('a GPT-2-layout checkpoint storing its tied head twice loads in the CLI and in every wasm flavour', async () => {
  // Large enough that the embedding dominates (V x C = 25.7 M floats): the page's old file-size rule (weights x 1.1
  // + 64 MiB) refused this 206 MB file, whose second copy of the embedding the core's rule (max_safetensors_bytes)
  // allows for.
  const dir = join(work, 'gpt2-tied-twice');
  ok('init', '--vocab-size', '50257', '--context-length', '16', '--emb-dim', '512', '--n-heads', '4', '--n-layers', '1',
    '--tie-weights', 'true', '--qkv-bias', 'true', '--layout', 'hf', '--seed', '3', '--out', dir);
  const file = join(dir, 'model.safetensors');
  const { tensors } = readSafetensors(file);
  assert.ok(!('lm_head.weight' in tensors), 'a tied model is written without the head');
  const all = {};
  for (const [name, t] of Object.entries(tensors)) all[name] = t;
  all['lm_head.weight'] = { shape: tensors['transformer.wte.weight'].shape, data: tensors['transformer.wte.weight'].data };
  writeSafetensors(file, all);
  const size = readFileSync(file).length;
  const info = JSON.parse(ok('info', '--model', dir, '--json'));
  assert.equal(info.layout, 'huggingface');
  assert.ok(size > info.weight_bytes * 1.1 + 64 * 2 ** 20, `${size} bytes: the old page rule would refuse it`);
  const native = JSON.parse(ok('forward', '--model', dir, '--tokens', '1,2,3', '--json')).logits[2].slice(-4);
  for (const flavour of FLAVOURS) {
    const r = await wasmLoad(flavour, dir);
    assert.equal(r.error, undefined, `${flavour} refused the file: ${r.error}`);
    assert.equal(r.parameters, info.parameters);
    r.logits.forEach((v, i) => assert.ok(Math.abs(v - native[i]) < 1e-4, `${flavour} logit ${i}: ${v} vs ${native[i]}`));
  }
});

test('a config over the weight limit is refused by the CLI and every wasm flavour with the same message', async () => {
  const dir = join(work, 'huge-config');
  mkdirSync(dir);
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ vocab_size: 100000000, context_length: 64, emb_dim: 64, n_heads: 4, n_layers: 2 }));
  writeFileSync(join(dir, 'model.safetensors'), Buffer.alloc(64));
  const message = cliError(dir);
  assert.match(message, /^the model needs 47\.7 GiB of float32 weights \(12800\d+ parameters\); the limit is 2\.0 GiB/);
  for (const flavour of FLAVOURS) assert.equal((await wasmLoad(flavour, dir)).error, message, flavour);
});

test('a model.safetensors larger than its config allows is refused from its size alike', async () => {
  const dir = join(work, 'sparse');
  ok('init', '--vocab-size', '256', '--context-length', '8', '--emb-dim', '8', '--n-heads', '2', '--n-layers', '1', '--out', dir);
  truncateSync(join(dir, 'model.safetensors'), 20 * 2 ** 30); // sparse: nothing is written or read
  const message = cliError(dir);
  assert.match(message, /^model\.safetensors is 20\.0 GiB \(21474836480 bytes\), more than any checkpoint of this config/);
  for (const flavour of FLAVOURS) assert.equal((await wasmLoad(flavour, dir)).error, message, flavour);
});
