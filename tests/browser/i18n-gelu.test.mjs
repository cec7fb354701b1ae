// <gelu-explorer> in other languages and in an author's layout, in Chromium: lang="de" and lang="es" speak German
// and Spanish (title, controls, status, the kit's predict/check/copy panels, the check's verdicts) with decimal commas
// where English shows points; a German page (<html lang="de">) makes it German; Copy as PyTorch and the event details
// are the same in every language; controls="…", lock="…" and sections="…" show, freeze and hide what they name, the
// intro and caption slots appear inside the frame, and an unknown control group is warned about once.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { assertClean, browserSuite, openPage, screenshot } from './support.mjs';

const pages = {};
const env = browserSuite({ pages });
const PRINTS = JSON.parse(readFileSync(new URL('../golden/learner-prints.json', import.meta.url), 'utf8'));

/** Serves a page holding `body` (the document's lang `pageLang`) and opens it; records warnings and events. */
async function open(body, { pageLang = 'en', ...options } = {}) {
  const path = `/__i18n-gelu-${Object.keys(pages).length}.html`;
  pages[path] = { body: `<!doctype html><html lang="${pageLang}"><head><meta charset="utf-8"><link rel="icon" href="data:,">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>i18n gelu</title></head>
<body>${body}<script type="module" src="/dist/blockscope-widgets.js"></script></body></html>` };
  const session = await openPage(env.browser, options);
  session.warnings = [];
  session.page.on('console', (msg) => { if (msg.type() === 'warning') session.warnings.push(msg.text()); });
  await session.page.addInitScript(() => {
    window.__events = [];
    for (const name of ['blockscope-readout', 'blockscope-answer', 'blockscope-check']) {
      document.addEventListener(name, (e) => window.__events.push({ type: name, id: e.target.id, detail: e.detail }));
    }
  });
  await session.page.goto(`${env.url}${path.slice(1)}`);
  return session;
}

/** Waits until widget `sel` shows its curves (its status, shown or not, says so in any language: "601 …"). */
const ready = (page, sel = 'gelu-explorer') => page.locator(`${sel} .status`).filter({ hasText: /^601 / })
  .waitFor({ state: 'attached', timeout: 20000 });
const cell = (page, kind, sel = 'gelu-explorer') => page.locator(`${sel} td[data-kind="${kind}"]`);
const text = (locator) => locator.textContent();
const events = (page, type) => page.evaluate((t) => window.__events.filter((e) => e.type === t), type);
/** The detail of the latest event in `list` from the widget with id `id`. */
const latest = (list, id) => list.filter((e) => e.id === id).at(-1).detail;

async function answer(page, question, typed) {
  await page.locator(`gelu-explorer #predict-${question}`).fill(typed);
  await page.locator(`gelu-explorer [data-question="${question}"] button`).first().click();
  await page.locator(`gelu-explorer #predict-${question}-result`).filter({ hasText: /./ }).waitFor();
  return page.locator(`gelu-explorer #predict-${question}-result`).textContent();
}

/** Pastes `pasted` into the check panel and checks it; returns the verdict (after its event, unless `unreadable`). */
async function check(page, pasted, { unreadable = false } = {}) {
  const details = page.locator('gelu-explorer details.check');
  if (!(await details.evaluate((d) => d.open))) await details.locator('summary').click();
  const before = (await events(page, 'blockscope-check')).length;
  await page.locator('gelu-explorer [part="check-input"]').fill(pasted);
  await page.locator('gelu-explorer details.check button').click();
  if (unreadable) await page.locator('gelu-explorer [part="check-input"][aria-invalid="true"]').waitFor();
  else await page.waitForFunction((n) => window.__events.filter((e) => e.type === 'blockscope-check').length > n, before);
  return page.locator('gelu-explorer [part="check-result"]').textContent();
}

