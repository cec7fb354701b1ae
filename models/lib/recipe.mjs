// What every model recipe under models/ shares: running the `blockscope` CLI, streaming `train --json`,
// turning recipe.json's training options into flags, the --tiny overrides, and writing metrics.json.
// The recipes themselves (models/brown, models/sort) say what to train and how to measure it.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = resolve(fileURLToPath(new URL('../..', import.meta.url)));
export const CLI = process.env.BLOCKSCOPE_CLI ?? join(root, 'build/release/cli/blockscope');

/** Runs the blockscope CLI; throws with its stderr on failure. */
export function blockscope(args) {
  const r = spawnSync(CLI, args, { encoding: 'utf8', maxBuffer: 1 << 30 });
  if (r.error) throw new Error(`cannot run ${CLI}: ${r.error.message} (build it with: bash scripts/build.sh native)`);
  if (r.status !== 0) throw new Error(`blockscope ${args.join(' ')} failed (exit ${r.status}):\n${r.stderr ?? ''}`);
  return r.stdout;
}
export const lastJson = (stdout) => JSON.parse(stdout.trim().split('\n').at(-1));

/**
 * `blockscope train ... --json`, reading its JSON lines as they come: onStep(line) for each step; resolves to
 * all the lines (the final summary last). stderr passes through.
 */
export function trainStreaming(args, onStep) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(CLI, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let buffered = '';
    const lines = [];
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk) => {
      buffered += chunk;
      let nl;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        const line = JSON.parse(buffered.slice(0, nl));
        buffered = buffered.slice(nl + 1);
        lines.push(line);
        if (!line.done) onStep(line);
      }
    });
    child.on('error', (err) => reject(new Error(`cannot run ${CLI}: ${err.message}`)));
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`blockscope ${args.join(' ')} failed (exit ${code})`));
      else resolvePromise(lines);
    });
  });
}

/**
 * Trains with progress lines about 20 times per run: resolves to {summary, curve} (curve: one entry per step,
 * {step, loss, val_loss, lr, grad_norm}). Throws unless the run completed.
 */
export async function trainLogged(args, steps, log) {
  const t0 = Date.now();
  const every = Math.max(1, Math.round(steps / 20));
  let lastVal = NaN;
  const lines = await trainStreaming([...args, '--json'], (l) => {
    if (l.val_loss !== undefined) lastVal = l.val_loss;
    if (l.step % every !== 0 && l.step !== steps) return;
    const s = (Date.now() - t0) / 1000;
    const eta = (s / l.step) * (steps - l.step);
    log(`    step ${l.step}/${steps}  loss ${l.loss.toFixed(4)}  val ${Number.isNaN(lastVal) ? '-' : lastVal.toFixed(4)}  ` +
      `${Math.round(l.tokens_per_s).toLocaleString('en-US')} tokens/s  ${Math.round(s)} s, ETA ${Math.round(eta)} s`);
  });
  const summary = lines.at(-1);
  if (summary.stop !== 'completed') throw new Error(`training stopped: ${summary.stop}`);
  const curve = lines.filter((l) => !l.done).map(({ step, loss, val_loss, lr, grad_norm }) => ({ step, loss, val_loss, lr, grad_norm }));
  return { summary, curve };
}

/** `dir`/`file` (default recipe.json) with its "tiny" overrides applied when `tiny` (the smoke run's sizes). */
export function loadRecipe(dir, { tiny = false, file = 'recipe.json' } = {}) {
  const recipe = JSON.parse(readFileSync(join(dir, file), 'utf8'));
  if (tiny) {
    for (const [part, overrides] of Object.entries(recipe.tiny)) Object.assign(recipe[part], overrides);
  }
  delete recipe.tiny;
  return recipe;
}

/** recipe.json's "train" object as `blockscope train` flags; an unknown key is an error naming it. */
export function trainFlags(t) {
  const flag = { steps: '--steps', batch_size: '--batch-size', grad_accum: '--grad-accum', lr: '--lr', min_lr: '--min-lr',
    warmup: '--warmup', weight_decay: '--weight-decay', clip: '--clip', eval_batches: '--eval-batches',
    eval_every: '--eval-every', seed: '--seed', threads: '--threads', window_stride: '--window-stride' };
  return Object.entries(t).flatMap(([k, v]) => {
    if (!(k in flag)) throw new Error(`recipe.json: unknown training option '${k}'`);
    return [flag[k], String(v)];
  });
}

export const sha256 = (path) => createHash('sha256').update(readFileSync(path)).digest('hex');

/**
 * Writes `metrics` to `path` as readable JSON with its `curve` last, one step per line at 6 significant digits
 * (a tenth of the size of the plain dump).
 */
export function writeMetrics(path, metrics) {
  const { curve, ...rest } = metrics;
  const round = (v) => (typeof v === 'number' && !Number.isInteger(v) ? Number(v.toPrecision(6)) : v);
  const steps = curve.map((c) => JSON.stringify(Object.fromEntries(Object.entries(c).map(([k, v]) => [k, round(v)]))));
  const head = JSON.stringify(rest, null, 1).slice(0, -2);
  writeFileSync(path, `${head},\n "curve": [\n  ${steps.join(',\n  ')}\n ]\n}\n`);
}
