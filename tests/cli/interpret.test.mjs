// blockscope lens, attribute, forward and generate (with --ablate) against PyTorch (tests/golden/interpret.json, written by
// tests/reference/make_interpret_goldens.py) on the tiny golden GPT and the shipped trained model; and their errors.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { fails, models, ok, root } from './support.mjs';

const golden = JSON.parse(readFileSync(join(root, 'tests/golden/interpret.json'), 'utf8'));
const dir = (name) => (name === 'brown' ? join(root, 'web/models/brown') : join(models, name));
const maxDiff = (a, e) => {
  const x = a.flat(Infinity);
  const y = e.flat(Infinity);
  assert.equal(x.length, y.length);
  return Math.max(...x.map((v, i) => Math.abs(v - y[i])));
};
const scale = (v) => Math.max(...v.map(Math.abs));

for (const c of golden.cases) {
  const base = ['--model', dir(c.name), '--tokens', c.ids.join(',')];
  test(`${c.name}: lens, ablated lenses and attribution equal PyTorch's`, () => {
    const { lens } = JSON.parse(ok('lens', ...base, '--json'));
    assert.equal(lens.length, c.lens.length, 'layers: the embeddings and each block');
    assert.ok(maxDiff(lens, c.lens) <= 1e-4, `lens off by ${maxDiff(lens, c.lens)}`);
    for (const a of c.ablations) {
      const ablate = ['--ablate', a.heads.join(','), '--ablate-mode', a.mode];
      const { lens: ablated } = JSON.parse(ok('lens', ...base, ...ablate, '--json'));
      assert.ok(maxDiff(ablated.at(-1), a.logits) <= 1e-4, `lens ${ablate.join(' ')}: last layer off`);
      const { logits } = JSON.parse(ok('forward', ...base, ...ablate, '--json'));
      assert.ok(maxDiff(logits, a.logits) <= 1e-4, `forward ${ablate.join(' ')} off by ${maxDiff(logits, a.logits)}`);
      const last = a.logits.at(-1);
      const generate = ['generate', '--model', dir(c.name), '--prompt-ids', c.ids.join(','), '--temperature', '0',
        '--max-new-tokens', '1', '--no-stop', '--json', '--ablate', a.heads.join(',')];
      if (a.mode === 'zero') {
        const { tokens } = JSON.parse(ok(...generate));
        assert.deepEqual(tokens, [last.indexOf(Math.max(...last))], 'greedy generation follows the ablated logits');
      } else {
        fails([...generate, '--ablate-mode', 'mean'], /mean/);
      }
      const { attribution } = JSON.parse(ok('attribute', ...base, ...ablate, '--target', String(c.target), '--json'));
      assert.ok(maxDiff(attribution, a.attribution) <= 1e-4 * scale(a.attribution), 'attribution through ablated heads');
    }
    for (const a of c.attributions) {
      const { attribution } = JSON.parse(ok('attribute', ...base, '--target', String(c.target), '--method', a.method,
        '--objective', a.objective, '--steps', String(a.steps), '--json'));
      assert.ok(maxDiff(attribution, a.values) <= 1e-4 * scale(a.values), `${a.method} of the ${a.objective}`);
    }
  });
}

test('forward --attention prints every head\'s causal softmax weights beside unchanged logits', () => {
  const base = ['forward', '--model', join(models, 'book_tiny'), '--tokens', '5,1,4,1,5,9', '--json'];
  const plain = JSON.parse(ok(...base));
  const { logits, attention } = JSON.parse(ok(...base, '--attention'));
  assert.deepEqual(logits, plain.logits, 'recording the weights does not change the logits');
  const info = JSON.parse(ok('info', '--model', join(models, 'book_tiny'), '--json'));
  assert.equal(attention.length, info.config.n_layers);
  for (const heads of attention) {
    assert.equal(heads.length, info.config.n_heads);
    for (const rows of heads) {
      assert.equal(rows.length, 6);
      rows.forEach((row, q) => {
        assert.equal(row.length, 6);
        assert.ok(row.slice(q + 1).every((w) => w === 0), `query ${q} attends to a later key: ${row}`);
        const sum = row.reduce((a, b) => a + b, 0);
        assert.ok(Math.abs(sum - 1) < 1e-5, `query ${q}: weights sum to ${sum}`);
      });
    }
  }
  assert.ok(attention.flat(2).some((row) => row[0] !== 1 && row[1] > 0), 'not all weight on the first token');
  // Ablation zeroes a head's output, not its weights: the weights are still shown, and the logits change.
  const ablated = JSON.parse(ok(...base, '--attention', '--ablate', '0.0'));
  assert.deepEqual(ablated.attention[0], attention[0]);
  assert.notDeepEqual(ablated.logits, logits);
  fails(['forward', '--model', join(models, 'book_tiny'), '--tokens', '1,2', '--attention'], /--attention needs --json/);
});

test('lens and attribute name what is wrong', () => {
  const base = ['--model', join(models, 'book_tiny'), '--tokens', '1,2,3'];
  fails(['lens', ...base, '--ablate', '2.0'], /head '2\.0': block 2 is outside the model's \[0, 2\)/);
  fails(['lens', ...base, '--ablate', '0.1', '--ablate-mode', 'half'], /head ablation 'half' is not 'zero' or 'mean'/);
  fails(['attribute', ...base, '--target', '60'], /target id 60 is outside the vocabulary \[0, 60\)/);
  fails(['attribute', ...base, '--target', '1', '--method', 'saliency'], /'saliency' is not 'grad-x-input'/);
  fails(['attribute', ...base, '--target', '1', '--method', 'integrated-gradients', '--steps', '0'], /need 1 to 1024 steps, got 0/);
  fails(['attribute', ...base, '--target', '1', '--objective', 'prob'], /--objective 'prob' is not logit or logprob/);
  fails(['attribute', ...base], /--target is required/);
  fails(['attribute', ...base, '--target', '1', '--weights', 'int8'], /int8/);
  const text = ok('lens', ...base);
  assert.match(text, /^logit lens at the last position \(token 3\)/);
  assert.equal(text.trim().split('\n').length, 1 + 3, 'a line per layer');
});
