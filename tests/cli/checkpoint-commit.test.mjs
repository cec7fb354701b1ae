// `blockscope train`'s checkpoints as one commit: a kill at every rename either leaves a checkpoint that
// --resume refuses by name or one that resumes to exactly the uninterrupted run's weights; a full disk (a small
// tmpfs) changes nothing, says why and leaves no temporary; a symlink planted at the old fixed ".tmp" name is
// not followed; an optimizer state from another save, or from before fingerprints, is refused or warned about.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  cpSync, lstatSync, mkdirSync, readFileSync, readdirSync, statfsSync, symlinkSync, writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';

import { englishText, initTiny, jsonLines, ok, readSafetensors, run, runWith, scratch, writeText } from './support.mjs';

const work = scratch('commit');
const text = writeText(join(work, 'text.txt'), englishText());
const m0 = initTiny(join(work, 'm0'));
// A constant learning rate (min-lr = lr, no warmup): the schedule's length then changes nothing, so training
// 4 steps, then resuming to 8, then to 12 must give the uninterrupted 12-step run's weights bit for bit.
const FAST = ['--data', text, '--batch-size', '8', '--lr', '1e-2', '--min-lr', '1e-2', '--eval-batches', '2', '--json'];
const CHECKPOINT = ['config.json', 'model.safetensors', 'optimizer.safetensors'];

const train = (model, out, steps, ...more) => ok('train', '--model', model, '--out', out, ...FAST, '--steps', String(steps), ...more);
const bytes = (dir, name = 'model.safetensors') => readFileSync(join(dir, name));
const temporaries = (dir) => readdirSync(dir).filter((n) => n.includes('.tmp'));

const reference = join(work, 'reference');
train(m0, reference, 12);
const base = join(work, 'base');  // a complete checkpoint after step 4 of the same run
train(m0, base, 4);

test('resuming 4 -> 8 -> 12 reproduces the uninterrupted run bit for bit (the premise of the kill test)', () => {
  const at8 = join(work, 'chain8');
  const at12 = join(work, 'chain12');
  train(base, at8, 8, '--resume');
  train(at8, at12, 12, '--resume');
  for (const name of CHECKPOINT) assert.ok(bytes(at12, name).equals(bytes(reference, name)), name);
  const meta = readSafetensors(join(at12, 'optimizer.safetensors')).metadata;
  assert.equal(meta.step, '12');
  assert.match(meta.weights_fingerprint, /^fnv1a64:[0-9a-f]{16}$/);
  assert.equal(readSafetensors(join(at12, 'model.safetensors')).metadata.step, '12');
});

test('a kill at every rename of the step-8 save: --resume refuses the mix or reproduces the run exactly', (t) => {
  const outcomes = [];
  for (let n = 0; n <= CHECKPOINT.length; ++n) {
    const dir = join(work, `killed-${n}`);
    cpSync(base, dir, { recursive: true });
    const killed = runWith({ env: { BLOCKSCOPE_TEST_KILL_AT_RENAME: String(n) } },
      'train', '--model', dir, '--out', dir, ...FAST, '--steps', '8', '--resume');
    assert.equal(killed.signal, 'SIGKILL', `commit point ${n}: the save was killed (${killed.stderr})`);
    const out = join(work, `resumed-${n}`);
    const r = run('train', '--model', dir, '--out', out, ...FAST, '--steps', '12', '--resume');
    if (r.code === 0) {
      const from = jsonLines(r.stdout)[0].step - 1;
      assert.ok(bytes(out).equals(bytes(reference)), `commit point ${n}: resumed from step ${from}, other weights`);
      assert.ok(bytes(out, 'optimizer.safetensors').equals(bytes(reference, 'optimizer.safetensors')));
      outcomes.push(`${n}: resumed from step ${from}, weights identical`);
    } else {
      assert.match(r.stderr, /optimizer\.safetensors: the optimizer state is from step \d+ but model\.safetensors holds the weights after step \d+ \(weights fingerprint fnv1a64:[0-9a-f]{16}; the state was saved with fnv1a64:[0-9a-f]{16}\): the two files come from different saves/);
      assert.equal(r.stdout, '');
      outcomes.push(`${n}: refused (${r.stderr.match(/from step \d+ but .* after step \d+/)[0]})`);
    }
    // The killed writer's temporaries go with the next save into the directory.
    if (n < CHECKPOINT.length) assert.ok(temporaries(dir).length > 0, `commit point ${n} left temporaries`);
    train(dir, dir, 1);
    assert.deepEqual(temporaries(dir), [], `commit point ${n}: the next save removed the stale temporaries`);
  }
  t.diagnostic(outcomes.join('; '));
  assert.ok(outcomes.some((o) => o.includes('refused')), 'some commit point left a mix (else this proves nothing)');
  assert.ok(outcomes[0].includes('from step 4') && outcomes.at(-1).includes('from step 8'), outcomes.join('; '));
});

