// The shipped sorting model (web/models/sort, made by models/sort/train.mjs): its logits agree with PyTorch's
// (tests/reference/make_trained_goldens.py) natively and in every wasm flavour; greedy decoding through the CLI sorts every held-out input exactly, as
// its model card says; the head table's attention figures are what a fresh measurement gives; the held-out inputs
// are never training inputs; its tokens.json lets `generate --prompt "… SEP"` print the sorted numbers as text (and
// refuse a word that is not a symbol); and the recipe itself runs (at a tiny scale) and is deterministic.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { greedyAccuracy, headRoles, roleName } from '../../models/sort/evaluate.mjs';
import { example, makeSplits, symbols } from '../../models/sort/task.mjs';
import { loadRecipe, runRecipe } from '../../models/sort/train.mjs';
import { loadBlockscope } from '../../web/runtime/blockscope.js';
import { FLAVOURS } from '../wasm/support.mjs';
import { fails, ok, root, run, scratch } from './support.mjs';

const MODEL = join(root, 'web/models/sort');
const golden = JSON.parse(readFileSync(join(root, 'tests/golden/trained_sort.json'), 'utf8'));
const metrics = JSON.parse(readFileSync(join(MODEL, 'metrics.json'), 'utf8'));
const card = readFileSync(join(MODEL, 'README.md'), 'utf8');
const config = JSON.parse(readFileSync(join(MODEL, 'config.json'), 'utf8'));
const recipe = loadRecipe();
const { train, heldout } = makeSplits(recipe.task);
const LOGIT_TOL = 1e-4;

test('the PyTorch goldens and metrics.json were made from the shipped file', () => {
  const sha = createHash('sha256').update(readFileSync(join(MODEL, 'model.safetensors'))).digest('hex');
  assert.equal(golden.model_sha256, sha, 'web/models/sort/model.safetensors changed: regenerate the goldens with ' +
    '/usr/bin/python3 tests/reference/make_trained_goldens.py sort');
  assert.equal(metrics.sha256, sha, 'metrics.json describes another file: rerun the recipe (npm run train:sort)');
  assert.equal(config.vocab_size, recipe.model.vocab_size);
  assert.equal(config.context_length, recipe.model.context_length);
});

test('native logits of the shipped model agree with PyTorch', () => {
  for (const { ids, logits } of golden.examples) {
    const out = JSON.parse(ok('forward', '--model', MODEL, '--tokens', ids.join(','), '--json')).logits.flat();
    const flat = logits.flat();
    assert.equal(out.length, flat.length);
    const worst = Math.max(...out.map((v, i) => Math.abs(v - flat[i])));
    assert.ok(worst <= LOGIT_TOL, `${ids.join(' ')}: max |logit - PyTorch| = ${worst}`);
  }
});

for (const flavour of FLAVOURS) {
  test(`wasm ${flavour}: logits agree with PyTorch and every held-out input is sorted`, async () => {
    const bs = await loadBlockscope({ flavour });
    const gpt = await bs.loadModel({ config: JSON.stringify(config), weights: readFileSync(join(MODEL, 'model.safetensors')) });
    try {
      for (const { ids, logits } of golden.examples) {
        const flat = logits.flat();
        const out = gpt.forward(ids).logits;
        const worst = Math.max(...flat.map((v, i) => Math.abs(out[i] - v)));
        assert.ok(worst <= LOGIT_TOL, `${ids.join(' ')}: max |logit - PyTorch| = ${worst}`);
      }
      // Teacher-forced: every output position's argmax is the right next output exactly when greedy decoding
      // writes the whole sorted sequence.
      const { n } = recipe.task;
      const V = config.vocab_size;
      for (const xs of heldout) {
        const ids = example(xs, recipe.task);
        const out = gpt.forward(ids.slice(0, 2 * n)).logits;
        for (let q = n; q < 2 * n; q++) {
          const row = Array.from(out.subarray(q * V, (q + 1) * V));
          assert.equal(row.indexOf(Math.max(...row)), ids[q + 1], `${xs.join(' ')}: output ${q - n + 1}`);
        }
      }
    } finally {
      gpt.dispose();
    }
  });
}

