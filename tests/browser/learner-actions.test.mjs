// What a learner does in the widgets, in Chromium: predict-then-reveal (the values really absent from the DOM and
// the accessibility tree until answered; right, near and wrong answers with their blockscope-answer details and
// hints; the seeds' quizzes), "check your implementation" (for every mistake id PyTorch's own print of the mistaken
// code, tests/golden/learner-prints.json, is named exactly; PyTorch's correct output is 'correct'; noise and a
// wrong shape are 'unknown'), and Copy as PyTorch (each widget's toPyTorch() run by /usr/bin/python3 prints the
// widget's numbers). Keyboard-only answering, 360 px and dark mode with no console errors.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { assertClean, assertFits, browserSuite, openPage, screenshot } from './support.mjs';

const env = browserSuite();
const PRINTS = JSON.parse(readFileSync(new URL('../golden/learner-prints.json', import.meta.url), 'utf8'));

async function openLayerNorm(attrs = {}, options = {}) {
  const session = await openPage(env.browser, options);
  await session.page.goto(`${env.url}examples/layernorm-explorer.html`);
  await session.page.locator('layernorm-explorer .status').filter({ hasText: 'Computed by the core' }).waitFor({ timeout: 20000 });
  await setAttrs(session.page, 'layernorm-explorer', attrs);
  await recordEvents(session.page);
  return session;
}
async function openGelu(attrs = {}, options = {}) {
  const session = await openPage(env.browser, options);
  await session.page.goto(`${env.url}embed.html`);
  await session.page.locator('gelu-explorer .status').filter({ hasText: 'points from the core' }).waitFor({ timeout: 20000 });
  await setAttrs(session.page, 'gelu-explorer', attrs);
  await recordEvents(session.page);
  return session;
}
function setAttrs(page, tag, attrs) {
  return page.evaluate(([t, a]) => { for (const [k, v] of Object.entries(a)) document.querySelector(t).setAttribute(k, v); }, [tag, attrs]);
}
/** Collects every blockscope-answer and blockscope-check event's detail in window.__events. */
function recordEvents(page) {
  return page.evaluate(() => {
    window.__events = [];
    for (const name of ['blockscope-answer', 'blockscope-check', 'blockscope-change']) {
      document.addEventListener(name, (e) => window.__events.push({ type: name, ...e.detail }));
    }
  });
}
const events = (page, type) => page.evaluate((t) => window.__events.filter((e) => e.type === t), type);
const shadowText = (page, tag) => page.evaluate((t) => document.querySelector(t).shadowRoot.textContent, tag);

async function answer(page, tag, question, text) {
  await page.locator(`${tag} #predict-${question}`).fill(text);
  await page.locator(`${tag} [data-question="${question}"] button`).first().click();
  await page.locator(`${tag} #predict-${question}-result`).filter({ hasText: /./ }).waitFor();
  return page.locator(`${tag} #predict-${question}-result`).textContent();
}

async function check(page, tag, pasted) {
  const details = page.locator(`${tag} details.check`);
  if (!(await details.evaluate((d) => d.open))) await details.locator('summary').click();
  const before = (await events(page, 'blockscope-check')).length;
  await page.locator(`${tag} [part="check-input"]`).fill(pasted);
  await page.locator(`${tag} details.check button`).click();
  await page.waitForFunction((n) => window.__events.filter((e) => e.type === 'blockscope-check').length > n, before);
  return { event: (await events(page, 'blockscope-check')).at(-1), text: await page.locator(`${tag} [part="check-result"]`).textContent() };
}