test('lang="de": German text, decimal commas, the kit panels and verdicts in German', async () => {
  const { page, context, problems, warnings } = await open('<gelu-explorer lang="de" predict="value" difference></gelu-explorer>');
  await ready(page);
  const root = (sel) => page.locator(`gelu-explorer ${sel}`);
  assert.equal(await text(root('[part="title"]')), 'GELU vs. ReLU');
  assert.match(await text(root('.status')), /^601 Punkte aus dem Kern \(wasm [\w-]+\)\.$/);
  assert.equal(await text(cell(page, 'x')), '1,00');
  assert.equal(await text(cell(page, 'relu')), '1,0000');
  assert.match(await text(root('.dip text')), /^Minimum −0,17 bei x ≈ −0,7[4-6]$/);
  assert.match(await text(root('[part="controls"]')), /x von.*bis.*Ableitungen zeigen.*Differenz tanh − erf zeigen/);
  assert.match(await text(root('.diff-text')), /^Größtes \|GELU-tanh − GELU-erf\| in diesem Bereich: \d,\d\de-4 bei x = /);
  assert.match(await text(root('[part="formula"]')), /0,5 · x · \(1 \+ tanh\(√\(2\/π\) · \(x \+ 0,044715 x³\)\)\), mit √\(2\/π\) ≈ 0,7979\./);
  assert.equal(await text(root('[part="copy-pytorch"]')), 'Als PyTorch kopieren');
  assert.equal(await text(root('[part="predict"] legend.fs')), 'Erst vorhersagen, dann nachsehen');
  assert.equal(await text(root('[data-question="value"] .prompt')), 'Sagen Sie GELU(1,00) in der tanh-Näherung voraus.');
  assert.match(await page.locator('gelu-explorer').ariaSnapshot(), /verborgen, bis Sie eine Vorhersage abgeben/);
  // A wrong answer (ReLU's value), then a right one typed with a decimal comma.
  assert.equal(await answer(page, 'value', '1'), 'Ihre Antwort: 1,0000; der Kern berechnet 0,8412. Abweichung 0,1588 (18,9 %). ' +
    'Das ist der Wert von ReLU, max(0, x): GELU gewichtet x mit Φ(x), statt es abzuschneiden.');
  await cell(page, 'gelu_tanh').filter({ hasText: '0,8412' }).waitFor(); // revealed
  await page.locator('gelu-explorer [data-question="value"] button').nth(1).click(); // hide it and ask again
  await cell(page, 'gelu_tanh').filter({ hasText: '?' }).waitFor();
  await page.waitForFunction(() => document.querySelector('gelu-explorer').shadowRoot.querySelector('#predict-value-result').textContent === '');
  assert.equal(await answer(page, 'value', '0,84'), 'Richtig: 0,8412 (Toleranz 0,01).');
  assert.equal((await events(page, 'blockscope-answer')).at(-1).detail.answer, 0.84);
  assert.equal(await text(cell(page, 'gelu_tanh')), '0,8412');
  const eight = await page.locator('gelu-explorer td[data-eight="gelu_tanh"]').allTextContents();
  assert.deepEqual(eight, ['−0,0036', '−0,1588', '−0,1543', '0,0000', '0,3457', '0,8412', '1,9546', '2,9964']);
  assert.match(await page.locator('gelu-explorer .chart').getAttribute('aria-valuetext'),
    /^x = 1,00: GELU \(tanh-Näherung\) 0,8412; GELU \(exakt, erf\) 0,8413; ReLU 1,0000$/);
  // The check panel: its prompt, a paste it cannot read, a known mistake and the correct print, in German.
  await root('details.check summary').click();
  assert.match(await text(root('#check-what')), /^Führen Sie Ihren eigenen Code .* fügen Sie Ihre GELU \(tanh-Form\) der acht Eingaben/);
  assert.equal(await check(page, '[1, zwei]', { unreadable: true }), 'Ihre Eingabe ließ sich nicht lesen: „zwei]“ in Zeile 1, Spalte 5 ist keine Zahl.');
  assert.match(await check(page, PRINTS.gelu.prints.tanh['relu-instead-of-gelu'].repr),
    /^Ihre Zahlen entsprechen diesem Fehler: ReLU statt GELU \(größte Abweichung [^)]+\)\. Korrektur: GELU zwischen den beiden linearen Schichten anwenden\.$/);
  assert.match(await check(page, PRINTS.gelu.prints.tanh.correct.repr), /^Richtig: Ihre Zahlen stimmen mit denen des Kerns überein, größte Abweichung/);
  assert.equal((await events(page, 'blockscope-check')).at(-1).detail.match, 'correct');
  await screenshot(page, 'i18n-gelu-de');
  assertClean(problems);
  assert.deepEqual(warnings, []);
  await context.close();
});