test('greedy decoding sorts every held-out input exactly, as the model card says', () => {
  const inputs = heldout.slice(0, 300);
  const acc = greedyAccuracy(MODEL, inputs, recipe.task);
  assert.deepEqual(acc.failures, [], 'every held-out input sorted');
  assert.equal(acc.exact, 1);
  assert.equal(metrics.heldout_exact, 1);
  assert.equal(metrics.heldout_examples, recipe.task.heldout_examples);
  assert.ok(card.includes(`**100.0 % of ${recipe.task.heldout_examples} held-out inputs**`), 'the card states 100 %');
});

test('the head table is what the attention weights give now', () => {
  const roles = headRoles(MODEL, heldout, recipe.task);
  assert.deepEqual(Object.keys(roles), metrics.heads.map((h) => h.head));
  for (const h of metrics.heads) {
    for (const [k, v] of Object.entries(h.attention)) {
      assert.ok(Math.abs(roles[h.head][k] - v) <= 1e-6, `head ${h.head} ${k}: ${roles[h.head][k]} vs metrics.json ${v}`);
    }
    assert.ok(card.includes(roleName(roles[h.head])), `the card names head ${h.head}'s role`);
  }
  // At least one head is essential: switching it off breaks the sorting.
  assert.ok(metrics.heads.some((h) => h.ablated_exact < 0.5), 'some head matters');
});

test('tokens.json: generate --prompt "x1 … xn SEP" prints the sorted numbers of held-out inputs as text', () => {
  const sym = symbols(recipe.task);
  assert.deepEqual(JSON.parse(readFileSync(join(MODEL, 'tokens.json'), 'utf8')), sym, 'the shipped tokens.json is the recipe\'s');
  const { n } = recipe.task;
  const words = (ids) => ids.map((id) => sym[id]).join(' ');
  for (const xs of heldout.slice(0, 12)) {
    const ids = example(xs, recipe.task);
    const prompt = words(ids.slice(0, n + 1));
    const r = run('generate', '--model', MODEL, '--prompt', prompt, '--temperature', '0', '--max-new-tokens', String(n));
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `${words(ids.slice(n + 1))}\n`, `the sorted output of ${prompt}`);
    const json = JSON.parse(ok('generate', '--model', MODEL, '--prompt', prompt, '--temperature', '0', '--max-new-tokens',
      String(n), '--json'));
    assert.deepEqual(json.prompt_tokens, ids.slice(0, n + 1));
    assert.equal(json.text, words(ids.slice(n + 1)));
  }
  // tokenize / detokenize read the same file.
  const ids = example(heldout[0], recipe.task);
  assert.equal(ok('tokenize', '--tokenizer', MODEL, '--text', words(ids)).trim(), ids.join(','));
  assert.equal(ok('detokenize', '--tokenizer', MODEL, '--ids', ids.join(',')).trim(), words(ids));
});

test('a word that is not one of the sort model\'s symbols fails, naming it and where it is', () => {
  const args = ['--temperature', '0', '--max-new-tokens', String(recipe.task.n)];
  const outside = String(recipe.task.alphabet); // one past the largest number
  fails(['generate', '--model', MODEL, '--prompt', `3 1 ${outside} SEP`, ...args],
    new RegExp(`"${outside}" \\(at character 4\\) is not a symbol of this tokenizer; its ${symbols(recipe.task).length} symbols are 0, 1, `), 1);
  fails(['generate', '--model', MODEL, '--prompt', '3 1 sep', ...args], /"sep" \(at character 4\) is not a symbol/, 1);
  fails(['generate', '--model', MODEL, '--prompt', ' ', ...args], /the prompt is empty/, 1);
});

