// `blockscope train`: the loss falls, JSON lines parse, checkpoints load, the same seed gives bit-identical
// files, layouts and tensor names survive, --resume continues the schedule, Ctrl-C saves a loadable
// checkpoint (exit 130) and divergence is reported with its step (exit 3).
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import {
  CLI, englishText, fails, initTiny, jsonLines, models, ok, readSafetensors, run, scratch, tensorNames, writeText,
} from './support.mjs';

const work = scratch('train');
const text = writeText(join(work, 'text.txt'), englishText());
const book = initTiny(join(work, 'book'));
const FAST = ['--batch-size', '8', '--lr', '1e-2', '--warmup', '2', '--eval-batches', '2'];

function train(model, out, ...args) {
  const lines = jsonLines(ok('train', '--model', model, '--data', text, '--out', out, '--json', ...FAST, ...args));
  return { steps: lines.filter((l) => !l.done), summary: lines.at(-1) };
}
const withoutTiming = ({ tokens_per_s: _, ...rest }) => rest;
const finiteLogits = (dir, ids) => JSON.parse(ok('forward', '--model', dir, '--tokens', ids, '--json')).logits.flat()
  .every(Number.isFinite);

test('train lowers the loss, prints one JSON line per step and writes a checkpoint that loads', () => {
  const out = join(work, 'trained');
  const { steps, summary } = train(book, out, '--steps', '30', '--eval-every', '10');
  assert.deepEqual(steps.map((s) => s.step), Array.from({ length: 30 }, (_, i) => i + 1));
  for (const s of steps) {
    for (const key of ['loss', 'grad_norm', 'lr', 'tokens_per_s']) assert.ok(Number.isFinite(s[key]), `${key} of step ${s.step}`);
    assert.deepEqual(Object.keys(s.layer_grad_norms), ['embeddings', 'trf_blocks.0', 'trf_blocks.1', 'head']);
    assert.equal('val_loss' in s, s.step % 10 === 0, `val_loss at step ${s.step}`);
  }
  const mean = (a) => a.reduce((x, y) => x + y, 0) / a.length;
  const first = mean(steps.slice(0, 3).map((s) => s.loss));
  const last = mean(steps.slice(-3).map((s) => s.loss));
  assert.ok(last < first - 1.5, `loss fell from ${first} to ${last}`);
  assert.ok(steps[29].val_loss < steps[9].val_loss, 'validation loss falls');
  assert.equal(summary.done, true);
  assert.equal(summary.stop, 'completed');
  assert.equal(summary.steps, 30);
  assert.equal(summary.val_loss, steps[29].val_loss);

  assert.ok(finiteLogits(out, '84,104,101'));
  const info = JSON.parse(ok('info', '--model', out, '--json'));
  assert.equal(info.layout, 'book');
  assert.equal(info.config.emb_dim, 32);
  assert.equal(readSafetensors(join(out, 'optimizer.safetensors')).metadata.step, '30');
  const before = JSON.parse(ok('eval', '--model', book, '--text', text, '--json')).loss;
  const after = JSON.parse(ok('eval', '--model', out, '--text', text, '--json')).loss;
  assert.ok(after < before - 1.5, `eval loss ${before} -> ${after}`);
});

test('on a terminal, stderr shows a redrawn progress line: step, loss, validation loss, tokens/s, ETA', () => {
  // util-linux `script` (essential on Debian) runs the command on a pseudo-terminal.
  const quote = (a) => `'${a.replaceAll("'", "'\\''")}'`;
  const args = [CLI, 'train', '--model', book, '--data', text, '--out', join(work, 'tty'), '--steps', '6', ...FAST];
  const r = spawnSync('script', ['-qec', args.map(quote).join(' '), '/dev/null'], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /\rstep 6\/6  loss \d+\.\d{4}  val \d+\.\d{4}  [\d,]+ tok\/s  ETA \d+:\d\d/);
  assert.match(r.stdout, /\rstep 1\/6  loss \d+\.\d{4}  [\d,]+ tok\/s/, 'the first step is drawn at once');
});