test('LayerNorm predictions: hidden from the DOM and the accessibility tree until answered, then judged', async () => {
  const { page, context, problems } = await openLayerNorm({ predict: 'mean,variance,output' });
  const tag = 'layernorm-explorer';
  await page.locator(`${tag} [part="predict"]`).waitFor();
  // The lesson's token [1, 3, 5, 7]: mean 4, variance 5, output ±1.3416, ±0.4472 — none of it anywhere yet.
  const hidden = await shadowText(page, tag);
  // (5.0000 is also an input feature, so the variance is checked where it would be shown.)
  for (const v of ['4.0000', '1.3416', '0.4472', '125.0000']) assert.ok(!hidden.includes(v), `${v} is in the DOM before the answer`);
  assert.ok(!(await page.locator(`${tag} dd[data-stat="variance"]`).textContent()).includes('5.0000'));
  const tree = await page.locator(tag).ariaSnapshot();
  for (const v of ['4.0000', '1.3416', '125.0000']) assert.ok(!tree.includes(v), `${v} is in the accessibility tree`);
  assert.match(tree, /hidden until you predict it/);
  await screenshot(page, 'learner-layernorm-predict-hidden');

  // Right (within 0.01), keyboard only: focus the field, type, Enter.
  await page.locator(`${tag} #predict-mean`).focus();
  await page.keyboard.type('4');
  await page.keyboard.press('Enter');
  await page.locator(`${tag} #predict-mean-result`).filter({ hasText: 'Right' }).waitFor();
  assert.equal(await page.locator(`${tag} dd[data-stat="mean"]`).textContent(), '4.0000');
  // Wrong with the unbiased variance's value: revealed, off by 1.6667, and the hint names the mistake.
  const v = await answer(page, tag, 'variance', '6.6667');
  assert.match(v, /You said 6\.6667; the core computes 5\.0000\. Off by 1\.6667 \(33\.3 %\)\. That is the unbiased variance, ÷ \(n − 1\)/);
  assert.equal(await page.locator(`${tag} dd[data-stat="variance"]`).textContent(), '5.0000');
  // Near: one value off by 0.03 (within ten tolerances).
  const o = await answer(page, tag, 'output', '-1.34, -0.45, 0.45, 1.37');
  assert.match(o, /Close: off by 0\.0284/);
  const answers = await events(page, 'blockscope-answer');
  assert.deepEqual(answers.map((a) => [a.widget, a.question, a.correct, a.attempts, a.tolerance]), [
    ['layernorm-explorer', 'mean', true, 1, 0.01], ['layernorm-explorer', 'variance', false, 1, 0.01],
    ['layernorm-explorer', 'output', false, 1, 0.01]]);
  assert.equal(answers[0].answer, 4);
  assert.equal(answers[0].expected, 4);
  assert.ok(Math.abs(answers[2].expected[0] + 1.3416) < 1e-4);
  // Ask again: hidden once more; a second answer counts as attempt 2.
  await page.locator(`${tag} [data-question="variance"] button`).nth(1).click();
  assert.ok(!(await page.locator(`${tag} dd[data-stat="variance"]`).textContent()).includes('5.0000'));
  await answer(page, tag, 'variance', '5');
  assert.deepEqual((await events(page, 'blockscope-answer')).at(-1).attempts, 2);
  await screenshot(page, 'learner-layernorm-predict-revealed');
  assertClean(problems);
  await context.close();
});

test('the LayerNorm axis quiz: a wrong option gives its hint, the right one is confirmed', async () => {
  const { page, context, problems } = await openLayerNorm({ predict: 'axis-quiz' });
  const tag = 'layernorm-explorer';
  await page.locator(`${tag} [data-question="axis-quiz"] input[value="batch"]`).check();
  await page.locator(`${tag} [data-question="axis-quiz"] button`).first().click();
  await page.locator(`${tag} #predict-axis-quiz-result`).filter({ hasText: 'BatchNorm' }).waitFor();
  await page.locator(`${tag} [data-question="axis-quiz"] input[value="features"]`).check();
  await page.locator(`${tag} [data-question="axis-quiz"] button`).first().click();
  await page.locator(`${tag} #predict-axis-quiz-result`).filter({ hasText: 'Right' }).waitFor();
  const a = await events(page, 'blockscope-answer');
  assert.deepEqual(a.map((e) => [e.question, e.answer, e.expected, e.correct, e.attempts]),
    [['axis-quiz', 'batch', 'features', false, 1], ['axis-quiz', 'features', 'features', true, 2]]);
  assertClean(problems);
  await context.close();
});

