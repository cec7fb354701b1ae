// Measuring a sorting model through the `blockscope` CLI: exact-match accuracy of greedy decoding on held-out
// inputs (optionally with heads ablated), and what each head attends to at the output positions, from the
// attention weights the forward pass records (`forward --json --attention`).
import { blockscope, lastJson } from '../lib/recipe.mjs';
import { example } from './task.mjs';

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

const strongest = (w) => w.reduce((best, v, k) => (v > w[best] ? k : best), 0);

/**
 * Where each head's attention goes when the model writes an output (query positions n … 2n-1: SEP and the outputs
 * written so far, each predicting the next output), averaged over `inputs` (teacher-forced on the correct outputs,
 * which are the model's own greedy outputs when it is exact). Per head "block.head":
 *   next     mass on input positions holding the number about to be written (all copies of it),
 *   current  mass on input positions holding the number just written (at SEP: none),
 *   larger / smaller   mass on inputs greater / less than the number about to be written,
 *   sep      mass on SEP,   outputs  mass on the outputs written so far,   self  mass on the query's own position,
 *   uniform_next   what `next` would be if the head spread its weight evenly over the inputs (the baseline),
 *   top_next, top_current, top_sep, top_outputs   how often its strongest arrow (largest weight) points at an input
 *            holding the next number, at one holding the number just written, at SEP, at an output;
 *   top_weight     the mean of that largest weight.
 */
export function headRoles(model, inputs, task) {
  return inspectOutputs(model, inputs, task).heads;
}

/**
 * One teacher-forced forward pass per input: {heads: headRoles' figures, output_loss: the mean cross-entropy (nats)
 * of the n outputs given the input, SEP and the correct outputs before them — the loss of the output half alone}.
 */
export function inspectOutputs(model, inputs, task) {
  const { n } = task;
  const sums = {};
  let queries = 0;
  let loss = 0;
  for (const xs of inputs) {
    const ids = example(xs, task);
    const { attention, logits } = JSON.parse(blockscope(['forward', '--model', model, '--tokens',
      ids.slice(0, 2 * n).join(','), '--json', '--attention']));
    for (let q = n; q < 2 * n; q++) {
      const row = logits[q];
      const max = Math.max(...row);
      loss += max + Math.log(row.reduce((a, v) => a + Math.exp(v - max), 0)) - row[ids[q + 1]];
      const next = ids[q + 1];
      const current = q === n ? -1 : ids[q];
      attention.forEach((heads, l) => heads.forEach((rows, h) => {
        const s = (sums[`${l}.${h}`] ??= { next: 0, current: 0, larger: 0, smaller: 0, sep: 0, outputs: 0, self: 0,
          uniform_next: 0, top_next: 0, top_current: 0, top_sep: 0, top_outputs: 0, top_weight: 0 });
        const w = rows[q];
        const top = strongest(w.slice(0, q + 1));
        if (top < n && xs[top] === next) s.top_next++;
        else if (top < n && xs[top] === current) s.top_current++;
        else if (top === n) s.top_sep++;
        else if (top > n) s.top_outputs++;
        s.top_weight += w[top];
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
  const heads = Object.fromEntries(Object.entries(sums).map(([head, s]) =>
    [head, Object.fromEntries(Object.entries(s).map(([k, v]) => [k, v / queries]))]));
  return { heads, output_loss: loss / queries };
}

/**
 * A plain-words role for a head from its headRoles() figures: where its strongest arrow usually points, else where
 * most of its weight goes, named for a learner. The thresholds are a reading aid; the card prints the figures.
 */
export function roleName(r) {
  if (r.top_next >= 0.5) return 'finds the next number to write: the smallest input not yet written';
  if (r.top_current >= 0.5) return 'finds the number just written among the inputs (and its repeats)';
  if (r.top_sep >= 0.5) return 'rests on SEP (a place to look when nothing else is needed)';
  if (r.top_outputs >= 0.5) return 'reads the outputs written so far';
  if (r.next >= 2 * r.uniform_next) return 'leans towards the next number to write, spread over its neighbours';
  if (r.larger >= 0.5) return 'looks at the inputs still to come (larger than the next output)';
  if (r.smaller >= 0.5) return 'looks at the inputs already written (smaller than the next output)';
  return 'spreads over the inputs (a summary of which numbers are there)';
}
