// <block-explorer> in German and Spanish, in Chromium: its words come from the message tables
// (web/widgets/i18n/<locale>/block-explorer.js) and its numbers use the locale's decimal comma, while Copy as PyTorch
// and the events stay locale-free; a page's <html lang> chooses the language; the first-wrong-step check and
// "break a step" speak it too. The author layout: controls="none" / one group, lock (the learner cannot step, rewire
// or type; a script still can), sections, the intro and caption slots, and one warning for an unknown group.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { assertClean, assertFits, browserSuite, fmt4, openPage, screenshot } from './support.mjs';

const pages = {};
const env = browserSuite({ pages });
const PRINTS = JSON.parse(readFileSync(new URL('../golden/learner-prints.json', import.meta.url), 'utf8'));

let pageCount = 0;
/**
 * Opens a page (served from memory) holding `body`, with every blockscope-* event of the widgets recorded by element
 * id and the console's warnings collected next to its errors.
 */
async function openHtml(body, { htmlLang = 'en', width = 1280, colorScheme = 'light' } = {}) {
  const path = `/i18n-block-${pageCount++}.html`;
  pages[path] = { body: `<!doctype html><html lang="${htmlLang}"><head><meta charset="utf-8"><link rel="icon" href="data:,">` +
    `<title>i18n block</title></head><body>${body}<script type="module" src="/dist/blockscope-widgets.js"></script></body></html>` };
  const session = await openPage(env.browser, { width, colorScheme });
  session.warnings = [];
  session.page.on('console', (msg) => { if (msg.type() === 'warning') session.warnings.push(msg.text()); });
  await session.page.addInitScript(() => {
    window.__events = [];
    for (const name of ['forward', 'step', 'check', 'answer']) {
      document.addEventListener(`blockscope-${name}`, (e) => window.__events.push({ type: name, id: e.target.id, detail: e.detail }));
    }
  });
  await session.page.goto(`${env.url}${path.slice(1)}`);
  return session;
}
/** Waits until widget `id` has sent an event of `type` (more than `after` of them) and returns the last one's detail. */
async function nextEvent(page, id, type, after = 0) {
  await page.waitForFunction(([i, t, n]) => window.__events.filter((e) => e.id === i && e.type === t).length > n,
    [id, type, after], { timeout: 30000 });
  return page.evaluate(([i, t]) => window.__events.filter((e) => e.id === i && e.type === t).at(-1).detail, [id, type]);
}
const count = (page, id, type) => page.evaluate(([i, t]) => window.__events.filter((e) => e.id === i && e.type === t).length, [id, type]);
/** The events of widget `id` as JSON (typed arrays included), for comparing two widgets. */
const eventsJson = (page, id, type) => page.evaluate(([i, t]) =>
  JSON.stringify(window.__events.filter((e) => e.id === i && e.type === t).map((e) => e.detail)), [id, type]);
const text = (page, selector) => page.locator(selector).first().textContent();
const comma = (s) => s.replace('.', ',');
const parse = (s) => Number(s.replace(',', '.').replace('−', '-'));

const WORDS = {
  de: {
    title: 'Ein Transformer-Block von innen: Pre-Norm oder Post-Norm', model: 'Modell', legend: 'Platzierung der LayerNorm',
    prev: '◀ Zurück', next: 'Weiter ▶', step: 'Schritt 2 von 9', depth: 'Der Residualstrom über die Tiefe',
    xLabel: 'Block (0 = Token- + Positions-Embeddings)', summary: 'Statistik', params: /\d{3}\.\d{3} Parameter, zufällige Gewichte aus dem Blockscope-Seed 123,/,
    status: /^\d+ Token, zwei Vorwärtsdurchläufe im Kern \(wasm [\w-]+\)\.$/, role: 'LayerNorm vor der Attention',
  },
  es: {
    title: 'Dentro de un bloque transformer: pre-norm frente a post-norm', model: 'Modelo', legend: 'Posición de la LayerNorm',
    prev: '◀ Anterior', next: 'Siguiente ▶', step: 'paso 2 de 9', depth: 'El flujo residual a lo largo de la profundidad',
    xLabel: 'bloque (0 = embeddings de token + posición)', summary: 'estadística', params: /\d{3}\.\d{3} parámetros, pesos aleatorios de la semilla de Blockscope 123,/,
    status: /^\d+ tokens, dos pasadas hacia delante en el núcleo \(wasm [\w-]+\)\.$/, role: 'LayerNorm antes de la atención',
  },
};