test('the same seed gives identical loss lines and bit-identical files; another seed does not', () => {
  const runs = ['a', 'b', 'c'].map((name, i) => {
    const out = join(work, `seed-${name}`);
    return { out, ...train(book, out, '--steps', '8', '--seed', i < 2 ? '11' : '12') };
  });
  assert.deepEqual(runs[0].steps.map(withoutTiming), runs[1].steps.map(withoutTiming));
  for (const file of ['model.safetensors', 'config.json', 'optimizer.safetensors'])
    assert.ok(readFileSync(join(runs[0].out, file)).equals(readFileSync(join(runs[1].out, file))), `${file} differs`);
  assert.notDeepEqual(runs[2].steps.map((s) => s.loss), runs[0].steps.map((s) => s.loss), 'seed 12 samples other batches');
});

test('--threads: the same thread count gives bit-identical files; counts agree to float rounding', () => {
  const runs = ['1', '2', '2'].map((threads, i) => {
    const out = join(work, `threads-${i}`);
    return { out, threads, ...train(book, out, '--steps', '6', '--seed', '5', '--threads', threads) };
  });
  assert.equal(runs[0].summary.threads, 1);
  assert.ok(runs[1].summary.threads >= 1 && runs[1].summary.threads <= 2, `threads ${runs[1].summary.threads}`);
  assert.deepEqual(runs[1].steps.map(withoutTiming), runs[2].steps.map(withoutTiming));
  for (const file of ['model.safetensors', 'optimizer.safetensors'])
    assert.ok(readFileSync(join(runs[1].out, file)).equals(readFileSync(join(runs[2].out, file))), `${file} differs`);
  runs[0].steps.forEach((s, i) => assert.ok(Math.abs(s.loss - runs[1].steps[i].loss) <= 1e-5 * s.loss,
    `step ${s.step}: 1 thread ${s.loss}, 2 threads ${runs[1].steps[i].loss}`));
  fails(['train', '--model', book, '--data', text, '--out', join(work, 'threads-x'), '--threads', '-1'], /--threads/);
});

test('the output keeps the input layout and tensor names: book, Hugging Face, .ids and .bin data', () => {
  const hf = initTiny(join(work, 'hf'), { layout: 'hf' });
  const hfOut = join(work, 'hf-out');
  train(hf, hfOut, '--steps', '2');
  assert.deepEqual(tensorNames(join(hfOut, 'model.safetensors')), tensorNames(join(hf, 'model.safetensors')));
  assert.ok(tensorNames(join(hfOut, 'model.safetensors')).includes('transformer.wte.weight'));
  assert.ok('n_embd' in JSON.parse(readFileSync(join(hfOut, 'config.json'), 'utf8')));

  // The golden files (vocab 60, no tokenizer) trained on token ids: names kept, mask buffers dropped.
  const ids = Array.from({ length: 400 }, (_, i) => (i * 7 + (i >> 3)) % 60);
  writeFileSync(join(work, 'data.ids'), ids.map((v, i) => `${v}${i % 10 === 9 ? '\n' : ', '}`).join(''));
  const bin = Buffer.alloc(2 * ids.length);
  ids.forEach((v, i) => bin.writeUInt16LE(v, 2 * i));
  writeFileSync(join(work, 'data.bin'), bin);
  for (const [name, data] of [['hf_tiny', 'data.ids'], ['book_tiny', 'data.bin']]) {
    const out = join(work, `${name}-out`);
    ok('train', '--model', join(models, name), '--data', join(work, data), '--out', out, '--steps', '2',
      '--seq-len', '16', '--batch-size', '2');
    const isBuffer = (n) => /\.(att\.mask|attn\.bias|attn\.masked_bias)$/.test(n);
    assert.deepEqual(tensorNames(join(out, 'model.safetensors')),
      tensorNames(join(models, name, 'model.safetensors')).filter((n) => !isBuffer(n)), name);
  }
  // .ids and .bin holding the same ids train identically.
  const viaIds = jsonLines(ok('train', '--model', join(models, 'book_tiny'), '--data', join(work, 'data.ids'),
    '--out', join(work, 'ids-out'), '--steps', '2', '--seq-len', '16', '--batch-size', '2', '--json'));
  const viaBin = jsonLines(ok('train', '--model', join(models, 'book_tiny'), '--data', join(work, 'data.bin'),
    '--out', join(work, 'bin-out'), '--steps', '2', '--seq-len', '16', '--batch-size', '2', '--json'));
  assert.deepEqual(viaIds.slice(0, 2).map((s) => s.loss), viaBin.slice(0, 2).map((s) => s.loss));
});

