// `blockscope convert`: rewrites a model directory with F32, F16 or BF16 weights, keeping layout and names.
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { fails, initTiny, models, ok, run, scratch } from './support.mjs';

const work = scratch('convert');
const src = initTiny(join(work, 'src'), { seed: 3 });
const IDS = '84,104,101,32,99,97,116';

function header(dir) {
  const bytes = readFileSync(join(dir, 'model.safetensors'));
  const { __metadata__: metadata, ...entries } = JSON.parse(bytes.subarray(8, 8 + Number(bytes.readBigUInt64LE(0))).toString('utf8'));
  return { metadata, entries };
}
const logits = (dir) => JSON.parse(ok('forward', '--model', dir, '--tokens', IDS, '--json')).logits.flat();
const maxDiff = (a, b) => a.reduce((m, x, i) => Math.max(m, Math.abs(x - b[i])), 0);

test('convert to F16 and BF16 halves the file, keeps the tensor names and nearly the same logits', () => {
  const f32 = header(src);
  const base = logits(src);
  for (const [dtype, tol] of [['f16', 2e-3], ['bf16', 3e-2]]) {
    const out = join(work, dtype);
    const r = run('convert', '--model', src, '--out', out, '--dtype', dtype);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, new RegExp(`${dtype.toUpperCase()}, book layout.*largest change`));
    const h = header(out);
    assert.deepEqual(Object.keys(h.entries).sort(), Object.keys(f32.entries).sort());
    assert.ok(Object.values(h.entries).every((e) => e.dtype === dtype.toUpperCase()));
    const ratio = statSync(join(out, 'model.safetensors')).size / statSync(join(src, 'model.safetensors')).size;
    assert.ok(ratio > 0.49 && ratio < 0.52, `${dtype} file is ${ratio} of F32`);
    const d = maxDiff(logits(out), base);
    assert.ok(d > 0 && d < tol, `${dtype}: max logit change ${d}`);
  }
  // Back to F32 from F16 is exact: the F16 values are float32 values.
  ok('convert', '--model', join(work, 'f16'), '--out', join(work, 'f16-f32'), '--dtype', 'f32');
  assert.deepEqual(logits(join(work, 'f16-f32')), logits(join(work, 'f16')));
});

test('convert keeps a Hugging Face file\'s layout and names', () => {
  const out = join(work, 'hf16');
  ok('convert', '--model', join(models, 'hf_tiny'), '--out', out, '--dtype', 'f16');
  assert.deepEqual(Object.keys(header(out).entries).sort(), Object.keys(header(join(models, 'hf_tiny')).entries).sort()
    .filter((n) => !n.endsWith('.attn.bias') && !n.endsWith('.masked_bias')));
  assert.equal(JSON.parse(ok('info', '--model', out, '--json')).layout, 'huggingface');
});

test('convert rejects an unknown dtype and a missing model', () => {
  fails(['convert', '--model', src, '--out', join(work, 'x'), '--dtype', 'int8'], /--dtype must be f32, f16 or bf16, got 'int8'/);
  fails(['convert', '--model', join(work, 'nope'), '--out', join(work, 'x'), '--dtype', 'f16'], /nope/);
});
