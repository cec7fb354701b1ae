// Copy as PyTorch for the two GPT widgets, run by Debian's PyTorch against the test server (asynchronously: the
// snippets download the weights and the corpus from it). <gpt-explorer>: the book's GPTModel loading the shipped
// checkpoint from its URL prints the widget's next-token candidates (same ids, probabilities within 2e-6); an
// untrained model's snippet reads the file the "Download the weights" button saves. <training-lab>: both runs
// re-trained in PyTorch from Blockscope's seeded weights and batches (the snippet's port of the core's PCG32) print
// the widget's losses, gradient norms, learning rates and validation losses for the first 12 steps.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';

import { assertClean, browserSuite, openPage, screenshot } from './support.mjs';
import { openExplorer, setAttrs } from './gpt-support.mjs';

const env = browserSuite();
const exec = promisify(execFile);

async function python(code, cwd) {
  const { stdout } = await exec('/usr/bin/python3', ['-c', code], { cwd, encoding: 'utf8', maxBuffer: 1 << 24, timeout: 300_000 });
  return stdout.trim().split('\n');
}

const candidatesOf = (lines) => JSON.parse(lines.find((l) => l.startsWith('candidates ')).slice('candidates '.length));

function assertCandidates(py, shown, what) {
  assert.deepEqual(py.map(([id]) => id), shown.map((c) => c.id), `${what}: the same ranked ids`);
  py.forEach(([, p], i) => assert.ok(Math.abs(p - shown[i].probability) <= 2e-6,
    `${what} #${i + 1}: PyTorch ${p}, widget ${shown[i].probability}`));
}

test('<gpt-explorer> Copy as PyTorch: the shipped model from its URL, an untrained one from the downloaded file', async () => {
  const { page, context, problems } = await openExplorer(env, { width: 360 });
  await setAttrs(page, { prompt: 'The jury said that the', candidates: '8' });
  await page.waitForFunction(() => window.__ev.forward.at(-1)?.candidates.length === 8);
  const trained = await page.evaluate(() => ({ code: document.querySelector('gpt-explorer').toPyTorch(),
    shown: window.__ev.forward.at(-1).candidates, weights: window.__ev.forward.at(-1).weights }));
  assert.equal(trained.weights, 'trained');
  assert.match(trained.code, /urllib\.request\.urlopen\(WEIGHTS\)/, 'the shipped model is read from its URL');
  assert.ok(await page.locator('gpt-explorer [part="download-weights"]').isHidden(), 'no download for the shipped model');
  assertCandidates(candidatesOf(await python(trained.code)), trained.shown, 'trained');

  await page.locator('gpt-explorer [part="copy-pytorch"]').click();
  await page.locator('gpt-explorer .copy-box [role="status"]').filter({ hasText: /Copied|selected/ }).waitFor();

  await setAttrs(page, { weights: 'untrained' });
  await page.waitForFunction(() => window.__ev.forward.at(-1)?.weights === 'untrained');
  const untrained = await page.evaluate(() => ({ code: document.querySelector('gpt-explorer').toPyTorch(),
    shown: window.__ev.forward.at(-1).candidates }));
  assert.match(untrained.code, /WEIGHTS = "blockscope-gpt\.safetensors"/);
  const button = page.locator('gpt-explorer [part="download-weights"]');
  await button.focus();
  const [download] = await Promise.all([page.waitForEvent('download'), page.keyboard.press('Enter')]);
  assert.equal(download.suggestedFilename(), 'blockscope-gpt.safetensors');
  const dir = mkdtempSync(join(tmpdir(), 'blockscope-gpt-'));
  try {
    await download.saveAs(join(dir, 'blockscope-gpt.safetensors'));
    const bytes = readFileSync(join(dir, 'blockscope-gpt.safetensors'));
    assert.ok(bytes.length > 1e6, `the weights file has ${bytes.length} bytes`);
    assertCandidates(candidatesOf(await python(untrained.code, dir)), untrained.shown, 'untrained');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const right = await page.evaluate(() => document.querySelector('gpt-explorer').shadowRoot.querySelector('.copy-box')
    .getBoundingClientRect().right);
  assert.ok(right <= 360, `the copy panel ends at ${right} px`);
  await screenshot(page, 'copy-pytorch-gpt-360');
  assertClean(problems);
  await context.close();
});

test('<training-lab> Copy as PyTorch: PyTorch re-trains both runs from Blockscope\'s weights and batches, step for step', async () => {
  const { page, context, problems } = await openPage(env.browser, { colorScheme: 'dark' });
  await page.addInitScript(() => {
    window.__steps = [];
    document.addEventListener('blockscope-train-step', (e) => window.__steps.push(e.detail));
  });
  // The ffn comparison: the runs differ in shape, so each has its own initial weights.
  await page.goto(`${env.url}examples/training-lab.html#training-lab.comparison=ffn&training-lab.eval-every=5&training-lab.steps=300&training-lab.layers=3`);
  await page.waitForFunction(() => document.querySelector('training-lab')?.dataset.state === 'ready', null, { timeout: 60000 });
  await page.click('training-lab button.play');
  const N = 12;
  await page.waitForFunction((n) => ['a', 'b'].every((r) => window.__steps.filter((e) => e.run === r).length >= n), N,
    { timeout: 120000 });
  await page.click('training-lab button.play');
  const { steps, code } = await page.evaluate(() => ({ steps: window.__steps, code: document.querySelector('training-lab').toPyTorch() }));
  assert.match(code, /RUN_STEPS = 300\b/);
  const lines = await python(code.replace(/RUN_STEPS = \d+/, `RUN_STEPS = ${N}`));
  const ready = await page.evaluate(() => document.querySelector('training-lab').pair.runs.map((r) => r.gpt.numParameters));
  assert.deepEqual(['a', 'b'].map((r) => Number(lines.find((l) => l.startsWith(`${r} parameters`)).split(' ')[2])), ready);
  let compared = 0;
  let vals = 0;
  for (const line of lines) {
    const [kind, run, step, ...v] = line.split(' ');
    if (kind !== 'step' && kind !== 'val') continue;
    const e = steps.find((x) => x.run === run && x.step === Number(step));
    const near = (a, b, tol, what) => assert.ok(Math.abs(a - b) <= tol, `${run} step ${step} ${what}: PyTorch ${a}, widget ${b}`);
    if (kind === 'step') {
      near(Number(v[0]), e.loss, 2e-5 * e.loss, 'loss');
      near(Number(v[1]), e.gradNorm, 2e-5 * e.gradNorm, 'gradient norm');
      near(Number(v[2]), e.lr, 1e-7 * e.lr, 'learning rate');
      compared++;
    } else {
      near(Number(v[0]), e.valLoss, 2e-5 * e.valLoss, 'validation loss');
      vals++;
    }
  }
  assert.equal(compared, 2 * N);
  assert.equal(vals, 2 * Math.floor(N / 5));
  await screenshot(page, 'copy-pytorch-training-lab-dark');
  assertClean(problems);
  await context.close();
});