test('lang="es": Spanish text and decimal commas; the keys still move the readout', async () => {
  const { page, context, problems, warnings } = await open('<gelu-explorer lang="es" predict="gelu-quiz" derivative></gelu-explorer>');
  await ready(page);
  assert.equal(await text(page.locator('gelu-explorer [part="title"]')), 'GELU frente a ReLU');
  assert.match(await text(page.locator('gelu-explorer .status')), /^601 puntos calculados por el núcleo \(wasm [\w-]+\)\.$/);
  assert.equal(await text(page.locator('gelu-explorer [part="legend"]')),
    'GELU (aprox. tanh)GELU (exacta, erf)ReLUfinas, punteadas: derivadas f′(x)');
  assert.deepEqual(await page.locator('gelu-explorer .axis-label').allTextContents(), ['entrada x', 'f(x) y f′(x)']);
  await page.locator('gelu-explorer [data-question="gelu-quiz"] input[value="zero"]').check();
  await page.locator('gelu-explorer [data-question="gelu-quiz"] button').first().click();
  assert.equal(await text(page.locator('gelu-explorer #predict-gelu-quiz-result')),
    'Dijiste «GELU es exactamente 0 para toda entrada negativa»; la respuesta es «GELU es suave y deja pasar valores negativos ' +
    'pequeños; ReLU los lleva a 0 con un quiebre en 0». Esa es ReLU. GELU es ligeramente negativa ahí, con un mínimo de unos ' +
    '−0,17 cerca de x = −0,75.');
  const plot = page.locator('gelu-explorer .chart');
  await plot.focus();
  for (let i = 0; i < 40; i++) await plot.press('ArrowLeft'); // 1 - 40 * 0.05 = -1
  await cell(page, 'x').filter({ hasText: '−1,00' }).waitFor();
  assert.equal(await text(cell(page, 'gelu_tanh')), '−0,1588');
  assert.match(await text(cell(page, 'gelu_tanh-derivative')), /^−?0,\d{4}$/);
  await screenshot(page, 'i18n-gelu-es');
  assertClean(problems);
  assert.deepEqual(warnings, []);
  await context.close();
});

test('a German page makes the widget German; a lang change rebuilds it in the new language', async () => {
  const { page, context, problems } = await open('<gelu-explorer></gelu-explorer>', { pageLang: 'de' });
  await ready(page);
  assert.equal(await text(page.locator('gelu-explorer [part="title"]')), 'GELU vs. ReLU');
  assert.equal(await text(cell(page, 'gelu_tanh')), '0,8412');
  await page.evaluate(() => document.querySelector('gelu-explorer').setAttribute('lang', 'es'));
  await page.locator('gelu-explorer [part="title"]').filter({ hasText: 'GELU frente a ReLU' }).waitFor();
  await ready(page);
  assert.equal(await text(cell(page, 'gelu_tanh')), '0,8412');
  await page.evaluate(() => document.querySelector('gelu-explorer').setAttribute('lang', 'en'));
  await page.locator('gelu-explorer [part="title"]').filter({ hasText: 'GELU vs ReLU' }).waitFor();
  await cell(page, 'gelu_tanh').filter({ hasText: '0.8412' }).waitFor();
  assertClean(problems);
  await context.close();
});

