// compare.js — which computation reproduces a learner's numbers: the pasted values (pasted-tensor.js) against the
// core's results for the correct computation and each mistake. A value agrees when it is within the stated
// tolerance plus half a unit of the digit it was printed to (a 4-decimal print cannot say more) plus float32
// rounding of the reference; NaN agrees with NaN (a mistake such as no-eps on a constant row prints nan).
// Pure functions: no DOM, they run in Node (tests/web/compare.test.mjs).

const F32_REL = 2 ** -20; // a few float32 ulps: the learner's float32 code and the core round differently

/** The shapes agree when they hold the same numbers in the same order, leading 1s aside ((1, 4) vs (4)). */
export function sameShape(a, b) {
  const strip = (s) => { const t = [...s]; while (t.length > 1 && t[0] === 1) t.shift(); return t; };
  const x = strip(a);
  const y = strip(b);
  return x.length === y.length && x.every((d, i) => d === y[i]);
}

/** The largest difference between the pasted values and `ref`, and whether every value agrees. */
export function agreement(pasted, ref, tolerance) {
  let maxDiff = 0;
  let within = true;
  for (let i = 0; i < ref.length; i++) {
    const p = pasted.values[i];
    const r = ref[i];
    if (Number.isNaN(p) || Number.isNaN(r)) {
      if (!(Number.isNaN(p) && Number.isNaN(r))) { maxDiff = Infinity; within = false; }
      continue;
    }
    const d = p === r ? 0 : Math.abs(p - r);
    if (d > maxDiff) maxDiff = d;
    if (!(d <= tolerance + (pasted.halfUnits?.[i] ?? 0) + F32_REL * Math.abs(r))) within = false;
  }
  return { maxDiff, within };
}

/**
 * The verdict on a paste: `candidates` are [{id, values}] with 'correct' first (the core's order).
 * Returns {match: 'correct' | a mistake id | 'unknown', maxDiff (against the match, or against the correct result
 * when nothing matches), alike: the other ids that reproduce the numbers as well (indistinguishable at these inputs),
 * results: [{id, maxDiff, within}]} — or {match: 'unknown', shapeError, shapes: {got, want}} when the paste has the
 * wrong shape (shapeError in English; a widget says it in its language from `shapes`: kit.check.shape).
 */
export function judge(pasted, shape, candidates, tolerance) {
  if (!sameShape(pasted.shape, shape)) {
    return { match: 'unknown', maxDiff: null, alike: [], results: [], shapes: { got: [...pasted.shape], want: [...shape] },
      shapeError: `your print has shape (${pasted.shape.join(', ')}) but the widget’s result has shape (${shape.join(', ')})` };
  }
  const results = candidates.map((c) => ({ id: c.id, ...agreement(pasted, c.values, tolerance) }));
  const hits = results.filter((r) => r.within);
  if (hits.length === 0) return { match: 'unknown', maxDiff: results[0].maxDiff, alike: [], results };
  return { match: hits[0].id, maxDiff: hits[0].maxDiff, alike: hits.slice(1).map((r) => r.id), results };
}
