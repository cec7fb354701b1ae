// The shipped trained model (web/models/brown, made by models/brown/train.mjs): its logits agree with PyTorch's
// (tests/reference/make_trained_goldens.py) natively and in every wasm flavour; the validation loss its model
// card reports is what a fresh evaluation of the held-out documents gives, natively and in wasm; and the recipe
// itself runs (at a tiny scale) and is deterministic.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { evalWindows } from '../../models/brown/evaluate.mjs';
import { heldOutProse, wordRate } from '../../models/lib/english.mjs';
import { prepare } from '../../models/brown/prepare-corpus.mjs';
import { runRecipe } from '../../models/brown/train.mjs';
import { loadBlockscope } from '../../web/runtime/blockscope.js';
import { FLAVOURS } from '../wasm/support.mjs';
import { maxDiff, ok, root, scratch, writeText } from './support.mjs';

const MODEL = join(root, 'web/models/brown');
const golden = JSON.parse(readFileSync(join(root, 'tests/golden/trained_brown.json'), 'utf8'));
const metrics = JSON.parse(readFileSync(join(MODEL, 'metrics.json'), 'utf8'));
const card = readFileSync(join(MODEL, 'README.md'), 'utf8');
const config = JSON.parse(readFileSync(join(MODEL, 'config.json'), 'utf8'));
const weights = readFileSync(join(MODEL, 'model.safetensors'));
const corpus = prepare();
const LOGIT_TOL = 1e-4;

test('the PyTorch goldens were made from the shipped file', () => {
  const sha = createHash('sha256').update(weights).digest('hex');
  assert.equal(golden.model_sha256, sha, 'web/models/brown/model.safetensors changed: regenerate the goldens with ' +
    '/usr/bin/python3 tests/reference/make_trained_goldens.py');
  assert.equal(metrics.sha256, sha, 'metrics.json describes another file: rerun the recipe (npm run train:model)');
});

test('native logits of the shipped model agree with PyTorch (book layout, F16 weights)', () => {
  for (const p of golden.prompts) {
    const out = JSON.parse(ok('forward', '--model', MODEL, '--tokens', p.ids.join(','), '--json'));
    const worst = maxDiff(out.logits.flat(), p.logits);
    assert.ok(worst <= LOGIT_TOL, `prompt ${JSON.stringify(p.text)}: max |logit - PyTorch| = ${worst}`);
  }
});

for (const flavour of FLAVOURS) {
  test(`wasm ${flavour}: logits and held-out loss of the shipped model agree with PyTorch`, async () => {
    const bs = await loadBlockscope({ flavour });
    const gpt = await bs.loadModel({ config: JSON.stringify(config), weights });
    try {
      for (const p of golden.prompts) {
        const worst = maxDiff(gpt.forward(p.ids).logits, p.logits);
        assert.ok(worst <= LOGIT_TOL, `prompt ${JSON.stringify(p.text)}: max |logit - PyTorch| = ${worst}`);
      }
      const ctx = config.context_length;
      const val = new TextEncoder().encode(corpus.val);
      const ids = Int32Array.from(val.subarray(0, golden.val_windows * ctx + 1));
      const { loss } = evalWindows(gpt, ids, ctx);
      assert.ok(Math.abs(loss - golden.val_window_loss) <= 1e-5,
        `loss over ${golden.val_windows} held-out windows: ${loss}, PyTorch ${golden.val_window_loss}`);
    } finally {
      gpt.dispose();
    }
  });
}

test('the model card reports the validation loss a fresh native evaluation gives', () => {
  const work = scratch('trained-eval');
  const valPath = writeText(join(work, 'val.txt'), corpus.val);
  const ev = JSON.parse(ok('eval', '--model', MODEL, '--text', valPath, '--json'));
  assert.equal(ev.tokens, metrics.val_tokens);
  // The card rounds to 4 decimals; another CPU's build may round the sums differently by ~1e-6.
  assert.ok(Math.abs(ev.loss - metrics.val_loss) <= 2e-5, `eval ${ev.loss}, metrics.json ${metrics.val_loss}`);
  assert.ok(card.includes(`**${ev.loss.toFixed(4)} nats per byte-token = ${ev.bits_per_byte.toFixed(4)} bits per byte**`),
    `the card should state ${ev.loss.toFixed(4)} nats / ${ev.bits_per_byte.toFixed(4)} bits per byte`);
  assert.ok(Math.abs(ev.bits_per_byte - ev.loss / Math.LN2) < 1e-9); // one byte per token
  assert.ok(ev.loss < Math.log(256) / 2, `a trained model: ${ev.loss} nats should be well below uniform's ${Math.log(256)}`);
});

