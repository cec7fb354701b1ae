// web/widgets/kit/compare.js (which computation reproduces a learner's numbers) and pasted-tensor.js's dict reader,
// in Node: the verdict on PyTorch's own prints of each LayerNorm mistake (tests/golden/learner-prints.json) against
// the mistakes' values computed by PyTorch in the same file's .tolist() prints (so no core is needed here: the
// browser tests do the same against the core); print rounding is allowed and no more; NaN matches NaN only; shapes
// must agree (leading 1s aside); dicts of steps read in order with bad entries named.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { agreement, judge, sameShape } from '../../web/widgets/kit/compare.js';
import { parsePasted, parsePastedDict, PasteError } from '../../web/widgets/kit/pasted-tensor.js';

const PRINTS = JSON.parse(readFileSync(new URL('../golden/learner-prints.json', import.meta.url), 'utf8'));

test('each LayerNorm mistake\'s 4-decimal print is judged to be that mistake, correct first', () => {
  const { prints } = PRINTS.layernorm;
  const ids = ['correct', 'wrong-axis', 'unbiased-variance', 'eps-outside-sqrt', 'no-eps', 'no-affine'];
  // The candidates: PyTorch's full-precision values of each mistake (its .tolist() print).
  const candidates = ids.map((id) => ({ id, values: Float64Array.from(parsePasted(prints[id].tolist).values) }));
  for (const id of ids) {
    const v = judge(parsePasted(prints[id].repr), [3, 4], candidates, 1e-5);
    assert.equal(v.match, id, `${id}: ${JSON.stringify(v.results.map((r) => [r.id, r.maxDiff]))}`);
    assert.ok(v.maxDiff <= 5e-5, `${id}: ${v.maxDiff}`);
  }
  assert.equal(judge(parsePasted(prints.noise.repr), [3, 4], candidates, 1e-5).match, 'unknown');
  const wrong = judge(parsePasted(prints['wrong-shape'].repr), [3, 4], candidates, 1e-5);
  assert.equal(wrong.match, 'unknown');
  assert.match(wrong.shapeError, /shape \(2, 4\) but the widget’s result has shape \(3, 4\)/);
});

test('print rounding is allowed, one unit more is not; NaN agrees only with NaN', () => {
  const ref = [1.23456, -0.5];
  assert.ok(agreement(parsePasted('tensor([ 1.2346, -0.5000])'), ref, 0).within); // within half a unit of 1e-4
  assert.ok(!agreement(parsePasted('tensor([ 1.2347, -0.5000])'), ref, 0).within);
  assert.ok(agreement(parsePasted('[1.2346, -0.5]'), ref, 5e-5).within);          // a list is exact: the tolerance decides
  assert.ok(!agreement(parsePasted('[1.2346, -0.5]'), ref, 1e-5).within);
  assert.ok(agreement(parsePasted('tensor([nan, 1.])'), [NaN, 1], 0).within);
  assert.ok(!agreement(parsePasted('tensor([nan, 1.])'), [0, 1], 1).within);
  assert.ok(!agreement(parsePasted('tensor([0., 1.])'), [NaN, 1], 1).within);
});

test('several mistakes that give the same numbers are all reported, the first (correct first) as the match', () => {
  const same = Float64Array.from([0.5, -0.5]);
  const v = judge(parsePasted('[0.5, -0.5]'), [2], [{ id: 'correct', values: same }, { id: 'no-affine', values: same },
    { id: 'no-eps', values: Float64Array.from([0.6, -0.6]) }], 1e-5);
  assert.deepEqual([v.match, v.alike], ['correct', ['no-affine']]);
});

test('shapes agree up to leading 1s', () => {
  assert.ok(sameShape([1, 4], [4]));
  assert.ok(sameShape([1, 1, 2, 3], [2, 3]));
  assert.ok(!sameShape([2, 3], [3, 2]));
  assert.ok(!sameShape([6], [2, 3]));
});

test('a dict of steps reads in order; a bad entry is named; non-dicts are refused', () => {
  const d = parsePastedDict("{'norm1': [[1.0, 2.0]], 'att': tensor([[ 0.5000, -1.2500]], grad_fn=<ViewBackward0>, device='cpu'), \"add1\": [3, 4]}");
  assert.deepEqual(Object.keys(d), ['norm1', 'att', 'add1']);
  assert.deepEqual(Array.from(d.att.values), [0.5, -1.25]);
  assert.deepEqual(d.att.shape, [1, 2]);
  assert.throws(() => parsePastedDict("{'norm1': [[1.0, x]]}"), (e) => e instanceof PasteError && /^'norm1': "x\]\]"/.test(e.message));
  assert.throws(() => parsePastedDict("{'norm1': [1.0, ...]}"), /'norm1': this print is cut short/);
  assert.throws(() => parsePastedDict('[1, 2]'), /expected a dict/);
  assert.throws(() => parsePastedDict("{'norm1': [1]"), /never closed/);
  assert.throws(() => parsePastedDict('{}'), /no 'name': value entries/);
  // The hooks snippet's real print of the lesson's block reads back step by step.
  const steps = parsePastedDict(PRINTS.encoder_block.correct.print);
  assert.deepEqual(Object.keys(steps), ['norm1', 'att', 'add1', 'norm2', 'ff', 'add2']);
  for (const s of Object.values(steps)) assert.deepEqual(s.shape, [2, 5, 8]);
});