test('an optimizer state next to other weights of the same step is refused; one without a fingerprint warns', () => {
  const other = join(work, 'other-seed');
  train(m0, other, 4, '--seed', '99');  // step 4 too, other batches: other weights
  const mixed = join(work, 'mixed');
  cpSync(base, mixed, { recursive: true });
  cpSync(join(other, 'optimizer.safetensors'), join(mixed, 'optimizer.safetensors'));
  const r = run('train', '--model', mixed, '--out', join(work, 'never'), ...FAST, '--steps', '8', '--resume');
  assert.equal(r.code, 1);
  assert.match(r.stderr, /the optimizer state is from step 4 but model\.safetensors holds the weights after step 4 \(weights fingerprint/);
  assert.match(r.stderr, /train without --resume to start AdamW afresh/);

  // Written before fingerprints existed: the same state minus the key resumes, with a warning, to the same weights.
  const legacy = join(work, 'legacy');
  cpSync(base, legacy, { recursive: true });
  const file = join(legacy, 'optimizer.safetensors');
  const old = readFileSync(file);
  const n = Number(old.readBigUInt64LE(0));
  const header = JSON.parse(old.subarray(8, 8 + n).toString('utf8'));
  delete header.__metadata__.weights_fingerprint;
  let json = JSON.stringify(header);
  json += ' '.repeat((8 - (json.length % 8)) % 8);
  const length = Buffer.alloc(8);
  length.writeBigUInt64LE(BigInt(json.length));
  writeFileSync(file, Buffer.concat([length, Buffer.from(json), old.subarray(8 + n)]));
  const out = join(work, 'legacy-out');
  const w = run('train', '--model', legacy, '--out', out, ...FAST, '--steps', '12', '--resume');
  assert.equal(w.code, 0, w.stderr);
  assert.match(w.stderr, /warning: .*optimizer\.safetensors: the optimizer state \(step 4\) has no 'weights_fingerprint'.*cannot be checked/);
  assert.ok(bytes(out).equals(bytes(reference)));
});

test('a full disk: the message says why, nothing changes and no temporary keeps the space', (t) => {
  // A 700 KiB tmpfs holds the step-4 checkpoint (~520 KiB) but not a second copy to rename over it. Mounting
  // needs root; without it the same failure is injected (BLOCKSCOPE_TEST_FULL_DISK), said so, never skipped.
  const disk = join(work, 'disk');
  mkdirSync(disk);
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=700k', 'tmpfs', disk]).status === 0;
  if (mounted) after(() => spawnSync('umount', [disk]));
  else t.diagnostic('mount -t tmpfs failed (not root?): injecting ENOSPC for optimizer.safetensors instead');
  const out = join(disk, 'ckpt');
  cpSync(base, out, { recursive: true });
  const before = readdirSync(out).sort();
  const free = statfsSync(disk).bfree;
  const env = mounted ? {} : { BLOCKSCOPE_TEST_FULL_DISK: 'optimizer.safetensors' };
  const r = runWith({ env }, 'train', '--model', out, '--out', out, ...FAST, '--steps', '8', '--resume');
  assert.equal(r.code, 1, r.stderr);
  const message = r.stderr.match(/blockscope: error: cannot write '[^']*(optimizer|model)\.safetensors': No space left on device/);
  assert.ok(message, r.stderr);
  t.diagnostic(message[0]);
  assert.deepEqual(readdirSync(out).sort(), before, 'no temporary left, no file replaced');
  for (const name of CHECKPOINT) assert.ok(bytes(out, name).equals(bytes(base, name)), `${name} unchanged`);
  assert.equal(statfsSync(disk).bfree, free, 'the space the partial files took is free again');
  // The untouched step-4 checkpoint still resumes to the uninterrupted run's weights.
  const resumed = join(work, 'after-full');
  train(out, resumed, 12, '--resume');
  assert.ok(bytes(resumed).equals(bytes(reference)));
});

test('a symlink planted at the old fixed .tmp names is not followed', () => {
  const victim = writeText(join(work, 'victim.txt'), 'precious');
  const out = join(work, 'planted');
  mkdirSync(out);
  for (const name of CHECKPOINT) symlinkSync(victim, join(out, `${name}.tmp`));
  train(m0, out, 2);
  const grad = join(out, 'grad.safetensors');
  symlinkSync(victim, `${grad}.tmp`);
  ok('grad', '--model', out, '--tokens', '1,2,3', '--targets', '2,3,4', '--out', grad);
  assert.equal(readFileSync(victim, 'utf8'), 'precious');
  for (const name of [...CHECKPOINT, 'grad.safetensors']) {
    assert.ok(lstatSync(join(out, name)).isFile(), `${name} is a file of its own`);
    assert.ok(lstatSync(join(out, `${name}.tmp`)).isSymbolicLink(), `${name}.tmp untouched`);
  }
  assert.equal(readSafetensors(join(out, 'optimizer.safetensors')).metadata.step, '2');
});