test('lang="de" and lang="es": the words of the table, decimal commas, no console errors or warnings', async () => {
  for (const [lang, w] of Object.entries(WORDS)) {
    const { page, context, problems, warnings } = await openHtml(`<block-explorer id="b" lang="${lang}"></block-explorer>`);
    await nextEvent(page, 'b', 'forward');
    await nextEvent(page, 'b', 'step');
    const b = (sel) => `#b ${sel}`;
    assert.equal(await text(page, b('h3')), w.title);
    assert.equal(await text(page, b('label[for="preset"]')), w.model);
    assert.equal(await text(page, b('.row fieldset legend')), w.legend);
    assert.equal(await text(page, b('button.prev')), w.prev);
    assert.equal(await text(page, b('button.next')), w.next);
    assert.equal(await text(page, b('#depth-title')), w.depth);
    assert.match(await text(page, b('.status')), w.status);
    assert.match(await text(page, b('.model-text')), w.params);
    assert.equal(await text(page, b('.depth svg .axis-label')), w.xLabel);
    // Next: norm1. The per-token numbers are the event's, with a decimal comma; the summary's L2 norm is ≈ √64 = 8.
    const n = await count(page, 'b', 'step');
    await page.click(b('button.next'));
    const step = await nextEvent(page, 'b', 'step', n);
    assert.equal(step.step, 'norm1');
    assert.equal(await text(page, b('.step-label')), w.step);
    assert.match(await text(page, b('.step-title')), new RegExp(`: ${w.role} \\(`));
    assert.equal(await text(page, b('table.summary th')), w.summary);
    const norms = await page.locator(b('table.tokens td[data-stat="norm"]')).allTextContents();
    assert.deepEqual(norms, step.norm.map((v) => comma(fmt4(v))));
    const summary = await text(page, b('table.summary td[data-stat="norm"]'));
    assert.match(summary, /^\d,\d{4}$/);
    assert.ok(Math.abs(parse(summary) - 8) < 1e-3, summary);
    // The depth plot: √emb_dim = 8,00 (8.00 in English); post-norm's residual norms 8,0000 after every block.
    assert.equal(await text(page, b('.depth svg .ref-label')), '√emb_dim = √64 = 8,00');
    const post = await page.locator(b('.depth-table td[data-placement="post"]')).allTextContents();
    for (const v of post.slice(1)) assert.match(v, /^(7,9999|8,0000|8,0001)$/);
    await screenshot(page, `i18n-block-${lang}`);
    assertClean(problems);
    assert.deepEqual(warnings, [], `console warnings: ${warnings.join('\n')}`);
    await context.close();
  }
});

test('a page in German (<html lang="de">) gets a German widget; its own lang switches it, and back', async () => {
  const { page, context, problems, warnings } = await openHtml('<block-explorer id="b" layers="2"></block-explorer>', { htmlLang: 'de' });
  await nextEvent(page, 'b', 'step');
  assert.equal(await text(page, '#b h3'), WORDS.de.title);
  assert.match(await text(page, '#b .status'), WORDS.de.status);
  let n = await count(page, 'b', 'forward');
  await page.evaluate(() => document.getElementById('b').setAttribute('lang', 'es'));
  await nextEvent(page, 'b', 'forward', n);
  assert.equal(await text(page, '#b h3'), WORDS.es.title);
  assert.match(await text(page, '#b .status'), WORDS.es.status);
  assert.equal(await text(page, '#b .depth svg .ref-label'), '√emb_dim = √64 = 8,00');
  n = await count(page, 'b', 'forward');
  await page.evaluate(() => document.getElementById('b').removeAttribute('lang'));
  await nextEvent(page, 'b', 'forward', n);
  assert.equal(await text(page, '#b h3'), WORDS.de.title);
  assertClean(problems);
  assert.deepEqual(warnings, []);
  await context.close();
});