test('--resume continues the step count and the learning-rate schedule from optimizer.safetensors', () => {
  const full = train(book, join(work, 'full'), '--steps', '10').steps;
  const half = join(work, 'half');
  train(book, half, '--steps', '5');
  const resumed = train(half, join(work, 'resumed'), '--steps', '10', '--resume');
  assert.deepEqual(resumed.steps.map((s) => s.step), [6, 7, 8, 9, 10]);
  resumed.steps.forEach((s, i) => assert.ok(Math.abs(s.lr - full[5 + i].lr) < 1e-12, `lr at step ${s.step}`));
  assert.equal(readSafetensors(join(work, 'resumed', 'optimizer.safetensors')).metadata.step, '10');
  // Seeded by (seed, step): a second resume draws the same batches.
  const again = train(half, join(work, 'resumed-again'), '--steps', '10', '--resume');
  assert.deepEqual(again.steps.map(withoutTiming), resumed.steps.map(withoutTiming));
  fails(['train', '--model', join(work, 'resumed'), '--data', text, '--out', join(work, 'x'), '--steps', '10', '--resume'],
    /is at step 10 and --steps .* is 10: nothing left to train/);
  fails(['train', '--model', book, '--data', text, '--out', join(work, 'x'), '--resume'],
    /cannot open '.*optimizer\.safetensors'/);
});

test('Ctrl-C finishes the step, saves a loadable checkpoint and exits with 130', async () => {
  const out = join(work, 'interrupted');
  const child = spawn(CLI, ['train', '--model', book, '--data', text, '--out', out, '--steps', '100000', '--json',
    '--lr', '1e-3']);
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  await new Promise((resolve, reject) => {
    child.stdout.on('data', (d) => {
      stdout += d;
      if ((stdout.match(/\n/g) ?? []).length >= 3) resolve();
    });
    child.on('exit', () => reject(new Error(`train exited before 3 steps: ${stderr}`)));
  });
  child.kill('SIGINT');
  const { code, signal } = await exited;
  assert.equal(signal, null, 'handled, not killed by the signal');
  assert.equal(code, 130);
  const lines = jsonLines(stdout);
  const steps = lines.filter((l) => !l.done);
  const last = steps.at(-1).step;
  assert.ok(last >= 3 && last < 100000);
  assert.deepEqual(lines.at(-1).stop, 'interrupted');
  assert.match(stderr, new RegExp(`interrupted after step ${last} of 100000; saved .* to ${out}`));
  assert.equal(readSafetensors(join(out, 'optimizer.safetensors')).metadata.step, String(last));
  assert.ok(finiteLogits(out, '1,2,3'));
  const resumed = jsonLines(ok('train', '--model', out, '--data', text, '--out', out, '--steps', String(last + 1),
    '--resume', '--json'));
  assert.equal(resumed[0].step, last + 1);
});

test('a diverging run reports the step, keeps the last weights with a finite loss and exits with 3', () => {
  const out = join(work, 'diverged');
  const r = run(...['train', '--model', book, '--data', text, '--out', out, '--steps', '50', '--lr', '1e6',
    '--batch-size', '4', '--json']);
  assert.equal(r.code, 3, r.stderr);
  const m = r.stderr.match(/training diverged at step (\d+): loss (nan|inf|-inf), gradient norm /);
  assert.ok(m, r.stderr);
  const step = Number(m[1]);
  const lines = jsonLines(r.stdout);
  const bad = lines.filter((l) => !l.done).at(-1);
  assert.equal(bad.step, step);
  assert.equal(bad.finite, false);
  assert.equal(lines.at(-1).stop, 'diverged');
  assert.match(r.stderr, new RegExp(`saved the weights after step ${step - 2} \\(the last to give a finite loss\\)`));
  assert.equal(lines.at(-1).steps, step - 2);
  assert.ok(finiteLogits(out, '1,2,3'), 'the saved weights give finite logits');
  assert.ok(!existsSync(join(out, 'optimizer.safetensors')), 'no optimizer state for a diverged run');
});