test('train reads text in symbols through tokens.json and writes tokens.json into --out', () => {
  const work = scratch('sort-text');
  const text = join(work, 'examples.txt');
  const stride = 2 * recipe.task.n + 1;
  writeFileSync(text, `${heldout.slice(0, 40).map((xs) => example(xs, recipe.task).map((id) => symbols(recipe.task)[id]).join(' ')).join('\n')}\n`);
  const out = join(work, 'out');
  ok('train', '--model', MODEL, '--data', text, '--out', out, '--steps', '2', '--batch-size', '2', '--window-stride', String(stride),
    '--val-fraction', '0.25', '--eval-batches', '1');
  assert.deepEqual(readFileSync(join(out, 'tokens.json'), 'utf8'), readFileSync(join(MODEL, 'tokens.json'), 'utf8'));
  const r = run('generate', '--model', out, '--prompt', '3 1 SEP', '--temperature', '0', '--max-new-tokens', '2');
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^\S+ \S+\n$/, 'two symbols, a space between');
  for (const word of r.stdout.trim().split(' ')) assert.ok(symbols(recipe.task).includes(word), word);
});

test('ablating the head the card marks most essential changes the generated text of some held-out input', () => {
  const worst = metrics.heads.reduce((a, b) => (b.ablated_exact < a.ablated_exact ? b : a));
  const sym = symbols(recipe.task);
  const { n } = recipe.task;
  const changed = heldout.slice(0, 20).filter((xs) => {
    const prompt = example(xs, recipe.task).slice(0, n + 1).map((id) => sym[id]).join(' ');
    const gen = (...extra) => ok('generate', '--model', MODEL, '--prompt', prompt, '--temperature', '0', '--max-new-tokens',
      String(n), ...extra);
    return gen('--ablate', worst.head) !== gen();
  });
  // The card's ablated exact match says how many of them should break: at least one of 20 when it is below 90 %.
  assert.ok(worst.ablated_exact < 0.9, `head ${worst.head}: ${worst.ablated_exact}`);
  assert.ok(changed.length > 0, `ablating head ${worst.head} changed none of 20 outputs`);
});

test('held-out inputs are distinct and never training inputs; examples are sorted after SEP', () => {
  const seen = new Set(train.map((xs) => xs.join(',')));
  const held = new Set(heldout.map((xs) => xs.join(',')));
  assert.equal(held.size, heldout.length);
  assert.ok(heldout.every((xs) => !seen.has(xs.join(','))));
  const ids = example([3, 1, 2, 1, 0, 15, 7, 7], recipe.task);
  assert.deepEqual(ids, [3, 1, 2, 1, 0, 15, 7, 7, 16, 0, 1, 1, 2, 3, 7, 7, 15]);
  // Seeded: the same recipe draws the same data.
  assert.deepEqual(makeSplits(recipe.task).heldout.slice(0, 3), heldout.slice(0, 3));
});

test('the recipe runs end to end at a tiny scale and gives the same file twice', async () => {
  const work = scratch('sort-recipe');
  const quiet = () => {};
  const a = await runRecipe({ out: join(work, 'a'), tiny: true, log: quiet });
  const b = await runRecipe({ out: join(work, 'b'), tiny: true, log: quiet });
  assert.equal(a.sha256, b.sha256, 'same recipe and seed, different model.safetensors');
  for (const f of ['config.json', 'model.safetensors', 'tokens.json', 'README.md', 'metrics.json']) {
    assert.ok(existsSync(join(work, 'a', f)), `the recipe writes ${f}`);
  }
  assert.deepEqual(JSON.parse(readFileSync(join(work, 'a', 'tokens.json'), 'utf8')), symbols(recipe.task));
  assert.equal(a.curve.length, a.train.steps);
  assert.ok(a.curve.at(-1).loss < a.curve[0].loss, `the training loss falls: ${a.curve.map((c) => c.loss)}`);
  assert.equal(a.heads.length, a.config.n_layers * a.config.n_heads);
  assert.equal(a.heldout_examples, 20);
});
