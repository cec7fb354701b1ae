// The sorting task of models/sort: its vocabulary, its examples as token ids, and the seeded training and held-out
// sets (no held-out input ever appears in the training set). Pure data; nothing here runs the model.
//
// An example is `x1 … xn SEP y1 … yn`: n numbers drawn uniformly from 0 … alphabet-1 (repeats allowed), the
// separator, then the same numbers in ascending order. Token id k < alphabet is the number k; id alphabet is SEP.

/** The task's vocabulary: number ids 0 … alphabet-1, then SEP. */
export function vocabulary({ alphabet }) {
  return { size: alphabet + 1, sep: alphabet };
}

/**
 * The vocabulary's symbols in id order — "0" … "alphabet-1", then "SEP" —, what the recipe writes to tokens.json so
 * that the CLI and <gpt-explorer> read and write the model's text as numbers ("9 9 3 1 SEP", the core's
 * SymbolTokenizer).
 */
export function symbols(task) {
  const { size, sep } = vocabulary(task);
  return Array.from({ length: size }, (_, id) => (id === sep ? 'SEP' : String(id)));
}

/** Tokens per example (input, SEP, output). The model's context is one less: it never reads the last output. */
export const exampleLength = ({ n }) => 2 * n + 1;

/**
 * A seeded generator of 32-bit unsigned integers (mulberry32: a 32-bit state, well mixed; plenty for drawing
 * small numbers, and the same sequence in every JS engine).
 */
export function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
}

/** One example's token ids for the input `xs`. */
export function example(xs, task) {
  const { sep } = vocabulary(task);
  return [...xs, sep, ...[...xs].sort((a, b) => a - b)];
}

// A uniform integer in [0, m): alphabet sizes in the recipe are powers of two, so `% m` has no bias there; for
// other m the bias is below m / 2^32.
const below = (next, m) => next() % m;

/** n numbers drawn uniformly from 0 … alphabet-1: the task's inputs, and what held-out inputs are. */
function drawInput(next, { n, alphabet }) {
  return Array.from({ length: n }, () => below(next, alphabet));
}

/**
 * A training input with `mix_repeats`: n numbers drawn from a random subset of k numbers, k uniform in 1 … alphabet.
 * Inputs with many repeats (five 0s among 8 numbers: about 1 in 1,400 uniform draws) are then common in training,
 * so the model learns to count them; the held-out inputs stay uniform draws.
 */
function drawMixed(next, { n, alphabet }) {
  const k = 1 + below(next, alphabet);
  const pool = Array.from({ length: alphabet }, (_, i) => i);
  for (let i = 0; i < k; i++) { // the first k steps of a Fisher-Yates shuffle: a uniform k-subset
    const j = i + below(next, alphabet - i);
    [pool[i], pool[j]] = [pool[j], pool[i]];
  }
  return Array.from({ length: n }, () => pool[below(next, k)]);
}

/**
 * The task's data: `train` and `heldout`, arrays of inputs (arrays of n numbers). Held-out inputs are uniform draws,
 * distinct, drawn from their own stream (seed + 1) and kept only if the training set does not contain them; training
 * inputs are drawn from `seed` (by drawMixed when task.mix_repeats) and may repeat (as a sampler would).
 */
export function makeSplits(task) {
  const { seed, train_examples: nTrain, heldout_examples: nHeld } = task;
  const key = (xs) => xs.join(',');
  const next = mulberry32(seed);
  const draw = task.mix_repeats ? drawMixed : drawInput;
  const train = Array.from({ length: nTrain }, () => draw(next, task));
  const seen = new Set(train.map(key));
  const nextHeld = mulberry32(seed + 1);
  const heldout = [];
  for (let tries = 0; heldout.length < nHeld; tries++) {
    if (tries > 100 * nHeld) throw new Error(`cannot draw ${nHeld} held-out inputs outside the training set`);
    const xs = drawInput(nextHeld, task);
    if (seen.has(key(xs))) continue;
    seen.add(key(xs));
    heldout.push(xs);
  }
  return { train, heldout };
}

/** Inputs as one `.ids` token stream (examples back to back), what `blockscope train --data` reads. */
export const idsFile = (inputs, task) => `${inputs.map((xs) => example(xs, task).join(' ')).join('\n')}\n`;
