// The model you just trained: <training-lab> keeps each run's checkpoints (step 0, then every 25 steps), hands a run
// to a <gpt-explorer> on the page (which then shows exactly that checkpoint's forward pass and scrubs through the
// others with the keyboard), and downloads any of them as config.json + model.safetensors that the native CLI loads
// and runs to the same logits.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { assertClean, browserSuite, openPage, screenshot } from './support.mjs';

const env = browserSuite();
const CLI = fileURLToPath(new URL('../../build/release/cli/blockscope', import.meta.url));

test('a run\'s checkpoints go to the GPT explorer, scrub with the keyboard, and download for the CLI', async () => {
  const { page, context, problems } = await openPage(env.browser, { width: 1000, height: 900, acceptDownloads: true });
  await page.addInitScript(() => {
    window.__forward = [];
    document.addEventListener('blockscope-forward', (e) => window.__forward.push(e.detail));
  });
  await page.goto(`${env.url}examples/training-lab.html#training-lab.layers=2&training-lab.steps=100&training-lab.emb-dim=32`);
  await page.waitForFunction(() => document.querySelector('training-lab')?.dataset.state === 'ready', null, { timeout: 60000 });
  await page.evaluate(() => {
    const gpt = document.createElement('gpt-explorer');
    gpt.id = 'inspector';
    gpt.setAttribute('prompt', 'The jury');
    document.body.append(gpt);
  });
  await page.click('training-lab button.play');
  await page.waitForFunction(() => document.querySelector('training-lab').dataset.state === 'done', null, { timeout: 120000 });
  const steps = await page.locator('training-lab select#ck-a option').evaluateAll((os) => os.map((o) => Number(o.value)));
  assert.deepEqual(steps, [0, 25, 50, 75, 100]);

  // Run A at step 25 in the explorer: its forward pass is that checkpoint's (re-run through the client).
  await page.selectOption('training-lab select#ck-a', '25');
  await page.click('training-lab button.inspect[data-run="a"]');
  await page.waitForFunction(() => window.__forward.at(-1)?.weights === 'loaded');
  const shown = async (step) => page.evaluate(async (s) => {
    const lab = document.querySelector('training-lab');
    const ck = lab.pair.runs[0].checkpoints.find((c) => c.step === s);
    const { connect } = await import('/dist/blockscope-widgets.js');
    const gpt = await (await connect()).loadModel({ config: ck.config, weights: ck.weights.slice() });
    const ev = window.__forward.at(-1);
    const { logits } = await gpt.forward(ev.ids, { lastOnly: true });
    await gpt.dispose();
    let worst = 0;
    for (let i = 0; i < logits.length; i++) worst = Math.max(worst, Math.abs(logits[i] - ev.lastLogits[i]));
    return { worst, ids: ev.ids, label: document.querySelector('gpt-explorer').shadowRoot.querySelector('.lab-label').textContent };
  }, step);
  let s = await shown(25);
  assert.equal(s.worst, 0, 'the explorer runs exactly run A\'s step-25 weights');
  assert.match(s.label, /^training lab run A \(.*\): 5 checkpoints, steps 0–100\.$/);
  assert.equal(await page.inputValue('gpt-explorer input#lab-step'), '1');

  // Scrub to step 0 with the keyboard: the untrained weights, createGPT's from the lab's seed.
  const n = await page.evaluate(() => window.__forward.length);
  await page.locator('gpt-explorer input#lab-step').focus();
  await page.keyboard.press('Home');
  await page.waitForFunction((k) => window.__forward.length > k && window.__forward.at(-1).weights === 'loaded', n);
  s = await shown(0);
  assert.equal(s.worst, 0, 'step 0');
  const untrained = await page.evaluate(async () => {
    const lab = document.querySelector('training-lab');
    const run = lab.pair.runs[0];
    const { connect } = await import('/dist/blockscope-widgets.js');
    const gpt = await (await connect()).createGPT(run.config, { seed: Number(lab.getAttribute('seed') ?? 123) });
    const ev = window.__forward.at(-1);
    const { logits } = await gpt.forward(ev.ids, { lastOnly: true });
    await gpt.dispose();
    return Math.max(...Array.from(logits, (v, i) => Math.abs(v - ev.lastLogits[i])));
  });
  assert.equal(untrained, 0, 'step 0 is createGPT(config, {seed}) itself');

  // Download run B at step 50: the native CLI loads the files and computes the same logits (float32 wasm vs native).
  await page.selectOption('training-lab select#ck-b', '50');
  const downloads = [];
  page.on('download', (d) => downloads.push(d));
  await page.click('training-lab button.download[data-run="b"]');
  await page.waitForFunction(() => document.querySelector('training-lab').shadowRoot.querySelector('.ck-note').textContent.startsWith('Downloaded'));
  while (downloads.length < 2) await page.waitForTimeout(100);
  const dir = mkdtempSync(join(tmpdir(), 'blockscope-lab-'));
  for (const d of downloads) {
    const name = d.suggestedFilename();
    assert.match(name, /^run-b-step-50-(model\.safetensors|config\.json)$/);
    await d.saveAs(join(dir, name));
    renameSync(join(dir, name), join(dir, name.replace('run-b-step-50-', '')));
  }
  const ids = s.ids;
  const cli = spawnSync(CLI, ['forward', '--model', dir, '--tokens', ids.join(','), '--json'], { encoding: 'utf8' });
  assert.equal(cli.status, 0, cli.stderr);
  const nativeLast = JSON.parse(cli.stdout).logits.at(-1);
  const wasmLast = await page.evaluate(async (tokens) => {
    const lab = document.querySelector('training-lab');
    const ck = lab.pair.runs[1].checkpoints.find((c) => c.step === 50);
    const { connect } = await import('/dist/blockscope-widgets.js');
    const gpt = await (await connect()).loadModel({ config: ck.config, weights: ck.weights.slice() });
    const { logits } = await gpt.forward(tokens, { lastOnly: true });
    await gpt.dispose();
    return Array.from(logits);
  }, ids);
  const worst = Math.max(...nativeLast.map((v, i) => Math.abs(v - wasmLast[i])));
  assert.ok(worst <= 1e-4, `native vs wasm logits of the downloaded checkpoint differ by ${worst}`);
  rmSync(dir, { recursive: true, force: true });
  await screenshot(page, 'lab-checkpoints');
  assertClean(problems);
  await context.close();
});