test('a model whose first step is already non-finite is reported and nothing is saved', () => {
  // A crafted checkpoint: finite but huge head weights overflow the logits to inf, the loss to nan.
  const dir = initTiny(join(work, 'huge'));
  const file = join(dir, 'model.safetensors');
  const bytes = readFileSync(file);
  const n = Number(bytes.readBigUInt64LE(0));
  const [begin, end] = JSON.parse(bytes.subarray(8, 8 + n).toString('utf8'))['out_head.weight'].data_offsets;
  for (let o = 8 + n + begin; o < 8 + n + end; o += 4) bytes.writeFloatLE(3e38, o);
  writeFileSync(file, bytes);
  const out = join(work, 'huge-out');
  const r = run('train', '--model', dir, '--data', text, '--out', out, '--steps', '5', '--json');
  assert.equal(r.code, 3, r.stderr);
  assert.match(r.stderr, /training diverged at step 1: loss nan, .*the starting weights already give a non-finite loss, so nothing was saved/);
  assert.equal(jsonLines(r.stdout).at(-1).out, null);
  assert.ok(!existsSync(out));
});

test('--window-stride: 1 is the default windowing; the summary records it; 0 is refused', () => {
  const a = train(book, join(work, 'stride-default'), '--steps', '4', '--val-fraction', '0');
  const b = train(book, join(work, 'stride-1'), '--steps', '4', '--val-fraction', '0', '--window-stride', '1');
  assert.deepEqual(a.steps.map((s) => s.loss), b.steps.map((s) => s.loss));
  const c = train(book, join(work, 'stride-5'), '--steps', '4', '--val-fraction', '0', '--window-stride', '5');
  assert.equal(c.summary.config.window_stride, 5);
  assert.notDeepEqual(c.steps.map((s) => s.loss), a.steps.map((s) => s.loss), 'other windows, other losses');
  fails(['train', '--model', book, '--data', text, '--out', join(work, 'x'), '--window-stride', '0'], /--window-stride/);
});

test('--val-data validates on a separate file and trains on all of --data', () => {
  const other = writeText(join(work, 'other.txt'), 'Numbers and symbols: 0123456789 +-*/ = %$#@! '.repeat(40));
  const held = train(book, join(work, 'val-data'), '--steps', '6', '--eval-every', '3', '--val-data', other);
  const all = train(book, join(work, 'no-val'), '--steps', '6', '--val-fraction', '0');
  // The same training stream (nothing cut from --data): identical training losses step by step.
  assert.deepEqual(held.steps.map((s) => s.loss), all.steps.map((s) => s.loss));
  assert.ok(held.steps.every((s) => ('val_loss' in s) === (s.step % 3 === 0)));
  assert.ok(!('val_fraction' in held.summary.config), 'the summary does not claim a val_fraction');
  // Validation text unlike the training text scores worse than the training text itself.
  const self = train(book, join(work, 'val-self'), '--steps', '6', '--val-data', text);
  assert.ok(held.summary.val_loss > self.summary.val_loss + 0.5, `${held.summary.val_loss} vs ${self.summary.val_loss}`);
  fails(['train', '--model', book, '--data', text, '--out', join(work, 'x'), '--val-data', other, '--val-fraction', '0.2'],
    /--val-data excludes --val-fraction|excludes/);
  const short = writeText(join(work, 'short.txt'), 'too short');
  fails(['train', '--model', book, '--data', text, '--out', join(work, 'x'), '--val-data', short], /--val-data .*short\.txt/);
});
