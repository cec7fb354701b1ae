// Writes tests/golden/models/bpe_tiny/ (a tiny random GPT with its own byte-level BPE: config.json,
// model.safetensors from `blockscope init`, and a hand-written GPT-2-format vocab.json + merges.txt) and
// tests/golden/models/bpe_tiny.json (the text, its BPE ids and tokens worked out by hand below, and the CLI's
// `blockscope forward` logits on those ids), for tests/browser/gpt-own-tokenizer.test.mjs.
// Run from the repo root after a native build: node tests/reference/make_bpe_model.mjs
// (BLOCKSCOPE_CLI=path/to/blockscope to use another build). It fails unless the CLI's tokenizer, reading the files
// it writes, gives exactly the hand-worked ids.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';

const CLI = process.env.BLOCKSCOPE_CLI ?? 'build/release/cli/blockscope';
const DIR = 'tests/golden/models/bpe_tiny';
const GOLDEN = 'tests/golden/models/bpe_tiny.json';

/** GPT-2's bytes_to_unicode (OpenAI encoder.py): each byte's printable stand-in in vocab.json and merges.txt. */
function bytesToUnicode() {
  const keep = [];
  for (let b = 0x21; b <= 0x7e; b++) keep.push(b);
  for (let b = 0xa1; b <= 0xac; b++) keep.push(b);
  for (let b = 0xae; b <= 0xff; b++) keep.push(b);
  const map = new Map(keep.map((b) => [b, String.fromCodePoint(b)]));
  let n = 0;
  for (let b = 0; b < 256; b++) if (!map.has(b)) map.set(b, String.fromCodePoint(256 + n++));
  return map;
}

// The vocabulary: byte b is id b; then one id per merge, in rank order. "Ġ" stands for the space byte.
const MERGES = [['t', 'h'], ['th', 'e'], ['Ġ', 'the'], ['a', 't'], ['Ġ', 'c'], ['Ġc', 'at']];
const TEXT = 'the cat sat on the mat';
// By hand: GPT-2's pre-tokenizer cuts "the", " cat", " sat", " on", " the", " mat"; BPE applies the lowest-ranked
// merge present until none is: "the" -> t h e -> th e -> the (257); " cat" -> Ġ c a t -> Ġ c at (rank 3) -> Ġc at
// (rank 4) -> Ġcat (261); " sat" -> Ġ s at; " on" -> Ġ o n; " the" -> Ġ the -> Ġthe (258); " mat" -> Ġ m at.
const IDS = [257, 261, 32, 115, 259, 32, 111, 110, 258, 32, 109, 259];
const TOKENS = ['the', ' cat', ' ', 's', 'at', ' ', 'o', 'n', ' the', ' ', 'm', 'at'];
const CONFIG = { vocab_size: 256 + MERGES.length, context_length: 32, emb_dim: 16, n_heads: 2, n_layers: 2,
  drop_rate: 0, qkv_bias: false };

const u = bytesToUnicode();
const vocab = {};
for (let b = 0; b < 256; b++) vocab[u.get(b)] = b;
MERGES.forEach(([a, b], i) => { vocab[a + b] = 256 + i; });

rmSync(DIR, { recursive: true, force: true });
mkdirSync('tests/golden/models/tmp-bpe-config', { recursive: true });
const configPath = 'tests/golden/models/tmp-bpe-config/config.json';
writeFileSync(configPath, `${JSON.stringify(CONFIG)}\n`);
execFileSync(CLI, ['init', '--config', configPath, '--seed', '7', '--out', DIR]);
rmSync('tests/golden/models/tmp-bpe-config', { recursive: true });
writeFileSync(`${DIR}/vocab.json`, `${JSON.stringify(vocab)}\n`);
writeFileSync(`${DIR}/merges.txt`, `#version: 0.2\n${MERGES.map((m) => m.join(' ')).join('\n')}\n`);

const cliIds = JSON.parse(execFileSync(CLI, ['tokenize', '--tokenizer', DIR, '--text', TEXT, '--json'], { encoding: 'utf8' }));
assert.deepEqual(cliIds, IDS, 'the CLI reads the files as worked out by hand');
const { logits } = JSON.parse(execFileSync(CLI, ['forward', '--model', DIR, '--tokens', IDS.join(','), '--json'],
  { encoding: 'utf8', maxBuffer: 1 << 26 }));
writeFileSync(GOLDEN, `${JSON.stringify({ text: TEXT, ids: IDS, tokens: TOKENS, lastLogits: logits.at(-1) }, null, 1)}\n`);
console.log(`wrote ${DIR}/ and ${GOLDEN}: ${IDS.length} tokens, vocabulary ${CONFIG.vocab_size}`);
