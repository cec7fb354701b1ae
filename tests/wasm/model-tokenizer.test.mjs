// A checkpoint's tokenizer through the wasm runtime (every flavour), chosen as the CLI chooses it: GPT-2-format files
// next to the model (tests/golden/models/bpe_tiny: vocab.json + merges.txt) win and give the ids the CLI gives
// (tests/golden/models/bpe_tiny.json); without them, the core's default for the vocabulary; a vocabulary file without
// its merges, a tokenizer with more ids than the model, and a vocabulary no tokenizer fits are errors naming them.
// The shipped sort model (web/models/sort, 17 ids) brings tokens.json, the only file looked for below 256 ids: its
// symbols are the recipe's, its text round-trips, and greedy decoding in wasm prints sorted numbers; a word outside
// the vocabulary and a malformed tokens.json are errors naming them.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { before, describe, test } from 'node:test';

import { example, makeSplits, symbols } from '../../models/sort/task.mjs';
import { loadBlockscope } from '../../web/runtime/blockscope.js';
import { FLAVOURS } from './support.mjs';

const modelsDir = new URL('../golden/models/', import.meta.url);
const bpeDir = new URL('bpe_tiny/', modelsDir);
const golden = JSON.parse(readFileSync(new URL('bpe_tiny.json', modelsDir), 'utf8'));
const fileOf = (name, dir = bpeDir) => ({ name, size: readFileSync(new URL(name, dir)).length,
  text: async () => readFileSync(new URL(name, dir), 'utf8') });
