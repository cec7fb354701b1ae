// `blockscope tokenizer train`: a byte-level BPE trained on the Brown corpus's training documents encodes the
// held-out documents (through `blockscope tokenize --tokenizer DIR`) exactly as two independent implementations
// loaded with the same files do (npm gpt-tokenizer's BPE core with the trained ranks and GPT-2's split regex, and
// encoder.py's merge loop on merges.txt); the summary's figures hold; bad arguments and unwritable outputs fail
// before any file is written.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { GptEncoding } from 'gpt-tokenizer/GptEncoding';
import { R50K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/encodingParams/constants';

import { prepare } from '../../models/brown/prepare-corpus.mjs';
import { fails, ok, runWith, scratch, writeText } from './support.mjs';

const MERGES = 2000;
const EOT = '<|endoftext|>';
const work = scratch('tokenizer-train');
const corpus = prepare();
const trainText = writeText(join(work, 'train.txt'), corpus.train);
// The held-out documents, separated by <|endoftext|> as a training run's documents would be.
const heldOut = corpus.documents.val.join(EOT);
const heldOutFile = writeText(join(work, 'val.txt'), heldOut);

/** GPT-2's bytes_to_unicode, inverted: character of vocab.json/merges.txt -> byte (encoder.py's bs/cs lists). */
function unicodeToBytes() {
  const printable = (b) => (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
  const map = new Map();
  let next = 256;
  for (let b = 0; b < 256; b++) map.set(String.fromCodePoint(printable(b) ? b : next++), b);
  return map;
}

/**
 * gpt-tokenizer's BPE core loaded from vocab.json: its ranks are the ids (tiktoken's convention, which a
 * trained vocabulary meets: bytes, then merges in rank order), each token's bytes as a string when they are
 * valid UTF-8, else as a byte array; <|endoftext|> is its special token.
 */
function referenceEncoder(dir) {
  const vocab = JSON.parse(readFileSync(join(dir, 'vocab.json'), 'utf8'));
  const toByte = unicodeToBytes();
  const ranks = [];
  const special = new Map();
  for (const [token, id] of Object.entries(vocab)) {
    if (token === EOT) {
      special.set(token, id);
      continue;
    }
    const bytes = Buffer.from([...token].map((ch) => toByte.get(ch)));
    const text = bytes.toString('utf8');
    ranks[id] = Buffer.from(text, 'utf8').equals(bytes) ? text : [...bytes];
  }
  return new GptEncoding({
    tokenSplitRegex: R50K_TOKEN_SPLIT_REGEX, bytePairRankDecoder: ranks, specialTokensEncoder: special,
  });
}

/**
 * OpenAI encoder.py's bpe() from merges.txt alone (gpt-tokenizer above never reads it): each word of GPT-2's split
 * regex, as bytes_to_unicode characters, repeatedly merges its lowest-ranked adjacent pair, every occurrence left
 * to right; the pieces' ids come from vocab.json.
 */
function mergesEncoder(dir) {
  const vocab = JSON.parse(readFileSync(join(dir, 'vocab.json'), 'utf8'));
  const ranks = new Map(readFileSync(join(dir, 'merges.txt'), 'utf8').split('\n').slice(1).filter((l) => l !== '')
    .map((line, rank) => [line, rank]));
  const char = new Map([...unicodeToBytes()].map(([ch, b]) => [b, ch]));
  const bpe = (word) => {
    let parts = [...Buffer.from(word, 'utf8')].map((b) => char.get(b));
    for (;;) {
      let best;
      for (let i = 0; i + 1 < parts.length; i++) {
        const rank = ranks.get(`${parts[i]} ${parts[i + 1]}`);
        if (rank !== undefined && (best === undefined || rank < best.rank)) {
          best = { rank, a: parts[i], b: parts[i + 1] };
        }
      }
      if (!best) return parts.map((p) => vocab[p]);
      const merged = [];
      for (let i = 0; i < parts.length; i++) {
        if (i + 1 < parts.length && parts[i] === best.a && parts[i + 1] === best.b) merged.push(parts[i++] + best.b);
        else merged.push(parts[i]);
      }
      parts = merged;
    }
  };
  return (text) => [...text.matchAll(R50K_TOKEN_SPLIT_REGEX)].flatMap(([word]) => bpe(word));
}

const out = join(work, 'bpe');
const summary = JSON.parse(ok('tokenizer', 'train', '--data', trainText, '--merges', String(MERGES), '--eot',
  '--out', out, '--json'));

test('the summary describes the trained vocabulary and the training text', () => {
  assert.equal(summary.merges, MERGES);
  assert.equal(summary.requested_merges, MERGES);
  assert.equal(summary.vocab_size, 256 + MERGES + 1);
  assert.equal(summary.eot_id, 256 + MERGES);
  assert.equal(summary.bytes, Buffer.byteLength(corpus.train));
  assert.ok(summary.distinct_words > 10_000 && summary.distinct_words < summary.words, JSON.stringify(summary));
  assert.ok(summary.bytes_per_token > 3 && summary.bytes_per_token < 5, `bytes per token ${summary.bytes_per_token}`);
  assert.equal(summary.bytes_per_token, summary.bytes / summary.tokens);
  assert.ok(summary.merge_seconds > 0 && summary.merge_seconds <= summary.seconds, JSON.stringify(summary));
  // The tokens it reports are the ones `tokenize` produces for the same text.
  const ids = JSON.parse(ok('tokenize', '--tokenizer', out, '--text-file', trainText, '--json'));
  assert.equal(ids.length, summary.tokens);
  assert.deepEqual(readdirSync(out).sort(), ['merges.txt', 'vocab.json'], 'no temporary is left behind');
});

test('the files are GPT-2 format: vocab.json ids 0..V-1, merges.txt a #version line and one merge per rank', () => {
  const vocab = JSON.parse(readFileSync(join(out, 'vocab.json'), 'utf8'));
  assert.deepEqual(Object.values(vocab).sort((x, y) => x - y), [...Array(summary.vocab_size).keys()]);
  assert.equal(vocab[EOT], summary.eot_id);
  assert.equal(vocab['Ġ'], 220, "the space byte has GPT-2's id");
  const lines = readFileSync(join(out, 'merges.txt'), 'utf8').split('\n');
  assert.equal(lines[0], '#version: 0.2');
  assert.equal(lines.at(-1), '');
  const merges = lines.slice(1, -1);
  assert.equal(merges.length, MERGES);
  // Merge r makes id 256 + r: the token its two parts spell.
  merges.forEach((line, r) => {
    const [left, right] = line.split(' ');
    assert.equal(vocab[left + right], 256 + r, `merge ${r}: ${line}`);
  });
});

test("held-out Brown documents encode as gpt-tokenizer and encoder.py's algorithm encode them", () => {
  const ours = JSON.parse(ok('tokenize', '--tokenizer', out, '--text-file', heldOutFile, '--json'));
  // Each document on its own, with the eot id between them: gpt-tokenizer 4.0's own search for special tokens
  // (a sticky regex) finds one only at the start of the text.
  const encoder = referenceEncoder(out);
  const reference = corpus.documents.val.flatMap((doc, i) => [...(i ? [summary.eot_id] : []), ...encoder.encode(doc)]);
  assert.equal(ours.length, reference.length);
  const first = ours.findIndex((id, i) => id !== reference[i]);
  assert.equal(first, -1, `first difference at token ${first}: ${ours.slice(first, first + 5)} vs ` +
    `${reference.slice(first, first + 5)}`);
  assert.equal(ours.filter((id) => id === summary.eot_id).length, corpus.documents.val.length - 1);
  const byMerges = mergesEncoder(out);
  const fromMerges = corpus.documents.val.flatMap((doc, i) => [...(i ? [summary.eot_id] : []), ...byMerges(doc)]);
  assert.deepEqual(ours, fromMerges, "encoder.py's algorithm on merges.txt gives the same ids");
  // Subword tokens compress the held-out text well beyond one byte per token.
  assert.ok(Buffer.byteLength(heldOut) / ours.length > 3);
});

test('several --data files, the text summary and --min-frequency', () => {
  const a = writeText(join(work, 'a.txt'), 'the cat sat on the mat\n');
  const b = writeText(join(work, 'b.txt'), 'the dog sat on the log\n');
  const dir = join(work, 'small');
  const text = ok('tokenizer', 'train', '--data', a, '--data', b, '--merges', '50', '--out', dir);
  assert.match(text,
    /learned \d+ merges of 50 \(no other pair occurs 2 times or more\) from 46 bytes \(14 words, 9 distinct\)/);
  assert.match(text, /merge 1: a \+ t {2}\(4 times\)/);
  assert.match(text, /wrote .*small\/vocab\.json and .*small\/merges\.txt/);
  const json = JSON.parse(ok('tokenizer', 'train', '--data', a, '--data', b, '--merges', '50', '--min-frequency', '1',
    '--out', dir, '--json'));
  assert.equal(json.eot_id, null);
  assert.equal(json.tokens, 14, 'with every pair merged, each word is one token');
  assert.deepEqual(JSON.parse(ok('tokenize', '--tokenizer', dir, '--text', 'the cat', '--json')).length, 2);
});

test('bad arguments fail before anything is written, naming the problem', () => {
  const none = join(work, 'never');
  fails(['tokenizer', 'train', '--merges', '10', '--out', none], /--data is required/);
  fails(['tokenizer', 'train', '--data', trainText, '--merges', '0', '--out', none],
    /--merges: must be an integer in \[1, 262144\], got '0'/);
  fails(['tokenizer', 'train', '--data', trainText, '--merges', '1000000', '--out', none], /got '1000000'/);
  fails(['tokenizer', 'train', '--data', trainText, '--merges', '10', '--min-frequency', '0', '--out', none],
    /--min-frequency/);
  fails(['tokenizer', 'train', '--data', join(work, 'missing.txt'), '--merges', '10', '--out', none],
    /cannot open '[^']*missing\.txt'/);
  fails(['tokenizer', 'train', '--data', writeText(join(work, 'empty.txt'), ''), '--merges', '10', '--out', none],
    /the training text is empty/);
  fails(['tokenizer'], /A subcommand is required/);
  assert.ok(!existsSync(none), 'no output directory was created');
});

test('an unwritable --out fails before training; a failed write leaves neither file', () => {
  fails(['tokenizer', 'train', '--data', trainText, '--merges', '10', '--out', join(trainText, 'out')],
    /cannot write to --out '[^']*train\.txt\/out': '[^']*train\.txt' is not a directory/);
  const dir = join(work, 'full-disk');
  const r = runWith({ env: { BLOCKSCOPE_TEST_FULL_DISK: 'merges.txt' } }, 'tokenizer', 'train', '--data', trainText,
    '--merges', '10', '--out', dir);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /cannot write '[^']*merges\.txt': No space left on device/);
  assert.deepEqual(readdirSync(dir), [], 'vocab.json is not committed without merges.txt, and no temporary stays');
});

test('train --tokenizer DIR --out OUT: OUT carries the tokenizer it was trained with, so generate finds it', () => {
  const text = writeText(join(work, 'pets.txt'), 'the cat sat on the mat. the dog sat on the log. '.repeat(40));
  const small = join(work, 'pets-bpe');
  ok('tokenizer', 'train', '--data', text, '--merges', '20', '--out', small);
  const model = join(work, 'bpe-model');
  const vocabSize = Object.keys(JSON.parse(readFileSync(join(small, 'vocab.json'), 'utf8'))).length;
  ok('init', '--vocab-size', String(vocabSize), '--context-length', '16', '--emb-dim', '8', '--n-heads', '2', '--n-layers', '1',
    '--out', model);
  const trained = join(work, 'bpe-trained');
  ok('train', '--model', model, '--tokenizer', small, '--data', text, '--steps', '2', '--batch-size', '2',
    '--out', trained);
  for (const name of ['vocab.json', 'merges.txt']) {
    assert.equal(readFileSync(join(trained, name), 'utf8'), readFileSync(join(small, name), 'utf8'), name);
  }
  const generated = JSON.parse(ok('generate', '--model', trained, '--prompt', 'the cat', '--max-new-tokens', '3',
    '--temperature', '0', '--json'));
  assert.equal(generated.prompt_tokens.length, 2, "the prompt is read with the model's own 2-token encoding");
});
