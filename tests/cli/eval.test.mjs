// `blockscope eval` against a cross-entropy computed here from `blockscope forward --json` logits, init's
// config options, generate --prompt-file, and bad input to eval/train/init (non-zero exit, a message naming
// the problem, nothing on stdout).
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { crossEntropy, englishText, fails, initTiny, models, ok, scratch, writeText } from './support.mjs';

const work = scratch('eval');
const CONTEXT = 8;
const tiny = initTiny(join(work, 'tiny'), { context: CONTEXT });
const baseConfig = join(work, 'base.json');
writeFileSync(baseConfig, JSON.stringify({ vocab_size: 50, context_length: 10, emb_dim: 16, n_heads: 4, n_layers: 2 }));

// The documented rule: input windows [0, ctx), [ctx, 2 ctx), ... each predict the next token at every
// position; the last window is shorter; n tokens give n - 1 predictions.
function handLoss(model, ids) {
  let sum = 0;
  for (let s = 0; s < ids.length - 1; s += CONTEXT) {
    const input = ids.slice(s, Math.min(s + CONTEXT, ids.length - 1));
    const targets = ids.slice(s + 1, s + 1 + input.length);
    const { logits } = JSON.parse(ok('forward', '--model', model, '--tokens', input.join(','), '--json'));
    sum += crossEntropy(logits, targets) * targets.length;
  }
  return sum / (ids.length - 1);
}

test('eval equals the cross-entropy of forward logits over non-overlapping context windows', () => {
  // 20 bytes -> windows of 8, 8, 3 predictions; 18 bytes -> 8, 8, 1 (a 2-token last window still counts).
  for (const text of ['Hello, tiny world!!?', 'Hello, tiny world!!?'.slice(0, 18), 'ab']) {
    const path = writeText(join(work, `text-${text.length}.txt`), text);
    const ids = [...Buffer.from(text)];
    const r = JSON.parse(ok('eval', '--model', tiny, '--text', path, '--json'));
    assert.equal(r.tokens, ids.length - 1);
    assert.equal(r.windows, Math.ceil((ids.length - 1) / CONTEXT));
    const expected = handLoss(tiny, ids);
    assert.ok(Math.abs(r.loss - expected) <= 1e-5, `${JSON.stringify(text)}: eval ${r.loss}, by hand ${expected}`);
    assert.ok(Math.abs(r.bits_per_byte - r.loss / Math.LN2) <= 1e-9, 'one byte per token');
  }
});

test('eval prints nats per token and bits per byte; batching windows does not change the loss', () => {
  const path = writeText(join(work, 'english.txt'), englishText().slice(0, 500));
  const textOut = ok('eval', '--model', tiny, '--text', path);
  const loss = Number(textOut.match(/^loss (\S+) nats\/token .* over 499 predicted tokens in 63 windows of up to 8/)[1]);
  const bpb = Number(textOut.match(/bits per byte (\S+) \(tokenizer bytes\)/)[1]);
  assert.ok(Math.abs(bpb - loss / Math.LN2) < 1e-5);
  const one = JSON.parse(ok('eval', '--model', tiny, '--text', path, '--json', '--batch-size', '1')).loss;
  const many = JSON.parse(ok('eval', '--model', tiny, '--text', path, '--json', '--batch-size', '16')).loss;
  assert.ok(Math.abs(one - many) < 1e-6 && Math.abs(one - loss) < 1e-5, `${one} ${many} ${loss}`);
});

test('init applies config options over --config, or builds from the five sizes alone', () => {
  const dir = join(work, 'custom');
  ok('init', '--vocab-size', '100', '--context-length', '12', '--emb-dim', '24', '--n-heads', '3', '--n-layers', '1',
    '--norm', 'post', '--ffn-hidden', '40', '--activation', 'relu', '--drop-rate', '0', '--tie-weights', 'true',
    '--qkv-bias', 'true', '--out', dir);
  const { config } = JSON.parse(ok('info', '--model', dir, '--json'));
  assert.deepEqual(config, { vocab_size: 100, context_length: 12, emb_dim: 24, n_heads: 3, n_layers: 1, drop_rate: 0,
    qkv_bias: true, tie_weights: true, norm: 'post', layer_norm_epsilon: 1e-5, ffn_hidden: 40, activation: 'relu' });

  const over = join(work, 'over');
  ok('init', '--config', baseConfig, '--n-layers', '3', '--activation', 'gelu_erf', '--layout', 'hf', '--out', over);
  const hf = JSON.parse(ok('info', '--model', over, '--json'));
  assert.equal(hf.layout, 'huggingface');
  assert.equal(hf.config.n_layers, 3);
  assert.equal(hf.config.emb_dim, 16);
  assert.equal(hf.config.activation, 'gelu_erf');
});

