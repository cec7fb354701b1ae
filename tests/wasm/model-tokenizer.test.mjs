// A checkpoint's tokenizer through the wasm runtime (both flavours), chosen as the CLI chooses it: GPT-2-format files
// next to the model (tests/golden/models/bpe_tiny: vocab.json + merges.txt) win and give the ids the CLI gives
// (tests/golden/models/bpe_tiny.json); without them, the core's default for the vocabulary; a vocabulary file without
// its merges, a tokenizer with more ids than the model, and a vocabulary no tokenizer fits are errors naming them.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { before, describe, test } from 'node:test';

import { loadBlockscope } from '../../web/runtime/blockscope.js';
import { FLAVOURS } from './support.mjs';

const modelsDir = new URL('../golden/models/', import.meta.url);
const bpeDir = new URL('bpe_tiny/', modelsDir);
const golden = JSON.parse(readFileSync(new URL('bpe_tiny.json', modelsDir), 'utf8'));
const fileOf = (name) => ({ name, size: readFileSync(new URL(name, bpeDir)).length,
  text: async () => readFileSync(new URL(name, bpeDir), 'utf8') });

for (const flavour of FLAVOURS) {
  describe(`wasm ${flavour}: a checkpoint's own tokenizer`, () => {
    let bs;
    before(async () => {
      bs = await loadBlockscope({ flavour });
    });

    test('vocab.json + merges.txt next to the model win: the CLI\'s ids, the files named as its source', async () => {
      for (const source of [{ url: bpeDir.href }, { files: ['config.json', 'vocab.json', 'merges.txt'].map(fileOf) },
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
        /no tokenizer fits a vocabulary of 60 token ids/);
    });
  });
}
