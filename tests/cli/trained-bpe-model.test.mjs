// The shipped BPE model (web/models/brown-bpe, made by `node models/brown/train.mjs --recipe bpe`): its own
// tokenizer encodes the reference prompts as OpenAI encoder.py's algorithm does on the same files, and its logits
// agree with PyTorch's (tests/reference/make_trained_goldens.py brown-bpe) natively and in every wasm flavour; the
// figures its card reports — held-out Brown loss, held-out prose bits per byte, English-word rate — are what a fresh
// measurement gives; and the BPE recipe itself runs (at a tiny scale), deterministically.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';

import { heldOutProse, wordRate } from '../../models/lib/english.mjs';
import { prepare } from '../../models/brown/prepare-corpus.mjs';
import { runRecipe } from '../../models/brown/train.mjs';
import { loadBlockscope } from '../../web/runtime/blockscope.js';
import { FLAVOURS } from '../wasm/support.mjs';
import { maxDiff, ok, root, scratch, writeText } from './support.mjs';

const MODEL = join(root, 'web/models/brown-bpe');
const golden = JSON.parse(readFileSync(join(root, 'tests/golden/trained_brown_bpe.json'), 'utf8'));
const metrics = JSON.parse(readFileSync(join(MODEL, 'metrics.json'), 'utf8'));
const card = readFileSync(join(MODEL, 'README.md'), 'utf8');
const weights = readFileSync(join(MODEL, 'model.safetensors'));
const LOGIT_TOL = 1e-4;
const work = scratch('bpe-model');

test('the PyTorch goldens and metrics.json describe the shipped file', () => {
  const sha = createHash('sha256').update(weights).digest('hex');
  assert.equal(golden.model_sha256, sha, 'web/models/brown-bpe/model.safetensors changed: regenerate the goldens with ' +
    '/usr/bin/python3 tests/reference/make_trained_goldens.py brown-bpe');
  assert.equal(metrics.sha256, sha, 'metrics.json describes another file: rerun the recipe (npm run train:model)');
  const vocab = JSON.parse(readFileSync(join(MODEL, 'vocab.json'), 'utf8'));
  assert.equal(Object.keys(vocab).length, metrics.config.vocab_size, 'the tokenizer has one id per row of the embedding');
});

test("the model's own tokenizer and native logits agree with encoder.py's ids and PyTorch's logits", () => {
  for (const p of golden.prompts) {
    assert.deepEqual(JSON.parse(ok('tokenize', '--tokenizer', MODEL, '--text', p.text, '--json')), p.ids, p.text);
    const out = JSON.parse(ok('forward', '--model', MODEL, '--tokens', p.ids.join(','), '--json'));
    const worst = maxDiff(out.logits.flat(), p.logits);
    assert.ok(worst <= LOGIT_TOL, `prompt ${JSON.stringify(p.text)}: max |logit - PyTorch| = ${worst}`);
  }
});

for (const flavour of FLAVOURS) {
  test(`wasm ${flavour}: the model and its tokenizer from the directory agree with PyTorch`, async () => {
    const bs = await loadBlockscope({ flavour });
    const source = { url: pathToFileURL(`${MODEL}/`).href };
    const gpt = await bs.loadModel(source);
    const tokenizer = await bs.loadTokenizer(source, { vocabSize: gpt.config.vocab_size });
    try {
      assert.equal(tokenizer.kind, 'gpt2');
      assert.match(tokenizer.source, /vocab\.json \+ merges\.txt$/);
      for (const p of golden.prompts) {
        assert.deepEqual(Array.from(tokenizer.encode(p.text)), p.ids, p.text);
        const worst = maxDiff(gpt.forward(p.ids).logits, p.logits);
        assert.ok(worst <= LOGIT_TOL, `prompt ${JSON.stringify(p.text)}: max |logit - PyTorch| = ${worst}`);
      }
    } finally {
      tokenizer.dispose();
      gpt.dispose();
    }
  });
}

test('the card reports what a fresh evaluation gives: held-out Brown loss and held-out prose bits per byte', () => {
  const val = writeText(join(work, 'val.txt'), prepare().val);
  const ev = JSON.parse(ok('eval', '--model', MODEL, '--text', val, '--json'));
  assert.ok(Math.abs(ev.loss - metrics.val_loss) <= 1e-6, `eval ${ev.loss}, metrics.json ${metrics.val_loss}`);
  assert.ok(card.includes(`**${ev.loss.toFixed(4)} nats per token = ${ev.bits_per_byte.toFixed(4)} bits per byte**`),
    `the card should state ${ev.loss.toFixed(4)} nats / ${ev.bits_per_byte.toFixed(4)} bits per byte`);
  const prose = heldOutProse();
  assert.deepEqual(prose.documents, metrics.prose.documents);
  const pev = JSON.parse(ok('eval', '--model', MODEL, '--text', writeText(join(work, 'prose.txt'), prose.text), '--json'));
  assert.ok(Math.abs(pev.bits_per_byte - metrics.prose.bits_per_byte) <= 1e-6, `prose ${pev.bits_per_byte}`);
  assert.ok(card.includes(`**${pev.bits_per_byte.toFixed(4)} bits per byte** (${pev.loss.toFixed(4)} nats per token)`));
});

test('the English-word rate on the card is what sampling the model again gives', () => {
  const { prompts, seeds, max_new_tokens: n } = metrics.word_rate;
  const samples = prompts.flatMap((prompt) => Array.from({ length: seeds }, (_, seed) => ({
    prompt,
    text: JSON.parse(ok('generate', '--model', MODEL, '--prompt', prompt, '--max-new-tokens', String(n),
      '--temperature', '0.8', '--top-k', '40', '--seed', String(seed), '--json')).text,
  })));
  const fresh = wordRate(samples);
  assert.equal(fresh.words, metrics.word_rate.words);
  assert.equal(fresh.rate, metrics.word_rate.rate);
  assert.ok(card.includes(`**${(100 * fresh.rate).toFixed(1)} %**`), 'the card states the rate');
});

test('the word-rate rule: prompt words are not counted, a word cut off by the token limit is not either', () => {
  const r = wordRate([{ prompt: 'The ju', text: 'ry said xqzt and the.' }, { prompt: 'She', text: ' ran hom' }]);
  // "jury" (the prompt's last word, extended), "said", "xqzt", "and", "the" | "ran" ("hom" is cut off: the text
  // ends inside it)
  assert.equal(r.words, 6);
  assert.equal(r.english, 5);
  assert.deepEqual(r.unknown, ['xqzt']);
});

test('the BPE recipe runs end to end at a tiny scale: tokenizer files shipped, the same file twice', async () => {
  const quiet = () => {};
  const a = await runRecipe({ out: join(work, 'a'), tiny: true, recipe: 'bpe', log: quiet });
  const b = await runRecipe({ out: join(work, 'b'), tiny: true, recipe: 'bpe', log: quiet });
  assert.equal(a.sha256, b.sha256, 'same recipe and seed, different model.safetensors');
  for (const f of ['config.json', 'model.safetensors', 'vocab.json', 'merges.txt', 'README.md', 'metrics.json']) {
    assert.ok(existsSync(join(work, 'a', f)), `the recipe writes ${f}`);
  }
  assert.equal(a.tokenizer.vocab_size, a.config.vocab_size);
  assert.ok(a.prose.bits_per_byte > 0 && a.word_rate.words > 0, JSON.stringify({ prose: a.prose, words: a.word_rate }));
  const summary = JSON.parse(ok('info', '--model', join(work, 'a'), '--json'));
  assert.equal(summary.config.vocab_size, a.tokenizer.vocab_size);
});