test('checking a LayerNorm: every mistake PyTorch printed is named, correct is correct, noise is unknown', async () => {
  const { state, prints } = PRINTS.layernorm;
  const { page, context, problems } = await openLayerNorm({ values: state.values, gamma: String(state.gamma),
    beta: String(state.beta), eps: String(state.eps) });
  const tag = 'layernorm-explorer';
  await page.locator(`${tag} .status`).filter({ hasText: 'T = 3 tokens' }).waitFor();
  for (const [id, p] of Object.entries(prints)) {
    const want = id === 'noise' || id === 'wrong-shape' ? 'unknown' : id;
    for (const format of ['repr', 'tolist']) {
      const { event, text } = await check(page, tag, p[format]);
      assert.equal(event.match, want, `${id} (${format}): ${text}`);
      assert.equal(event.widget, tag);
      assert.equal(event.tolerance, 1e-5);
      if (want !== 'unknown') assert.ok(event.maxDiff <= 5e-5 + 1e-5, `${id} maxDiff ${event.maxDiff}`);
      if (id === 'unbiased-variance') assert.match(text, /match LayerNorm with the unbiased variance, ÷ \(n − 1\), max difference/);
      if (id === 'wrong-shape') assert.match(text, /shape \(2, 4\) but the widget’s result has shape \(3, 4\)/);
    }
  }
  // A print cut short is refused with how to print it in full; the widget keeps working.
  const cut = await check(page, tag, 'tensor([[ 0.1,  0.2, ...,  0.3]])').catch(() => null);
  assert.equal(cut, null); // no event: nothing was judged
  assert.match(await page.locator(`${tag} [part="check-result"]`).textContent(), /cut short.*tolist\(\)/);
  await screenshot(page, 'learner-layernorm-check');
  assertClean(problems);
  await context.close();
});

test('GELU: predict the value, the GELU-vs-ReLU quiz, and every GELU mistake named', async () => {
  const { page, context, problems } = await openGelu({ predict: 'value,gelu-quiz' });
  const tag = 'gelu-explorer';
  await page.locator(`${tag} [part="predict"]`).waitFor();
  await page.locator(`${tag} td[data-kind="gelu_tanh"]`).filter({ hasText: '?' }).waitFor();
  const hidden = await shadowText(page, tag);
  assert.ok(!hidden.includes('0.8412'), 'GELU(1) is in the DOM before the answer');
  assert.ok(!(await page.locator(tag).ariaSnapshot()).includes('0.8412'));
  // ReLU's value for x = 1 is 1: the hint says so.
  assert.match(await answer(page, tag, 'value', '1'), /the core computes 0\.8412\. Off by 0\.1588.*That is ReLU’s value/);
  assert.equal(await page.locator(`${tag} td[data-kind="gelu_tanh"]`).textContent(), '0.8412');
  await page.locator(`${tag} td[data-eight="gelu_tanh"]`).first().waitFor(); // the table is back too
  await page.locator(`${tag} [data-question="gelu-quiz"] input[value="zero"]`).check();
  await page.locator(`${tag} [data-question="gelu-quiz"] button`).first().click();
  await page.locator(`${tag} #predict-gelu-quiz-result`).filter({ hasText: 'That is ReLU' }).waitFor();
  for (const form of ['tanh', 'erf']) {
    await setAttrs(page, tag, { 'check-form': form });
    await page.locator(`${tag} .status`).filter({ hasText: 'points from the core' }).waitFor();
    for (const [id, p] of Object.entries(PRINTS.gelu.prints[form])) {
      const { event, text } = await check(page, tag, p.repr);
      assert.equal(event.match, id, `${form} ${id}: ${text}`);
    }
  }
  assert.equal((await check(page, tag, PRINTS.gelu.prints.noise.tolist)).event.match, 'unknown');
  await screenshot(page, 'learner-gelu-check');
  assertClean(problems);
  await context.close();
});