test('Copy as PyTorch and the events are the same in English and German', async () => {
  const { page, context, problems } = await open('<gelu-explorer id="en" lang="en" x="-0.75"></gelu-explorer>' +
    '<gelu-explorer id="de" lang="de" x="-0.75"></gelu-explorer>');
  await ready(page, '#en');
  await ready(page, '#de');
  const code = await page.evaluate(() => ['en', 'de'].map((id) => document.getElementById(id).toPyTorch()));
  assert.equal(code[0], code[1]);
  assert.match(code[0], /x = torch\.tensor\(\[-0\.75\] \+ \[-3\.0, -1\.0, -0\.5/);
  for (const id of ['en', 'de']) {
    await page.locator(`#${id} details.copy summary`).click();
    await page.locator(`#${id} details.copy pre`).filter({ hasText: 'import torch' }).waitFor();
  }
  const shown = await page.evaluate(() => ['en', 'de'].map((id) => document.getElementById(id).shadowRoot.querySelector('details.copy pre').textContent));
  assert.equal(shown[0], shown[1]);
  assert.equal(shown[0], code[0]);
  // The readout events of the two widgets (same x) carry the same numbers.
  const readouts = await events(page, 'blockscope-readout');
  assert.deepEqual(latest(readouts, 'de'), latest(readouts, 'en'));
  assert.equal(latest(readouts, 'de').x, -0.75);
  // Moved by the keyboard in each, still the same.
  for (const id of ['en', 'de']) {
    await page.locator(`#${id} .chart`).focus();
    await page.locator(`#${id} .chart`).press('End');
  }
  await page.locator('#de td[data-kind="x"]').filter({ hasText: '3,00' }).waitFor();
  await page.locator('#en td[data-kind="x"]').filter({ hasText: '3.00' }).waitFor();
  const moved = await events(page, 'blockscope-readout');
  assert.deepEqual(latest(moved, 'de'), latest(moved, 'en'));
  assert.equal(latest(moved, 'de').x, 3);
  assertClean(problems);
  await context.close();
});

/** Whether the widget's element matched by `sel` (in its shadow root) is rendered. */
const visible = (page, sel) => page.evaluate((s) => {
  const el = document.querySelector('gelu-explorer').shadowRoot.querySelector(s);
  return Boolean(el?.checkVisibility()) && el.getBoundingClientRect().height > 0;
}, sel);
const CONTROLS = { range: '#min', derivative: '#deriv', difference: '#diff', 'check-form': 'select#check-form' };

test('controls="none" renders no control; controls="derivative" only that one', async () => {
  const { page, context, problems } = await open('<gelu-explorer controls="none"></gelu-explorer>');
  await ready(page);
  await page.locator('gelu-explorer details.check summary').click(); // the check-form select sits in the check panel
  for (const [group, sel] of Object.entries(CONTROLS)) assert.equal(await visible(page, sel), false, `${group} shown`);
  assert.equal(await visible(page, '#max'), false);
  assert.equal(await visible(page, '[part="controls"]'), false, 'the empty controls row takes no room');
  const tree = await page.locator('gelu-explorer').ariaSnapshot();
  assert.doesNotMatch(tree, /checkbox|spinbutton|combobox|show derivatives|x from/);
  assert.match(tree, /slider "x position of the readout"/, 'the plot (its x readout) stays');
  await page.evaluate(() => document.querySelector('gelu-explorer').setAttribute('controls', 'derivative'));
  assert.equal(await visible(page, '#deriv'), true);
  for (const sel of ['#diff', '#min', '#max', 'select#check-form']) assert.equal(await visible(page, sel), false, sel);
  await page.locator('gelu-explorer #deriv').check();
  await page.locator('gelu-explorer path[data-kind="gelu_tanh-derivative"]').waitFor();
  assertClean(problems);
  await context.close();
});

test('lock="…" shows the group disabled, and the learner cannot change it', async () => {
  const { page, context, problems } = await open('<gelu-explorer lock="derivative, range, x" sync-url></gelu-explorer>');
  await ready(page);
  const el = page.locator('gelu-explorer');
  for (const sel of ['#deriv', '#min', '#max']) {
    assert.equal(await visible(page, sel), true, `${sel} hidden`);
    assert.equal(await page.locator(`gelu-explorer ${sel}`).isDisabled(), true, `${sel} enabled`);
  }
  assert.equal(await page.locator('gelu-explorer #deriv').getAttribute('title'), 'Set by the lesson');
  assert.equal(await page.locator('gelu-explorer #diff').isDisabled(), false, 'difference is not locked');
  await page.locator('gelu-explorer #deriv').click({ force: true });
  assert.equal(await el.evaluate((w) => [w.hasAttribute('derivative'), w.hasAttribute('min'), w.set('max', 5), w.set('derivative', true)].join()),
    'false,false,false,false');
  assert.equal(await page.locator('gelu-explorer #deriv').isChecked(), false);
  // x: the plot's keys and pointer move nothing, and say the slider is read-only.
  const plot = page.locator('gelu-explorer .chart');
  assert.equal(await plot.getAttribute('aria-readonly'), 'true');
  await plot.focus();
  await plot.press('ArrowLeft');
  await plot.press('Home');
  const box = await plot.locator('svg').boundingBox();
  await page.mouse.move(box.x + box.width * 0.85, box.y + box.height * 0.5);
  await page.waitForTimeout(400); // longer than sync-url's 250 ms write-back
  assert.equal(await text(cell(page, 'x')), '1.00');
  assert.equal(await el.getAttribute('x'), null);
  // Scripts (the author's page) still set locked attributes; unlocking gives the learner the controls back.
  await el.evaluate((w) => w.setAttribute('x', '-1'));
  await cell(page, 'x').filter({ hasText: '−1.00' }).waitFor();
  await el.evaluate((w) => w.setAttribute('lock', 'range'));
  assert.equal(await plot.getAttribute('aria-readonly'), null);
  assert.equal(await page.locator('gelu-explorer #deriv').isDisabled(), false);
  await plot.press('End');
  await cell(page, 'x').filter({ hasText: '3.00' }).waitFor();
  await page.locator('gelu-explorer #deriv').check();
  await page.locator('gelu-explorer path[data-kind="gelu_tanh-derivative"]').waitFor();
  assertClean(problems);
  await context.close();
});

test('sections="chart, readout" renders only those; intro and caption slots sit inside the frame', async () => {
  const { page, context, problems } = await open('<gelu-explorer sections="chart, readout" predict="value">' +
    '<p slot="intro">Move along the curve.</p><p slot="caption">GELU dips below zero.</p></gelu-explorer>');
  await ready(page);
  for (const part of ['chart', 'readout']) assert.equal(await visible(page, `[part~="${part}"]`), true, `${part} hidden`);
  for (const part of ['title', 'legend', 'controls', 'predict', 'formula', 'eight-values', 'check', 'copy-pytorch', 'status']) {
    assert.equal(await visible(page, `[part~="${part}"]`), false, `${part} shown`);
  }
  assert.equal(await visible(page, '.copy-box'), false, 'the copy panel goes with its button');
  const frame = await page.locator('gelu-explorer').boundingBox();
  const chart = await page.locator('gelu-explorer .chart').boundingBox();
  for (const [slot, words] of [['intro', 'Move along the curve.'], ['caption', 'GELU dips below zero.']]) {
    const p = page.locator(`gelu-explorer > p[slot="${slot}"]`);
    assert.equal(await p.textContent(), words);
    const b = await p.boundingBox();
    assert.ok(b && b.height > 0, `${slot} not rendered`);
    assert.ok(b.x >= frame.x && b.x + b.width <= frame.x + frame.width && b.y >= frame.y && b.y + b.height <= frame.y + frame.height,
      `${slot} outside the frame`);
    assert.ok(slot === 'intro' ? b.y + b.height <= chart.y : b.y >= chart.y + chart.height, `${slot} on the wrong side of the chart`);
  }
  await page.evaluate(() => document.querySelector('gelu-explorer').setAttribute('sections', 'all'));
  for (const part of ['title', 'formula', 'copy-pytorch', 'eight-values']) assert.equal(await visible(page, `[part~="${part}"]`), true, part);
  assertClean(problems);
  await context.close();
});

test('an unknown control group is warned about once, naming it', async () => {
  const { page, context, problems, warnings } = await open('<gelu-explorer controls="derivative, zoom"></gelu-explorer>');
  await ready(page);
  await page.evaluate(() => document.querySelector('gelu-explorer').setAttribute('lock', 'derivative'));
  const about = warnings.filter((w) => w.includes('zoom'));
  assert.equal(about.length, 1, `warnings: ${warnings.join('\n')}`);
  assert.match(about[0], /<gelu-explorer> controls="derivative, zoom": no control group named zoom \(it has range, x, derivative, difference, check-form\)/);
  assert.equal(await visible(page, '#deriv'), true);
  assert.equal(await visible(page, '#diff'), false);
  assertClean(problems);
  await context.close();
});
