// The recipe of the sorting model (web/models/sort): draws the task's examples with a seeded generator, lets
// Blockscope's own CLI initialise, train and store the model described in recipe.json, measures its exact-match
// accuracy on held-out inputs (greedy decoding) and what each head does, and writes the model card.
//
//   npm run train:sort                      the full run (a few minutes on one core) -> web/models/sort/
//   node models/sort/train.mjs --out DIR    the same, elsewhere
//   node models/sort/train.mjs --card-only [--out DIR]
//                                           re-measure a trained model and rewrite its card, metrics.json and tokens.json
//   node models/sort/train.mjs --sweep [--out DIR]
//                                           train every size in recipe.json's "sweep" the same way, measure their
//                                           held-out accuracy, and record them in the card ("Sizes tried")
//   node models/sort/train.mjs --tiny --out DIR
//                                           a smoke run of the same pipeline: a few hundred examples, 20 steps
//                                           (seconds; what the tests run so the recipe cannot rot)
//
// Deterministic: the same recipe and `blockscope` build give a byte-identical model.safetensors (training runs on
// one thread, `train.threads` 1, with fixed summation orders).
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { blockscope, CLI, loadRecipe as loadRecipeIn, root, sha256, trainFlags, trainLogged, writeMetrics }
  from '../lib/recipe.mjs';
import { modelCard } from './card.mjs';
import { greedyAccuracy, inspectOutputs } from './evaluate.mjs';
import { exampleLength, idsFile, makeSplits, symbols, vocabulary } from './task.mjs';

const here = dirname(fileURLToPath(import.meta.url));

/** The recipe with the --tiny overrides applied; the model's vocabulary and context follow from the task. */
export function loadRecipe({ tiny = false } = {}) {
  const recipe = loadRecipeIn(here, { tiny });
  recipe.model.vocab_size = vocabulary(recipe.task).size;
  recipe.model.context_length = exampleLength(recipe.task) - 1; // the last output is predicted, never read
  return recipe;
}

// metrics.json keeps about this many steps of the loss curve (and every evaluation): tens of KB, not megabytes.
const CURVE_POINTS = 200;
const thin = (curve, points) => {
  const every = Math.max(1, Math.round(curve.length / points));
  return curve.filter((c, i) => c.step % every === 0 || c.val_loss !== undefined || i === 0);
};

/** Trains recipe.model on the task's training examples (paths from writeTask) into `dir`; {summary, curve}. */
async function trainModel(dir, recipe, paths, log) {
  writeFileSync(join(dir, 'config.json'), JSON.stringify(recipe.model, null, 2));
  blockscope(['init', '--config', join(dir, 'config.json'), '--seed', String(recipe.init_seed), '--out', join(dir, 'init')]);
  // Every window one whole example: windows start at multiples of the example length.
  const train = { ...recipe.train, window_stride: exampleLength(recipe.task) };
  return trainLogged(['train', '--model', join(dir, 'init'), '--data', paths.train, '--val-data', paths.heldout,
    '--out', join(dir, 'trained'), ...trainFlags(train)], train.steps, log);
}

/** The task's training and held-out examples as .ids files in `work`. */
function writeTask(work, recipe) {
  const { train, heldout } = makeSplits(recipe.task);
  const paths = { train: join(work, 'train.ids'), heldout: join(work, 'heldout.ids') };
  writeFileSync(paths.train, idsFile(train, recipe.task));
  writeFileSync(paths.heldout, idsFile(heldout, recipe.task));
  return { heldout, paths };
}

/**
 * Writes out/tokens.json, the model's symbols in id order (task.mjs symbols()): next to the weights it is the
 * model's own tokenizer, so `blockscope generate --prompt "3 1 SEP"` and <gpt-explorer model="sort"> read numbers.
 */
export function writeTokens(out, task) {
  writeFileSync(join(out, 'tokens.json'), `${JSON.stringify(symbols(task))}\n`);
}

/**
 * Measures the model in `out` — greedy exact-match accuracy on the held-out inputs, the same with each head
 * ablated, each head's attention at the output positions, size and hash — and writes out/metrics.json (with the
 * training facts in `run`) and the model card out/README.md. Returns the metrics.
 */
function describe(out, recipe, run, heldout) {
  const info = JSON.parse(blockscope(['info', '--model', out, '--json']));
  const accuracy = greedyAccuracy(out, heldout, recipe.task);
  const { heads: roles, output_loss: outputLoss } = inspectOutputs(out, heldout, recipe.task);
  const heads = Object.entries(roles).map(([head, attention]) => {
    const ablated = greedyAccuracy(out, heldout, recipe.task, { ablate: head });
    return { head, attention, ablated_exact: ablated.exact, ablated_token_accuracy: ablated.correct_tokens / ablated.tokens };
  });
  const weights = join(out, 'model.safetensors');
  const metrics = {
    name: recipe.name,
    task: recipe.task,
    parameters: info.parameters,
    config: recipe.model,
    train: recipe.train,
    init_seed: recipe.init_seed,
    storage: recipe.storage,
    ...run,
    heldout_exact: accuracy.exact,
    heldout_token_accuracy: accuracy.correct_tokens / accuracy.tokens,
    heldout_examples: accuracy.examples,
    heldout_output_loss: outputLoss,
    heldout_failures: accuracy.failures,
    heads,
    file_bytes: statSync(weights).size,
    sha256: sha256(weights),
  };
  writeMetrics(join(out, 'metrics.json'), metrics);
  writeFileSync(join(out, 'README.md'), modelCard(metrics));
  return metrics;
}