/** Runs a snippet with Debian's PyTorch and returns its "name [values]" lines as {name: values}. */
function runPython(code) {
  const out = execFileSync('/usr/bin/python3', ['-c', code], { encoding: 'utf8' });
  return Object.fromEntries(out.trim().split('\n').map((line) => {
    const [name, ...rest] = line.split(' ');
    return [name, JSON.parse(rest.join(' ').replace(/nan/g, 'null'))];
  }));
}
const close = (a, b, what, tol = 1e-5) => {
  const x = a.flat(2);
  const y = b.flat(2);
  assert.equal(x.length, y.length, what);
  x.forEach((v, i) => assert.ok(Math.abs(v - y[i]) <= tol, `${what}[${i}]: PyTorch ${v}, widget ${y[i]}`));
};

test('Copy as PyTorch: each snippet, run by PyTorch, prints the widget\'s numbers', async () => {
  const { page, context, problems } = await openLayerNorm({ gamma: '1.3', beta: '-0.2', eps: '0.001' }, { width: 360 });
  const tag = 'layernorm-explorer';
  await page.locator(`${tag} .status`).filter({ hasText: 'Computed by the core' }).waitFor();
  const changes = [];
  for (const axis of ['features', 'sequence']) {
    const wait = page.evaluate(() => new Promise((r) => document.addEventListener('blockscope-change', (e) => r(e.detail), { once: true })));
    await setAttrs(page, tag, { axis });
    changes.push(await wait);
    const code = await page.evaluate((t) => document.querySelector(t).toPyTorch(), tag);
    const py = runPython(code);
    const w = changes.at(-1);
    close(py.output, w.output, `${axis} output`);
    close(py.mean, w.mean, `${axis} mean`);
    close(py.variance, w.variance, `${axis} variance`);
  }
  await page.locator(`${tag} [part="copy-pytorch"]`).click();
  await page.locator(`${tag} .copy-box [role="status"]`).filter({ hasText: /Copied|selected/ }).waitFor();
  await assertFits(page, tag, 360, 'with the learner panels');
  assertClean(problems);
  await context.close();

  const g = await openGelu({ x: '-0.75' }, { colorScheme: 'dark' });
  await g.page.locator('gelu-explorer td[data-kind="x"]').filter({ hasText: '−0.75' }).waitFor();
  const values = await g.page.evaluate(() => {
    const el = document.querySelector('gelu-explorer');
    return { code: el.toPyTorch(), shown: el.readoutValues };
  });
  const py = runPython(values.code);
  for (const kind of ['gelu_tanh', 'gelu_erf', 'relu']) close([py[kind][0]], [values.shown[kind]], kind);
  // The lesson's eight values (tanh form): GELU(−3) = −0.0036 … GELU(3) = 2.9964, as the table shows.
  const table = await g.page.locator('gelu-explorer td[data-eight="gelu_tanh"]').allTextContents();
  assert.deepEqual(table, ['−0.0036', '−0.1588', '−0.1543', '0.0000', '0.3457', '0.8412', '1.9546', '2.9964']);
  close(py.gelu_tanh.slice(1), table.map((t) => Number(t.replace('−', '-'))), 'eight values', 5e-5); // 4 decimals shown
  await screenshot(g.page, 'learner-gelu-dark');
  assertClean(g.problems);
  await g.context.close();
});

