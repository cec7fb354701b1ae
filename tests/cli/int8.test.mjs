// `--weights int8` on the command line: forward, generate and eval load the model with int8 matrices; the
// shipped trained model's logits stay close to float32 and its held-out loss barely moves; a bad value is an
// error naming it.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';

import { prepare } from '../../models/brown/prepare-corpus.mjs';
import { fails, ok, root, scratch, writeText } from './support.mjs';

const MODEL = join(root, 'web/models/brown');
const ids = Array.from(new TextEncoder().encode('The jury said that the city')).join(',');

test('forward --weights int8 stays within 0.5 of the float32 logits', () => {
  const f = JSON.parse(ok('forward', '--model', MODEL, '--tokens', ids, '--json')).logits.flat();
  const q = JSON.parse(ok('forward', '--model', MODEL, '--tokens', ids, '--json', '--weights', 'int8')).logits.flat();
  const d = q.reduce((m, x, i) => Math.max(m, Math.abs(x - f[i])), 0);
  assert.ok(d > 0 && d <= 0.5, `max |Δ logits| ${d}`);
});

test('eval --weights int8 moves the held-out loss by less than 0.01 nats', () => {
  const text = writeText(join(scratch('int8-eval'), 'val.txt'), prepare().val.slice(0, 20_000));
  const f = JSON.parse(ok('eval', '--model', MODEL, '--text', text, '--json'));
  const q = JSON.parse(ok('eval', '--model', MODEL, '--text', text, '--json', '--weights', 'int8'));
  assert.equal(q.tokens, f.tokens);
  assert.ok(q.loss !== f.loss && Math.abs(q.loss - f.loss) < 0.01, `loss ${f.loss} -> ${q.loss}`);
});

test('generate --weights int8 runs, and a bad --weights value is named', () => {
  const out = JSON.parse(ok('generate', '--model', MODEL, '--prompt', 'The jury', '--temperature', '0',
    '--max-new-tokens', '20', '--json', '--weights', 'int8'));
  assert.equal(out.tokens.length, 20);
  fails(['forward', '--model', MODEL, '--tokens', '1,2', '--weights', 'int4'], /unknown weight format 'int4': expected 'f32' or 'int8'/);
});