test('en and de side by side: the same Copy-as-PyTorch code and the same events; the step check speaks German', async () => {
  const { page, context, problems, warnings } = await openHtml(
    '<block-explorer id="en" lang="en"></block-explorer><block-explorer id="de" lang="de"></block-explorer>' +
    '<block-explorer id="len" lang="en" preset="encoder-block-lesson82"></block-explorer>' +
    '<block-explorer id="lde" lang="de" preset="encoder-block-lesson82"></block-explorer>', { width: 1000 });
  for (const id of ['en', 'de', 'len', 'lde']) await nextEvent(page, id, 'step');
  const snippet = (id) => page.evaluate((i) => document.getElementById(i).toPyTorch(), id);
  assert.equal(await snippet('de'), await snippet('en'));
  assert.equal(await snippet('lde'), await snippet('len'));
  assert.match(await snippet('lde'), /torch\.manual_seed\(42\)/);
  assert.equal(await eventsJson(page, 'de', 'forward'), await eventsJson(page, 'en', 'forward'));
  // The last step event (a widget redraws, and says so again, when its width changes).
  assert.deepEqual(await nextEvent(page, 'de', 'step'), await nextEvent(page, 'en', 'step'));
  assert.equal(await eventsJson(page, 'lde', 'forward'), await eventsJson(page, 'len', 'forward'));
  // The lesson panel: PyTorch's printout as Python prints it; the verdict and the largest difference in German.
  assert.equal(await text(page, '#lde .lesson pre.printout'), await text(page, '#len .lesson pre.printout'));
  assert.equal(await text(page, '#lde [data-lesson="verdict"]'), 'alle 80 Ausgabewerte stimmen bis auf 1e-5 mit denen von PyTorch überein');
  assert.equal(await text(page, '#lde [data-lesson="max-diff"]'), comma(await text(page, '#len [data-lesson="max-diff"]')));
  assert.equal(await text(page, '#lde [data-lesson="params"]'), '840 = 256 + 552 + 32');
  assert.match(await text(page, '#lde .status'), /^EncoderBlock aus Lektion 82, 840 Parameter, .*stimmt mit der von PyTorch überein/);

  // The first step that disagrees: ReLU instead of GELU, pasted into both; the same check event, a German verdict.
  const relu = PRINTS.encoder_block['relu-instead-of-gelu'];
  for (const id of ['len', 'lde']) {
    await page.locator(`#${id} .step-check:not([hidden]) #break-mistake option`).first().waitFor({ state: 'attached', timeout: 30000 });
    const n = await count(page, id, 'check');
    await page.locator(`#${id} #step-input`).fill(relu.print);
    await page.locator(`#${id} .step-check button`).first().click();
    await nextEvent(page, id, 'check', n);
  }
  assert.equal(await eventsJson(page, 'lde', 'check'), await eventsJson(page, 'len', 'check'));
  assert.equal((await nextEvent(page, 'lde', 'check')).step, 'ff');
  const verdictDe = await text(page, '#lde .step-check [part="check-result"]');
  const verdictEn = await text(page, '#len .step-check [part="check-result"]');
  const diffEn = verdictEn.match(/max difference ([\d.e-]+)\)/)[1];
  assert.ok(verdictDe.startsWith(`norm1, att, add1, norm2 stimmen überein; ff ist der erste Schritt, der abweicht (größte Abweichung ${comma(diffEn)}). Ihr ff entspricht diesem Fehler: `),
    verdictDe);
  assert.equal(await text(page, '#lde .step-table tr.first td'), '✗ erste Abweichung');
  assert.equal(await text(page, '#lde .step-table th'), 'Schritt');
  // Break a step, in German: ReLU at ff; answering ff is right.
  await page.locator('#lde #break-step').selectOption('ff');
  await page.locator('#lde #break-mistake[data-step="ff"] option[value="relu-instead-of-gelu"]').waitFor({ state: 'attached' });
  await page.locator('#lde #break-mistake').selectOption('relu-instead-of-gelu');
  assert.equal(await text(page, '#lde .break button'), 'Kaputt machen');
  await page.locator('#lde .break button').first().click();
  await page.locator('#lde .break-quiz:not([hidden])').waitFor();
  await page.locator('#lde .break-quiz .quiz-answer').click();
  await page.locator('#lde .break-quiz + p').filter({ hasText: 'Wählen Sie zuerst einen Schritt.' }).waitFor();
  await page.locator('#lde .break-quiz input[value="ff"]').check();
  const n = await count(page, 'lde', 'check');
  await page.locator('#lde .break-quiz .quiz-answer').click();
  await nextEvent(page, 'lde', 'check', n);
  assert.equal(await text(page, '#lde .break-quiz + p'), 'Richtig: ff ist der erste Schritt, der abweicht.');
  const answer = await nextEvent(page, 'lde', 'answer');
  assert.deepEqual([answer.question, answer.answer, answer.expected, answer.correct], ['first-wrong-step', 'ff', 'ff', true]);
  await page.locator('#lde .step-check').scrollIntoViewIfNeeded();
  await screenshot(page, 'i18n-block-step-check-de');
  assertClean(problems);
  assert.deepEqual(warnings, []);
  await context.close();
});