test('book-4.2: the walk reproduces the book\'s printouts (PyTorch\'s, from the preset) with the core\'s numbers', async () => {
  const { page, context, problems } = await openLayerNorm({ preset: 'book-4.2' });
  const tag = 'layernorm-explorer';
  const preset = JSON.parse(readFileSync(new URL('../../web/presets/layernorm-book42.json', import.meta.url), 'utf8'));
  const pre = page.locator(`${tag} .book-walk pre`);
  await pre.filter({ hasText: 'μ per token (core): [0.1324, 0.2170]' }).waitFor();
  // The tokens are PyTorch's toy output (the preset), shown in the main view with the biased variance.
  assert.deepEqual(await page.locator(`${tag} table.sequence td[data-stat="variance"]`).allTextContents(), ['0.0192', '0.0332']);
  const fmt = (v) => v.toFixed(4).replace('-', '−');
  await page.locator(`${tag} .book-walk button[data-step="variance"]`).click();
  await page.locator(`${tag} #book-unbiased`).check();
  await pre.filter({ hasText: `[${preset.printed.var.map(fmt).join(', ')}]` }).waitFor(); // 0.0231, 0.0398
  await page.locator(`${tag} .book-walk button[data-step="divide"]`).click();
  for (const r of preset.printed.out_norm) await pre.filter({ hasText: `[${r.map(fmt).join(', ')}]` }).waitFor();
  // Per-feature γ and β: the first feature doubled doubles only that column of y.
  await page.locator(`${tag} .book-walk button[data-step="scale"]`).click();
  // Each edit's own event (the walk's first one may come before the page starts recording events).
  const bookChange = (gamma) => Promise.all([
    page.evaluate(() => new Promise((r) => document.addEventListener('blockscope-change', (e) => e.detail.section === 'book' && r(e.detail)))),
    page.locator(`${tag} #book-gamma`).fill(gamma),
  ]).then(([detail]) => detail);
  const before = await bookChange('1, 1, 1, 1, 1, 1');
  const after = await bookChange('2, 1, 1, 1, 1, 1');
  assert.ok(Math.abs(after.output[0][0] - 2 * before.output[0][0]) < 1e-6);
  assert.deepEqual(after.output[0].slice(1), before.output[0].slice(1));
  await page.locator(`${tag} #book-gamma`).fill('2, 1');
  await page.locator(`${tag} #book-gamma-error`).filter({ hasText: 'γ needs 6 values' }).waitFor();
  await screenshot(page, 'learner-layernorm-book42');
  assertClean(problems);
  await context.close();
});

test('the guide lists every mistake id the core knows, with the widgets\' words', async () => {
  const { page, context, problems } = await openPage(env.browser, {});
  await page.goto(`${env.url}docs/embedding.html`);
  await page.locator('#mistake-ids[data-generated="true"]').waitFor({ timeout: 20000 });
  const ids = await page.locator('#mistake-ids tr[data-mistake]').evaluateAll((rows) => rows.map((r) => r.dataset.mistake));
  const core = await page.evaluate(async () => {
    const { connect } = await import('/dist/blockscope-widgets.js');
    return (await (await connect()).mistakes()).map((m) => m.id).filter((id) => id !== 'correct');
  });
  assert.deepEqual(ids, core);
  for (const row of await page.locator('#mistake-ids tbody tr').all()) {
    assert.ok((await row.locator('td').nth(2).textContent()).length > 10, 'each mistake has its text');
  }
  assertClean(problems);
  await context.close();
});

test('LayerNorm vs BatchNorm for real: the same token moves with its batch under BatchNorm, not under LayerNorm (PyTorch\'s numbers)', async () => {
  const { page, context, problems } = await openLayerNorm({}, { width: 360 });
  const tag = 'layernorm-explorer';
  const want = PRINTS.batchnorm.batches;
  const changes = async () => (await events(page, 'blockscope-change')).filter((e) => e.section === 'batchnorm');
  await page.locator(`${tag} details.batchnorm summary`).click();
  await page.waitForFunction(() => window.__events.some((e) => e.section === 'batchnorm'));
  const check = (e, key) => {
    const b = e.batches.find((x) => x.key === key);
    const ref = e.padded ? want[key].bn_padded : want[key].bn_real;
    b.bn.forEach((v, i) => assert.ok(Math.abs(v - ref[i]) < 1e-5, `BN ${key}[${i}]: ${v} vs PyTorch ${ref[i]}`));
    b.ln.forEach((v, i) => assert.ok(Math.abs(v - want[key].ln[i]) < 1e-5, `LN ${key}[${i}]`));
  };
  let e = (await changes()).at(-1);
  assert.equal(e.padded, true);
  check(e, 'A');
  check(e, 'B');
  await page.locator(`${tag} #bn-padding`).uncheck();
  await page.waitForFunction(() => window.__events.filter((x) => x.section === 'batchnorm').at(-1).padded === false);
  e = (await changes()).at(-1);
  check(e, 'A');
  check(e, 'B');
  assert.match(await page.locator(`${tag} .bn-verdict`).textContent(), /LayerNorm’s moves by 0 /);
  await assertFits(page, tag, 360, 'with the BatchNorm panel open');
  await screenshot(page, 'learner-layernorm-vs-batchnorm-360');
  assertClean(problems);
  await context.close();
});
