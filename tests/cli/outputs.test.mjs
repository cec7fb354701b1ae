// Output paths are checked before the work that fills them: `train --out` somewhere unwritable fails before the
// first step (not after the last), and `grad --out` leaves no temporary beside its file, failing or not.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';

import { englishText, fails, initTiny, ok, readSafetensors, runWith, scratch, writeText } from './support.mjs';

const work = scratch('outputs');
const text = writeText(join(work, 'text.txt'), englishText());
const model = initTiny(join(work, 'model'));
// A run far too long to finish within the timeout: only a check before training can fail it in time.
const LONG = ['--data', text, '--steps', '1000000000', '--batch-size', '8', '--json'];

/** A directory this process cannot write: a read-only tmpfs as root (root ignores modes), else mode 0555. */
function readOnlyDir(t) {
  const dir = join(work, 'read-only');
  mkdirSync(dir);
  if (process.getuid() !== 0) {
    chmodSync(dir, 0o555);
    return dir;
  }
  if (spawnSync('mount', ['-t', 'tmpfs', '-o', 'ro,size=64k', 'tmpfs', dir]).status === 0) {
    after(() => spawnSync('umount', [dir]));
    return dir;
  }
  t.diagnostic('root without mount: the read-only --out case cannot be set up; the other cases still run');
  return undefined;
}

test('train --out that cannot be written fails before the first step, naming the reason', (t) => {
  const cases = [[join(text, 'out'), /cannot write to --out '[^']*text\.txt\/out': '[^']*text\.txt' is not a directory/]];
  const ro = readOnlyDir(t);
  if (ro) {
    cases.push([join(ro, 'out'), /cannot write to --out '[^']*read-only\/out' \(it would be created in '[^']*read-only'\): (Read-only file system|Permission denied)/]);
    cases.push([ro, /cannot write to --out '[^']*read-only': (Read-only file system|Permission denied)/]);
  }
  for (const [out, message] of cases) {
    const r = runWith({ timeout: 20000 }, 'train', '--model', model, '--out', out, ...LONG);
    assert.ok(!r.timedOut, `--out ${out}: trained instead of failing first`);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, message);
    assert.equal(r.stdout, '', 'no step ran');
  }
  // A directory that does not exist yet is probed where it would be created, and created only by the save
  // (training.test.mjs: a run that saves nothing leaves no --out behind).
  const fresh = join(work, 'fresh', 'nested');
  ok('train', '--model', model, '--out', fresh, '--data', text, '--steps', '1');
  assert.equal(readSafetensors(join(fresh, 'optimizer.safetensors')).metadata.step, '1');
});

test('grad --out leaves no temporary: not when it succeeds, not when --out is a directory', () => {
  const dir = join(work, 'grads');
  mkdirSync(dir);
  const args = ['--model', model, '--tokens', '1,2,3', '--targets', '2,3,4'];
  ok('grad', ...args, '--out', join(dir, 'g.safetensors'));
  assert.deepEqual(readdirSync(dir), ['g.safetensors']);
  mkdirSync(join(dir, 'sub'));
  fails(['grad', ...args, '--out', join(dir, 'sub')], /--out '[^']*sub' is a directory; give the file name/, 1);
  assert.deepEqual(readdirSync(dir).sort(), ['g.safetensors', 'sub']);
  assert.deepEqual(readdirSync(join(dir, 'sub')), []);
  fails(['grad', ...args, '--out', join(text, 'g.safetensors')], /cannot write to --out's directory '[^']*text\.txt': '[^']*text\.txt' is not a directory/, 1);
});