test('German and Spanish fit a 360 px phone (dark), the GPT and the lesson\'s step check with its table', async () => {
  for (const lang of ['de', 'es']) {
    const { page, context, problems, warnings } = await openHtml(
      `<block-explorer id="g" lang="${lang}"></block-explorer><block-explorer id="l" lang="${lang}" preset="encoder-block-lesson82"></block-explorer>`,
      { width: 360, colorScheme: 'dark' });
    for (const id of ['g', 'l']) await nextEvent(page, id, 'step');
    await page.locator('#l .step-check:not([hidden]) #break-mistake option').first().waitFor({ state: 'attached', timeout: 30000 });
    const n = await count(page, 'l', 'check');
    await page.locator('#l #step-input').fill(PRINTS.encoder_block['no-ffn-residual'].print);
    await page.locator('#l .step-check button').first().click();
    await nextEvent(page, 'l', 'check', n);
    await page.locator('#g details.settings summary').click();
    await page.locator('#l .lesson details summary').click();
    await assertFits(page, 'block-explorer', 360, `(${lang}, GPT)`);
    await page.evaluate(() => document.getElementById('g').remove());
    await assertFits(page, 'block-explorer', 360, `(${lang}, lesson)`);
    await screenshot(page, `i18n-block-lesson-360-${lang}`);
    assertClean(problems);
    assert.deepEqual(warnings, []);
    await context.close();
  }
});

/** The widget's controls (inputs, selects, text areas, buttons) that are rendered, outside the kit's copy panel. */
const shownControls = (page, id) => page.evaluate((i) => [...document.getElementById(i).shadowRoot
  .querySelectorAll('input, select, textarea, button')]
  .filter((el) => el.checkVisibility() && !el.closest('.copy-box'))
  .map((el) => el.id || el.name || el.className || el.textContent), id);
const visible = (page, selector) => page.locator(selector).first().isVisible();