const sortDir = new URL('../../web/models/sort/', import.meta.url);
const sortConfig = JSON.parse(readFileSync(new URL('config.json', sortDir), 'utf8'));
const task = JSON.parse(readFileSync(new URL('../../models/sort/recipe.json', import.meta.url), 'utf8')).task;
const words = (ids) => ids.map((id) => symbols(task)[id]).join(' ');
/** A scratch directory holding `files` ({name: text}), as a file:// URL; removed by the returned function. */
function scratchDir(files) {
  const dir = mkdtempSync(join(tmpdir(), 'bs-sym-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return { url: pathToFileURL(`${dir}/`).href, remove: () => rmSync(dir, { recursive: true }) };
}

for (const flavour of FLAVOURS) {
  describe(`wasm ${flavour}: a checkpoint's own tokenizer`, () => {
    let bs;
    before(async () => {
      bs = await loadBlockscope({ flavour });
    });

    test('vocab.json + merges.txt next to the model win: the CLI\'s ids, the files named as its source', async () => {
      for (const source of [{ url: bpeDir.href }, { files: ['config.json', 'vocab.json', 'merges.txt'].map((n) => fileOf(n)) },
        { tokenizer: { vocab: (await fileOf('vocab.json').text()), merges: await fileOf('merges.txt').text() } }]) {
        const t = await bs.loadTokenizer(source, { vocabSize: 262 });
        assert.deepEqual(Array.from(t.encode(golden.text)), golden.ids, JSON.stringify(Object.keys(source)));
        assert.deepEqual(t.tokenTexts(golden.ids), golden.tokens);
        assert.equal(t.kind, 'gpt2');
        assert.equal(t.vocabSize, 262);
        assert.match(t.source, /vocab\.json \+ merges\.txt$/);
        t.dispose();
      }
    });

    test('without tokenizer files (or told there are none) the vocabulary\'s default: bytes, GPT-2\'s', async () => {
      const bytes = await bs.loadTokenizer({ url: new URL('book_tiny/', modelsDir).href }, { vocabSize: 256 });
      assert.equal(bytes.kind, 'bytes');
      assert.equal(bytes.source, null);
      bytes.dispose();
      const told = await bs.loadTokenizer({ url: bpeDir.href, tokenizerFiles: false }, { vocabSize: 262 });
      assert.equal(told.kind, 'bytes', 'nothing is looked for');
      told.dispose();
      const eot = await bs.loadTokenizer({ config: '{}', weights: new Uint8Array(0) }, { vocabSize: 257 });
      assert.equal(eot.kind, 'bytes+eot');
      eot.dispose();
    });

    test('a vocabulary without merges, too many ids, or no tokenizer that fits are errors naming them', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'bs-tok-'));
      try {
        writeFileSync(join(dir, 'vocab.json'), readFileSync(new URL('vocab.json', bpeDir)));
        await assert.rejects(bs.loadTokenizer({ url: pathToFileURL(`${dir}/`).href }, { vocabSize: 262 }),
          /vocab\.json is there but not merges\.txt/);
        await assert.rejects(bs.loadTokenizer({ files: [fileOf('vocab.json')] }, { vocabSize: 262 }), /found vocab\.json but not merges\.txt/);
      } finally {
        rmSync(dir, { recursive: true });
      }
      await assert.rejects(bs.loadTokenizer({ url: bpeDir.href }, { vocabSize: 260 }),
        /has 262 token ids but the model's vocabulary has only 260/);
      await assert.rejects(bs.loadTokenizer({ url: new URL('book_tiny/', modelsDir).href }, { vocabSize: 60 }),
        /no tokenizer fits a vocabulary of 60 token ids .*no tokenizer files \(tokens\.json\)/);
    });

    test('the sort model\'s tokens.json: the recipe\'s symbols, text that round-trips, sorted numbers from greedy decoding', async () => {
      const V = sortConfig.vocab_size;
      const given = await fileOf('tokens.json', sortDir).text();
      for (const source of [{ url: sortDir.href }, { files: ['config.json', 'tokens.json'].map((n) => fileOf(n, sortDir)) },
        { tokenizer: { tokens: given } }]) {
        const t = await bs.loadTokenizer(source, { vocabSize: V });
        assert.equal(t.kind, 'symbols', JSON.stringify(Object.keys(source)));
        assert.equal(t.vocabSize, V);
        assert.equal(t.eotId, null);
        assert.equal(t.separator, ' ');
        assert.match(t.source, /tokens\.json$/);
        assert.deepEqual(t.tokenTexts(Array.from({ length: V }, (_, id) => id)), symbols(task));
        t.dispose();
      }
      const t = await bs.createTokenizer({ kind: 'symbols', tokens: given });
      const gpt = await bs.loadModel({ url: sortDir.href });
      try {
        const { n } = task;
        for (const xs of makeSplits(task).heldout.slice(0, 5)) {
          const ids = example(xs, task);
          const prompt = words(ids.slice(0, n + 1));
          assert.deepEqual(Array.from(t.encode(prompt)), ids.slice(0, n + 1));
          assert.equal(t.decode(t.encode(`  ${prompt.replace(/ /g, '\n ')} `)), prompt, 'any whitespace splits; decode joins with spaces');
          const out = [...gpt.generate(t.encode(prompt), { maxNewTokens: n, temperature: 0 })].map((g) => g.token);
          assert.equal(t.decode(out), words(ids.slice(n + 1)), `${prompt} sorted`);
        }
        assert.throws(() => t.encode(`3 1 ${task.alphabet} SEP`), new RegExp(`"${task.alphabet}" \\(at character 4\\) is not a symbol`));
        assert.equal(t.encode(' ').length, 0);
      } finally {
        gpt.dispose();
        t.dispose();
      }
    });

    test('tokens.json is looked for below 256 ids only, and a malformed one is an error naming its URL and entry', async () => {
      // Both layouts in one directory: below 256 ids the symbols are read (a BPE could not fit); from 256 up, tokens.json
      // is not even looked for.
      const both = scratchDir({ 'tokens.json': '["a", "b"]', 'vocab.json': readFileSync(new URL('vocab.json', bpeDir), 'utf8'),
        'merges.txt': readFileSync(new URL('merges.txt', bpeDir), 'utf8') });
      const only = scratchDir({ 'tokens.json': '["a", "b"]' });
      const bad = scratchDir({ 'tokens.json': '["a", "b", "a"]' });
      try {
        const small = await bs.loadTokenizer({ url: both.url }, { vocabSize: 2 });
        assert.equal(small.kind, 'symbols');
        small.dispose();
        const large = await bs.loadTokenizer({ url: both.url }, { vocabSize: 262 });
        assert.equal(large.kind, 'gpt2');
        large.dispose();
        const bytes = await bs.loadTokenizer({ url: only.url }, { vocabSize: 256 });
        assert.equal(bytes.kind, 'bytes', 'tokens.json is not looked for at 256 ids');
        bytes.dispose();
        await assert.rejects(bs.loadTokenizer({ url: only.url }, { vocabSize: 1 }),
          /the tokenizer \(.*tokens\.json\) has 2 token ids but the model's vocabulary has only 1/);
        await assert.rejects(bs.loadTokenizer({ url: bad.url }, { vocabSize: 3 }),
          (err) => err.message.startsWith(`${bad.url}tokens.json: entry 2 ("a") repeats entry 0`));
        await assert.rejects(bs.createTokenizer({ kind: 'symbols', tokens: '["a", "b c"]' }), /entry 1 \("b c"\) contains whitespace/);
        await assert.rejects(bs.createTokenizer({ kind: 'words' }), /unknown tokenizer kind 'words'/);
      } finally {
        for (const d of [both, only, bad]) d.remove();
      }
      // The runtime still works after the errors.
      const again = await bs.loadTokenizer({ url: sortDir.href }, { vocabSize: sortConfig.vocab_size });
      assert.equal(again.kind, 'symbols');
      again.dispose();
    });
  });
}
