// `blockscope grad` against PyTorch (tests/golden/cli/grad_*.json from tests/reference/make_cli_goldens.py):
// the loss and the gradient of every stored tensor, in the checkpoint file's own names, shapes and layout.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { fails, models, ok, readSafetensors, root, scratch } from './support.mjs';

const work = scratch('grad');
const LOSS_ATOL = 1e-5;
const GRAD_RTOL = 1e-4;  // of each tensor's largest |gradient|

function golden(name) {
  return JSON.parse(readFileSync(join(root, 'tests/golden/cli', `grad_${name}.json`), 'utf8'));
}

const maxAbs = (data, skip = () => false) => data.reduce((m, v, i) => (skip(i) ? m : Math.max(m, Math.abs(v))), 0);

for (const name of ['book_tiny', 'hf_tiny']) {
  test(`grad matches PyTorch's loss and gradients for every tensor of ${name}, in the file's layout`, () => {
    const g = golden(name);
    const out = join(work, `${name}.safetensors`);
    const { loss } = JSON.parse(ok('grad', '--model', join(models, name), '--tokens', g.tokens.join(','),
      '--targets', g.targets.join(','), '--out', out, '--json'));
    assert.ok(Math.abs(loss - g.loss) <= LOSS_ATOL, `loss ${loss}, PyTorch ${g.loss}`);

    const { tensors } = readSafetensors(out);
    assert.deepEqual(Object.keys(tensors).sort(), Object.keys(g.grads).sort(), 'the stored parameter tensors, no buffers');
    const globalMax = Math.max(...Object.values(g.grads).map((t) => maxAbs(t.data)));
    for (const [tensor, expected] of Object.entries(g.grads)) {
      const got = tensors[tensor];
      assert.deepEqual(got.shape, expected.shape, `${tensor} shape`);
      // Mathematically zero elements (the key bias) are compared absolutely, against the largest gradient.
      const [zb, ze] = g.zero[tensor] ?? [0, 0];
      const inZero = (i) => i >= zb && i < ze;
      const tol = GRAD_RTOL * maxAbs(expected.data, inZero);
      const zeroTol = GRAD_RTOL * globalMax;
      expected.data.forEach((e, i) => {
        const allowed = inZero(i) ? zeroTol : tol;
        assert.ok(Math.abs(got.data[i] - e) <= allowed,
          `${name} ${tensor}[${i}]: ${got.data[i]} vs PyTorch ${e} (allowed ${allowed})`);
      });
    }
  });
}

test('grad of a tied Hugging Face file keeps its "transformer." names and writes no mask buffers', () => {
  const out = join(work, 'names.safetensors');
  ok('grad', '--model', join(models, 'hf_tiny'), '--tokens', '1,2,3', '--targets', '2,3,4', '--out', out);
  const names = Object.keys(readSafetensors(out).tensors);
  assert.ok(names.includes('transformer.h.0.attn.c_attn.weight'));
  assert.ok(!names.some((n) => n.endsWith('.attn.bias') || n.endsWith('.attn.masked_bias') || n === 'lm_head.weight'), names.join());
  assert.deepEqual(readSafetensors(out).tensors['transformer.h.0.attn.c_attn.weight'].shape, [16, 48], 'Conv1D (in, out)');
});

test('grad prints the loss and the file it wrote', () => {
  const out = join(work, 'text.safetensors');
  const text = ok('grad', '--model', join(models, 'book_tiny'), '--tokens', '1,2,3', '--targets', '2,3,4', '--out', out);
  assert.match(text, /^loss \d+\.\d+/);
  assert.match(text, new RegExp(`wrote ${out.replace(/[.]/g, '\\.')}: .*37 tensors \\(book layout\\)`));
});

test('grad rejects mismatched or out-of-range targets and too-long sequences', () => {
  const book = join(models, 'book_tiny');
  const out = join(work, 'bad.safetensors');
  fails(['grad', '--model', book, '--tokens', '1,2,3,4', '--targets', '2,3,4', '--out', out],
    /--targets has 3 ids but --tokens has 4/);
  fails(['grad', '--model', book, '--tokens', '1,2,3,4', '--targets', '2,3,4,99', '--out', out],
    /target id 99 at position 3 is outside the vocabulary \[0, 60\)/);
  const long = Array(17).fill(1).join(',');
  fails(['grad', '--model', book, '--tokens', long, '--targets', long, '--out', out],
    /sequence length 17 exceeds context_length 16/);
});