test('generate --prompt-file reads the prompt from a file', () => {
  const path = writeText(join(work, 'prompt.txt'), 'hi');
  const r = JSON.parse(ok('generate', '--model', tiny, '--prompt-file', path, '--max-new-tokens', '2', '--json'));
  assert.deepEqual(r.prompt_tokens, [104, 105]);
  assert.equal(r.tokens.length, 2);
});

test('bad input exits non-zero with a message naming the problem', () => {
  const text = writeText(join(work, 'train.txt'), englishText());
  const short = writeText(join(work, 'short.txt'), 'tiny!!');
  const one = writeText(join(work, 'one.txt'), 'x');
  const empty = writeText(join(work, 'empty.txt'), '');
  const badIds = writeText(join(work, 'bad.ids'), '1 2 three 4');
  const oddBin = join(work, 'odd.bin');
  writeFileSync(oddBin, Buffer.from([1, 0, 2]));
  const out = join(work, 'never');
  const trainArgs = (...rest) => ['train', '--model', tiny, '--data', text, '--out', out, ...rest];
  const cases = [
    [['eval', '--model', tiny, '--text', join(work, 'missing.txt')], /cannot open '.*missing\.txt': No such file/],
    [['eval', '--model', tiny, '--text', empty], /empty\.txt holds no tokens \(the text is empty\)/],
    [['eval', '--model', tiny, '--text', one], /one\.txt has 1 token; eval needs at least 2/],
    [['eval', '--model', tiny, '--text', badIds], /'three' \(entry 2 of .*bad\.ids\) is not a token id/],
    [['eval', '--model', tiny, '--text', oddBin], /odd\.bin has an odd number of bytes \(3\)/],
    [['eval', '--model', join(models, 'book_tiny'), '--text', text, '--tokenizer', 'bytes'],
      /the tokenizer 'bytes' has 256 token ids but the model's vocabulary has only 60/],
    [trainArgs('--lr', '0'), /learning rate must be a positive number, got 0/],
    [trainArgs('--steps', '0'), /--steps: must be an integer in \[1, 1000000000\], got '0'/],
    [trainArgs('--seq-len', '9'), /seq_len 9 exceeds the model's context_length 8/],
    [trainArgs('--eval-every', '5', '--val-fraction', '0'), /--eval-every 5 needs validation data/],
    [['train', '--model', tiny, '--data', short, '--out', out, '--val-fraction', '0'],
      /--data .*short\.txt \(6 tokens\): the training data has 6 tokens; a sequence length of 8 needs at least 9/],
    [['train', '--model', tiny, '--data', join(work, 'nope.txt'), '--out', out], /cannot open '.*nope\.txt'/],
    [['grad', '--model', tiny, '--tokens', '1,2', '--targets', '1,256', '--out', join(work, 'g.safetensors')],
      /target id 256 at position 1 is outside the vocabulary \[0, 256\)/],
    [['init', '--out', out, '--emb-dim', '8'], /without --config, give all five sizes .* missing: --vocab-size, --context-length, --n-heads, --n-layers/],
    [['init', '--out', out, '--vocab-size', '9', '--context-length', '4', '--emb-dim', '6', '--n-heads', '4', '--n-layers', '1'],
      /emb_dim \(6\) must be divisible by n_heads \(4\)/],
    [['init', '--out', out, '--config', baseConfig, '--activation', 'swish'], /unknown activation 'swish'/],
    [['init', '--out', out, '--config', baseConfig, '--norm', 'post', '--layout', 'hf'],
      /cannot save a post-norm model in the Hugging Face GPT-2 layout/],
    [['init', '--out', out, '--config', baseConfig, '--tie-weights', 'yes'], /--tie-weights must be true or false, got 'yes'/],
  ];
  for (const [args, message] of cases) fails(args, message);
});