test('author layout: controls="none" and one group, lock, sections, the intro and caption slots, an unknown group', async () => {
  const { page, context, problems, warnings } = await openHtml([
    '<block-explorer id="none" controls="none" layers="2"></block-explorer>',
    '<block-explorer id="one" controls="metric" layers="2"></block-explorer>',
    '<block-explorer id="locked" lock="step, norm, prompt" layers="2"></block-explorer>',
    '<block-explorer id="parts" sections="title, stepper" layers="2"><p slot="intro">An author’s intro.</p>' +
      '<p slot="caption">An author’s caption.</p></block-explorer>',
    '<block-explorer id="unknown" controls="metric, bogus" layers="2"></block-explorer>',
    '<block-explorer id="check" controls="check" preset="encoder-block-lesson82"></block-explorer>',
    '<block-explorer id="nobreak" lock="break" preset="encoder-block-lesson82"></block-explorer>',
  ].join(''), { width: 1000 });
  for (const id of ['none', 'one', 'locked', 'parts', 'unknown', 'check', 'nobreak']) await nextEvent(page, id, 'step');

  // controls="none": no control is rendered nor in the accessibility tree; the views stay.
  assert.deepEqual(await shownControls(page, 'none'), []);
  const aria = await page.locator('#none').ariaSnapshot();
  for (const role of ['combobox', 'textbox', 'radio', 'checkbox', 'spinbutton', 'button "◀ Prev"', 'button "Next ▶"']) {
    assert.ok(!aria.includes(role), `${role} in\n${aria}`);
  }
  assert.equal(await visible(page, '#none .diagram'), true);
  assert.equal(await visible(page, '#none .depth svg'), true);
  assert.equal(await visible(page, '#none [part~="controls"]'), false, 'an empty row of controls takes no room');

  // controls="metric": only the bars' statistic.
  assert.deepEqual((await shownControls(page, 'one')).sort(), ['metric', 'metric', 'metric']);
  const n = await count(page, 'one', 'step');
  await page.locator('#one input[name="metric"][value="var"]').check();
  await nextEvent(page, 'one', 'step', n);
  assert.equal(await page.getAttribute('#one', 'metric'), 'var');

  // lock="step, norm, prompt": shown but disabled; the learner's keys, clicks and typing change nothing.
  for (const sel of ['button.prev', 'button.next', 'input[name="placement"][value="post"]', 'input#prompt']) {
    assert.equal(await page.locator(`#locked ${sel}`).isDisabled(), true, sel);
    assert.equal(await visible(page, `#locked ${sel}`), true, sel);
  }
  assert.equal(await page.locator('#locked button.next').getAttribute('title'), 'Set by the lesson');
  assert.equal(await page.locator('#locked input[name="metric"][value="mean"]').isDisabled(), false, 'metric is not locked');
  await page.focus('#locked .diagram');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('End');
  await page.locator('#locked .node[data-step="ff"]').click();
  await page.locator('#locked input[name="placement"][value="post"]').click({ force: true, timeout: 2000 }).catch(() => {});
  await page.locator('#locked button.next').click({ force: true, timeout: 2000 }).catch(() => {});
  await page.locator('#locked input#prompt').fill('Hi', { force: true, timeout: 2000 }).catch(() => {});
  await page.waitForTimeout(400); // the prompt's debounce
  for (const name of ['step', 'norm', 'prompt']) assert.equal(await page.getAttribute('#locked', name), null, name);
  assert.equal(await text(page, '#locked .step-label'), 'step 1 of 9');
  // A script still sets a locked attribute; the step buttons stay off until the lock goes.
  let k = await count(page, 'locked', 'step');
  await page.evaluate(() => document.getElementById('locked').setAttribute('step', '3'));
  await nextEvent(page, 'locked', 'step', k);
  assert.equal(await text(page, '#locked .step-label'), 'step 3 of 9');
  assert.equal(await page.locator('#locked button.prev').isDisabled(), true);
  await page.evaluate(() => document.getElementById('locked').removeAttribute('lock'));
  assert.equal(await page.locator('#locked button.prev').isDisabled(), false);
  k = await count(page, 'locked', 'step');
  await page.click('#locked button.next');
  assert.equal((await nextEvent(page, 'locked', 'step', k)).index, 3);

  // sections="title, stepper": only those panels (controls are not sections); the author's slots inside the frame.
  for (const [sel, shown] of [['h3', true], ['.stepper-wrap', true], ['.depth-section', false], ['.status', false],
    ['[part="copy-pytorch"]', false], ['#preset', true]]) assert.equal(await visible(page, `#parts ${sel}`), shown, sel);
  const box = await page.locator('#parts').boundingBox();
  const title = await page.locator('#parts h3').boundingBox();
  const stepper = await page.locator('#parts .stepper-wrap').boundingBox();
  const intro = await page.locator('#parts [slot="intro"]').boundingBox();
  const caption = await page.locator('#parts [slot="caption"]').boundingBox();
  for (const [name, b] of [['intro', intro], ['caption', caption]]) {
    assert.ok(b && b.y >= box.y && b.y + b.height <= box.y + box.height && b.x >= box.x, `${name} inside the widget`);
  }
  assert.ok(intro.y > title.y && intro.y < stepper.y, 'the intro under the title');
  assert.ok(caption.y > stepper.y, 'the caption below the stepper');

  // controls="metric, bogus": one warning naming bogus, also after the widget redraws.
  k = await count(page, 'unknown', 'step');
  await page.evaluate(() => document.getElementById('unknown').setAttribute('metric', 'mean'));
  await nextEvent(page, 'unknown', 'step', k);
  const bogus = warnings.filter((w) => w.includes('bogus'));
  assert.equal(bogus.length, 1, warnings.join('\n'));
  assert.match(bogus[0], /<block-explorer> controls="metric, bogus": no control group named bogus/);
  assert.deepEqual(await shownControls(page, 'unknown'), ['metric', 'metric', 'metric']);

  // The lesson's step check: controls="check" shows the paste box and its button, not the practice nor the model menu.
  await page.locator('#check .step-check:not([hidden])').waitFor();
  assert.deepEqual((await shownControls(page, 'check')).sort(), ['Find the first step that disagrees', 'paste-step', 'step-input']);
  // lock="break": the practice is shown but disabled.
  await page.locator('#nobreak #break-mistake option').first().waitFor({ state: 'attached', timeout: 30000 });
  for (const sel of ['#break-step', '#break-mistake', '.break button']) {
    assert.equal(await page.locator(`#nobreak ${sel}`).first().isDisabled(), true, sel);
  }
  assert.equal(await page.locator('#nobreak #step-input').isDisabled(), false);
  await screenshot(page, 'i18n-block-layout');
  assertClean(problems);
  assert.deepEqual(warnings.filter((w) => !w.includes('bogus')), []);
  await context.close();
});
