// Measuring a sorting model through the `blockscope` CLI: exact-match accuracy of greedy decoding on held-out
// inputs (optionally with heads ablated), and what each head attends to at the output positions, from the
// attention weights the forward pass records (`forward --json --attention`).
import { blockscope, lastJson } from '../lib/recipe.mjs';
import { example, vocabulary } from './task.mjs';

/**
 * Greedy decoding (`generate --temperature 0`) of n outputs after `x1 … xn SEP`, for each input:
 * {exact, correct_tokens, tokens, examples, failures (up to 5: {input, expected, got})}. exact is the fraction of
 * inputs whose whole output is the sorted input. `ablate` ("1.0,0.1") zeroes those heads' outputs.
 */
export function greedyAccuracy(model, inputs, task, { ablate } = {}) {
  const n = task.n;
  let exact = 0;
  let correct = 0;
  const failures = [];
  for (const xs of inputs) {
    const ids = example(xs, task);
    const expected = ids.slice(n + 1);
    const args = ['generate', '--model', model, '--prompt-ids', ids.slice(0, n + 1).join(','), '--max-new-tokens', String(n),
      '--temperature', '0', '--no-stop', '--json'];
    if (ablate) args.push('--ablate', ablate);
    const got = lastJson(blockscope(args)).tokens;
    const right = got.filter((t, i) => t === expected[i]).length;
    correct += right;
    if (right === n) exact++;
    else if (failures.length < 5) failures.push({ input: xs, expected, got });
  }
  return { exact: exact / inputs.length, correct_tokens: correct, tokens: n * inputs.length, examples: inputs.length, failures };
}

/**
 * Where each head's attention goes when the model writes an output (query positions n … 2n-1: SEP and the outputs
 * written so far, each predicting the next output), averaged over `inputs` (teacher-forced on the correct outputs,
 * which are the model's own greedy outputs when it is exact). Per head "block.head":
 *   next     mass on input positions holding the number about to be written (all copies of it),
 *   current  mass on input positions holding the number just written (at SEP: none),
 *   larger / smaller   mass on inputs greater / less than the number about to be written,
 *   sep      mass on SEP,   outputs  mass on the outputs written so far,   self  mass on the query's own position,
 *   uniform_next   what `next` would be if the head spread its weight evenly over the inputs (the baseline).
 */
export function headRoles(model, inputs, task) {
  const { n } = task;
  const sums = {};
  let queries = 0;
  for (const xs of inputs) {
    const ids = example(xs, task);
    const { attention } = JSON.parse(blockscope(['forward', '--model', model, '--tokens', ids.slice(0, 2 * n).join(','),
      '--json', '--attention']));
    for (let q = n; q < 2 * n; q++) {
      const next = ids[q + 1];
      const current = q === n ? -1 : ids[q];
      attention.forEach((heads, l) => heads.forEach((rows, h) => {
        const s = (sums[`${l}.${h}`] ??= { next: 0, current: 0, larger: 0, smaller: 0, sep: 0, outputs: 0, self: 0, uniform_next: 0 });
        const w = rows[q];
        for (let k = 0; k < n; k++) {
          if (xs[k] === next) s.next += w[k];
          if (xs[k] === current) s.current += w[k];
          if (xs[k] > next) s.larger += w[k];
          if (xs[k] < next) s.smaller += w[k];
        }
        s.sep += w[n];
        for (let k = n + 1; k <= q; k++) s.outputs += w[k];
        s.self += w[q];
        s.uniform_next += xs.filter((x) => x === next).length / n;
      }));
      queries++;
    }
  }
  return Object.fromEntries(Object.entries(sums).map(([head, s]) =>
    [head, Object.fromEntries(Object.entries(s).map(([k, v]) => [k, v / queries]))]));
}

/**
 * A plain-words role for a head from its headRoles() figures: the largest share of its attention, named for a
 * learner. The thresholds are a reading aid; the card prints the figures beside the name.
 */
export function roleName(r) {
  if (r.next >= 0.5) return 'finds the next number to write: the smallest input not yet written';
  if (r.sep >= 0.5) return 'looks at SEP (a resting place when nothing else matters)';
  if (r.outputs >= 0.5) return 'reads the outputs written so far';
  if (r.current >= 0.4) return 'finds the number just written among the inputs';
  if (r.next >= 2 * r.uniform_next) return 'leans towards the next number to write (spread over its neighbours)';
  if (r.larger >= 0.5) return 'looks at the inputs still to come (larger than the next output)';
  if (r.smaller >= 0.5) return 'looks at the inputs already written (smaller than the next output)';
  return 'spreads over all the inputs (a summary of which numbers are there)';
}

/** The vocabulary as the card lists it. */
export const vocabularyText = (task) => {
  const v = vocabulary(task);
  return `${v.size} ids: 0 … ${task.alphabet - 1} are the numbers themselves, ${v.sep} is SEP`;
};
