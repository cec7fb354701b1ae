// web/widgets/kit/pasted-tensor.js against what the real PyTorch and NumPy print (tests/golden/pasted-tensors.json,
// made by tests/reference/make_paste_goldens.py): every print reads back to PyTorch's own values within the
// precision it was printed at — and no looser: each value's half-unit is what its digits allow — with the right
// shape; truncated prints and malformed pastes are refused with a message naming the problem.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { parsePasted, PasteError } from '../../web/widgets/kit/pasted-tensor.js';

const golden = JSON.parse(readFileSync(new URL('../golden/pasted-tensors.json', import.meta.url), 'utf8'));
const number = (v) => (v === null ? NaN : v === 'inf' ? Infinity : v === '-inf' ? -Infinity : v);

for (const c of golden.cases) {
  test(`reads ${c.name} (PyTorch ${golden.torch})`, () => {
    const r = parsePasted(c.text);
    assert.equal(r.format, c.format);
    assert.deepEqual(r.shape, c.shape);
    assert.equal(r.values.length, c.values.length);
    c.values.forEach((want, i) => {
      const e = number(want);
      const got = r.values[i];
      if (Number.isNaN(e) || !Number.isFinite(e)) {
        assert.ok(Object.is(got, e), `value ${i}: ${got}, expected ${e}`);
        return;
      }
      // Within half a unit of the last printed digit (plus float64 rounding of the decimal text itself).
      const bound = r.halfUnits[i] * (1 + 1e-9) + Math.abs(e) * 2 ** -52;
      assert.ok(Math.abs(got - e) <= bound, `value ${i}: ${got} vs ${e}, off by ${Math.abs(got - e)} > ${bound}`);
    });
    // The precision is the print's, not looser: PyTorch prints 4 digits, so no value is allowed more than 5e-5
    // of its magnitude (or absolute, in fixed notation); Python's repr is exact.
    for (let i = 0; i < r.values.length; i++) {
      if (!Number.isFinite(r.values[i])) continue;
      const limit = c.format === 'list' ? 0 : c.format === 'torch' ? 5e-5 * Math.max(1, Math.abs(r.values[i])) : 6e-8 * Math.max(1, Math.abs(r.values[i]));
      assert.ok(r.halfUnits[i] <= limit * (1 + 1e-9), `value ${i}: half-unit ${r.halfUnits[i]} is looser than the print`);
    }
  });
}

for (const c of golden.truncated) {
  test(`refuses a truncated print (${c.name}) and says how to print it in full`, () => {
    assert.throws(() => parsePasted(c.text), (e) => e instanceof PasteError && /cut short/.test(e.message) && /tolist\(\)/.test(e.message));
  });
}

test('malformed pastes are refused with a message naming the problem and where', () => {
  const cases = [
    ['', /paste the printed tensor/],
    ['[[1, 2], [3]]', /not all the same size: \[1\] has shape \(1\) but \[0\] has \(2\)/],
    ['[1, 2', /never closed/],
    ['tensor([1., 2.]', /tensor\( is never closed/],
    ['tensor([1., 2.], foo=3)', /unexpected ", foo=3" after the values/],
    ['[1, two]', /"two\]" at line 1, column 5 is not a number/],
    ['[1, 2]\n[3, 4]', /after the values/],
  ];
  for (const [text, message] of cases) assert.throws(() => parsePasted(text), (e) => e instanceof PasteError && message.test(e.message), text);
});