test('wasm (SIMD128) evaluation of the held-out documents matches the model card', async () => {
  const bs = await loadBlockscope({ flavour: 'simd' });
  const gpt = await bs.loadModel({ config: JSON.stringify(config), weights });
  try {
    const ids = Int32Array.from(new TextEncoder().encode(corpus.val));
    const { loss, tokens } = evalWindows(gpt, ids, config.context_length);
    assert.equal(tokens, metrics.val_tokens);
    assert.ok(Math.abs(loss - metrics.val_loss) <= 2e-5, `wasm ${loss}, metrics.json ${metrics.val_loss}`);
    assert.ok(card.includes(`**${loss.toFixed(4)} nats per byte-token`), `the card should state ${loss.toFixed(4)} nats`);
  } finally {
    gpt.dispose();
  }
});

test('the card reports the held-out prose loss and the English-word rate a fresh measurement gives', () => {
  const prose = heldOutProse();
  assert.deepEqual(prose.documents, metrics.prose.documents);
  const work = scratch('prose');
  const ev = JSON.parse(ok('eval', '--model', MODEL, '--text', writeText(join(work, 'prose.txt'), prose.text), '--json'));
  assert.ok(Math.abs(ev.bits_per_byte - metrics.prose.bits_per_byte) <= 1e-6, `prose ${ev.bits_per_byte}`);
  assert.ok(card.includes(`${ev.bits_per_byte.toFixed(4)} bits per byte on ${prose.source}`), 'the card states it');
  const { prompts, seeds, max_new_tokens: n } = metrics.word_rate;
  const fresh = wordRate(prompts.flatMap((prompt) => Array.from({ length: seeds }, (_, seed) => ({
    prompt,
    text: JSON.parse(ok('generate', '--model', MODEL, '--prompt', prompt, '--max-new-tokens', String(n),
      '--temperature', '0.8', '--top-k', '40', '--seed', String(seed), '--json')).text,
  }))));
  assert.equal(fresh.words, metrics.word_rate.words);
  assert.equal(fresh.rate, metrics.word_rate.rate);
  assert.ok(card.includes(`${(100 * fresh.rate).toFixed(1)} % of ${fresh.words.toLocaleString('en-US')} words`));
});

test('the recipe runs end to end at a tiny scale and gives the same file twice', async () => {
  const work = scratch('recipe');
  const quiet = () => {};
  const a = await runRecipe({ out: join(work, 'a'), tiny: true, log: quiet });
  const b = await runRecipe({ out: join(work, 'b'), tiny: true, log: quiet });
  assert.equal(a.sha256, b.sha256, 'same recipe and seed, different model.safetensors');
  for (const f of ['config.json', 'model.safetensors', 'README.md', 'metrics.json']) {
    assert.ok(existsSync(join(work, 'a', f)), `the recipe writes ${f}`);
  }
  assert.equal(a.curve.length, a.train.steps);
  assert.ok(a.curve.at(-1).loss < a.curve[0].loss, `4 steps lower the training loss: ${a.curve.map((c) => c.loss)}`);
  assert.ok(a.val_loss > 0 && a.val_loss < Math.log(256) + 0.1);
  const ev = JSON.parse(ok('eval', '--model', join(work, 'a'), '--text', writeText(join(work, 'val.txt'), corpus.val), '--json'));
  assert.equal(ev.loss, a.val_loss);
  const file = readFileSync(join(work, 'a', 'model.safetensors'));
  const { __metadata__: _, ...entries } = JSON.parse(file.subarray(8, 8 + Number(file.readBigUInt64LE(0))).toString('utf8'));
  assert.deepEqual(new Set(Object.values(entries).map((e) => e.dtype)), new Set(['F16']), 'stored as F16');
});

test('the corpus keeps whole documents apart and strips every tag', () => {
  const { train, val, manifest } = corpus;
  assert.equal(manifest.val_documents.length, 25);
  assert.ok(!/\S\/[a-z$*+-]{1,6}(\s|$)/.test(val.slice(0, 20000)), 'no WORD/TAG left');
  // Quote marks are plain " (a '' after a digit is the corpus's inches: 4' 10'').
  assert.deepEqual(train.match(/``|(^|[^0-9])''/g) ?? [], [], 'quote marks are plain "');
  const loose = train.match(/\w [,;?!)]/g) ?? [];
  assert.equal(loose.length, 0, `no space before closing punctuation: ${loose.slice(0, 5)}`);
  // A held-out document's opening is nowhere in the training text.
  const opening = val.split('\n')[0].slice(0, 80);
  assert.ok(opening.length > 40 && !train.includes(opening), `held-out text leaked: ${opening}`);
});