/** Runs the whole recipe into `out`; resolves to the metrics it also writes to out/metrics.json. */
export async function runRecipe({ out, tiny = false, log = console.log }) {
  const recipe = loadRecipe({ tiny });
  const work = mkdtempSync(join(tmpdir(), 'blockscope-sort-')); // data and intermediate checkpoints
  try {
    const { task } = recipe;
    log(`1/4 task: sort ${task.n} numbers from 0-${task.alphabet - 1}; ${task.train_examples} training and ` +
      `${task.heldout_examples} held-out examples (seed ${task.seed})`);
    const { heldout, paths } = writeTask(work, recipe);

    log('2/4 init and train');
    const { summary, curve } = await trainModel(work, recipe, paths, log);

    log(`3/4 store as ${recipe.storage.toUpperCase()}`);
    mkdirSync(out, { recursive: true });
    blockscope(['convert', '--model', join(work, 'trained'), '--out', out, '--dtype', recipe.storage]);
    writeTokens(out, task);

    log('4/4 evaluate on the held-out inputs, head by head');
    const old = existsSync(join(out, 'metrics.json')) ? JSON.parse(readFileSync(join(out, 'metrics.json'), 'utf8')) : {};
    const metrics = describe(out, recipe, {
      final_train_loss: summary.loss,
      final_heldout_loss: summary.val_loss,
      train_seconds: summary.seconds,
      train_cpu_seconds: summary.cpu_seconds,
      tokens_per_s: summary.tokens_per_s,
      tokens_seen: summary.tokens,
      threads: summary.threads,
      ...(old.sizes_tried && !tiny ? { sizes_tried: old.sizes_tried } : {}),
      curve: thin(curve, CURVE_POINTS),
    }, heldout);
    log(`held-out exact match ${(100 * metrics.heldout_exact).toFixed(1)} % of ${metrics.heldout_examples}, ` +
      `${metrics.file_bytes.toLocaleString('en-US')} bytes, ${Math.round(summary.seconds)} s -> ${relative(process.cwd(), out) || '.'}`);
    return metrics;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

const RUN_KEYS = ['final_train_loss', 'final_heldout_loss', 'train_seconds', 'train_cpu_seconds', 'tokens_per_s',
  'tokens_seen', 'threads', 'sizes_tried', 'curve'];

/** Re-measures a trained model directory and rewrites its card and tokens.json, keeping the training facts of metrics.json. */
export function redescribe(out, extra = {}) {
  const old = JSON.parse(readFileSync(join(out, 'metrics.json'), 'utf8'));
  const recipe = loadRecipe();
  const run = Object.fromEntries(RUN_KEYS.filter((k) => k in old).map((k) => [k, old[k]]));
  writeTokens(out, recipe.task);
  return describe(out, recipe, { ...run, ...extra }, makeSplits(recipe.task).heldout);
}

/**
 * Trains each entry of recipe.sweep ({model, task}: overrides of the recipe's) as the recipe would, on its own
 * task split, and records the held-out accuracy (and the first wrong outputs) in out's card.
 */
export async function sweep({ out, log = console.log }) {
  const recipe = loadRecipe();
  const work = mkdtempSync(join(tmpdir(), 'blockscope-sort-sweep-'));
  try {
    const sizes = [];
    for (const [i, entry] of recipe.sweep.entries()) {
      const variant = { ...recipe, model: { ...recipe.model, ...entry.model }, task: { ...recipe.task, ...entry.task } };
      log(`run ${i + 1}/${recipe.sweep.length}: ${JSON.stringify(entry)}`);
      const dir = join(work, `run${i}`);
      mkdirSync(dir);
      const { heldout, paths } = writeTask(dir, variant);
      const { summary } = await trainModel(dir, variant, paths, () => {});
      const info = JSON.parse(blockscope(['info', '--model', join(dir, 'trained'), '--json']));
      const acc = greedyAccuracy(join(dir, 'trained'), heldout, variant.task);
      sizes.push({ ...variant.model, mix_repeats: Boolean(variant.task.mix_repeats), parameters: info.parameters,
        steps: recipe.train.steps, train_seconds: summary.seconds, train_cpu_seconds: summary.cpu_seconds,
        heldout_exact: acc.exact, heldout_token_accuracy: acc.correct_tokens / acc.tokens, failures: acc.failures });
      log(`    ${(100 * acc.exact).toFixed(1)} % exact, ${Math.round(summary.cpu_seconds)} s of processor time`);
    }
    return redescribe(out, { sizes_tried: sizes });
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { out: { type: 'string' }, tiny: { type: 'boolean', default: false },
    'card-only': { type: 'boolean', default: false }, sweep: { type: 'boolean', default: false } } });
  const out = resolve(values.out ?? join(root, 'web/models/sort'));
  if (!existsSync(CLI)) throw new Error(`no blockscope binary at ${CLI}: build it with bash scripts/build.sh native`);
  if (values['card-only']) redescribe(out); // e.g. after editing card.mjs: no retraining
  else if (values.sweep) await sweep({ out });
  else await runRecipe({ out, tiny: values.tiny });
}
