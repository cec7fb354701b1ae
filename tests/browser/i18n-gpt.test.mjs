// <gpt-explorer> in German and Spanish, and laid out by an author, in Chromium (the shipped model, web/models/brown):
// lang="de" / lang="es" word the widget from the message tables (i18n/<locale>/gpt-explorer.js) and write its numbers
// with a decimal comma, a German host page (<html lang="de">) makes it German, a change of lang rebuilds it in the
// new language, while its events and its Copy as PyTorch stay the same in every language; controls="…" shows only the
// named control groups (none: no control at all, not even in the accessibility tree), lock="…" disables them and
// refuses the learner's edits, sections="…" renders only the named panels, the author's intro and caption slots show
// inside the frame, and an unknown group name is warned about once.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { assertClean, browserSuite, openPage, screenshot } from './support.mjs';

// Pages made by the tests, served by the project's server (real responses: see support.mjs startServer).
const pages = {};
const env = browserSuite({ pages });

let served = 0;
/**
 * Opens a page of `body` (the widget bundle loaded first) in `<html lang>`, recording each widget's forward and
 * model events by its id (window.__ev[id].forward, …) and the console's warnings (problems.warnings).
 */
async function openHtml(body, { lang = 'en', width = 1280 } = {}) {
  const path = `i18n-gpt-${++served}.html`;
  pages[`/${path}`] = { body: `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><link rel="icon" href="data:,">` +
    `<title>i18n</title></head><body><script type="module" src="/dist/blockscope-widgets.js"></script>${body}</body></html>` };
  const { page, context, problems } = await openPage(env.browser, { width });
  problems.warnings = [];
  page.on('console', (msg) => {
    if (msg.type() === 'warning') problems.warnings.push(msg.text());
  });
  await page.addInitScript(() => {
    window.__ev = {};
    for (const name of ['forward', 'model']) {
      document.addEventListener(`blockscope-${name}`, (e) => {
        const mine = (window.__ev[e.target.id] ??= {});
        (mine[name] ??= []).push(e.detail);
      });
    }
  });
  await page.goto(`${env.url}${path}`);
  return { page, context, problems };
}

/** Waits until the widgets `ids` have shown a forward pass (and their attention heatmap). */
async function waitForPasses(page, ...ids) {
  for (const id of ids) {
    await page.waitForFunction((i) => window.__ev[i]?.forward?.length > 0, id, { timeout: 60000 });
    await page.locator(`#${id} .att-heat svg`).waitFor({ state: 'attached' });
  }
}

const text = (page, selector) => page.locator(selector).first().textContent();

/** An event's detail as JSON (typed arrays as lists), for comparing two widgets'. */
const detailJson = (page, id, name) => page.evaluate(([i, n]) => JSON.stringify(window.__ev[i][n].at(-1),
  (k, v) => (ArrayBuffer.isView(v) ? Array.from(v) : v)), [id, name]);

test('lang="de" next to English: German words, decimal commas, the same events and PyTorch code', async () => {
  const { page, context, problems } = await openHtml('<gpt-explorer id="en" loading="eager"></gpt-explorer>' +
    '<gpt-explorer id="de" lang="de" loading="eager"></gpt-explorer>');
  await waitForPasses(page, 'en', 'de');

  assert.equal(await text(page, '#de h3'), 'Ein GPT-Vorwärtsdurchlauf in diesem Tab');
  assert.equal(await text(page, '#de section.next h4'), 'Vorhersage des nächsten Tokens');
  assert.equal(await text(page, '#de fieldset.weights legend'), 'Gewichte');
  assert.equal(await text(page, '#de button.generate'), 'Generieren');
  assert.equal(await text(page, '#de label[for="seed"]'), 'Blockscope-Seed der zufälligen Gewichte ');
  assert.match(await text(page, '#de .status'), /^\d+ Tokens durch \d+ Blöcke in \d+ ms \(wasm [\w-]+, in einem Worker\)\.$/);
  assert.match(await text(page, '#de .model-text'), /trainiert auf dem Brown-Korpus \(Kapitel 5 des Buchs\)\.$/);
  assert.match(await text(page, '#de .gen-model'), /^Generiert wird mit dem trainierten Modell \(Brown-Korpus\)\.$/);
  assert.equal(await text(page, '#en h3'), 'A GPT forward pass in this tab');

  // Numbers: the uniform baseline, the LayerNorm readout, the top logit and the parameter count — a point in English,
  // a comma in German (and a point for thousands).
  assert.equal(await text(page, '#en .uniform-label'), 'uniform 1/256 = 0.39 %');
  assert.equal(await text(page, '#de .uniform-label'), 'gleichverteilt 1/256 = 0,39 %');
  const enReadout = (await text(page, '#en .ln-readout')).match(/: (−?\d+\.\d{4})$/)[1];
  assert.match(await text(page, '#de .ln-readout'), new RegExp(`^Block 1, Token „.*“ \\(Position \\d+\\): ${enReadout.replace('.', ',')}$`));
  const enLogit = await text(page, '#en table.candidates.trained td.logit');
  assert.match(enLogit, /^−?\d+\.\d{4}$/);
  assert.equal(await text(page, '#de table.candidates.trained td.logit'), enLogit.replace('.', ','));
  const enParams = (await text(page, '#en .model-text')).match(/— ([\d,]+) parameters/)[1];
  assert.match(enParams, /,/, 'the model has more than 999 parameters');
  assert.match(await text(page, '#de .model-text'), new RegExp(`– ${enParams.replace(/,/g, '\\.')} Parameter`));

  // Locale-free: events and Copy as PyTorch.
  assert.equal(await detailJson(page, 'de', 'forward'), await detailJson(page, 'en', 'forward'));
  assert.equal(await detailJson(page, 'de', 'model'), await detailJson(page, 'en', 'model'));
  const code = await page.evaluate(() => ['en', 'de'].map((id) => document.getElementById(id).toPyTorch()));
  assert.match(code[0], /# <gpt-explorer> as PyTorch: trained on the Brown corpus/);
  assert.equal(code[1], code[0]);

  await screenshot(page, 'i18n-gpt-de');
  assertClean(problems);
  assert.deepEqual(problems.warnings, []);
  await context.close();
});

test('lang="es", a German host page, and a change of lang rebuilding the widget in English', async () => {
  const { page, context, problems } = await openHtml('<gpt-explorer id="host" loading="eager"></gpt-explorer>' +
    '<gpt-explorer id="es" lang="es" loading="eager"></gpt-explorer>', { lang: 'de' });
  await waitForPasses(page, 'host', 'es');

  // The host page's lang decides for a widget without its own.
  assert.equal(await text(page, '#host h3'), 'Ein GPT-Vorwärtsdurchlauf in diesem Tab');
  assert.equal(await text(page, '#host section.gen h4'), 'Generieren');

  assert.equal(await text(page, '#es h3'), 'Una pasada hacia delante de GPT en esta pestaña');
  assert.equal(await text(page, '#es button.generate'), 'Generar');
  assert.equal(await text(page, '#es .interpret h4'), '¿Qué capa, qué cabeza, qué token?');
  assert.equal(await text(page, '#es .lens thead th'), 'capa');
  assert.match(await text(page, '#es .status'), /^\d+ tokens a través de \d+ bloques en \d+ ms \(wasm [\w-]+, en un worker\)\.$/);
  assert.equal(await text(page, '#es .uniform-label'), 'uniforme 1/256 = 0,39 %');
  assert.match(await text(page, '#es .ln-readout'), /^bloque 1, token «.*» \(posición \d+\): −?\d+,\d{4}$/);
  assert.match(await text(page, '#es .att-readout'), /^La query «.*» \(posición \d+\) atiende a «.*» \(posición \d+\) con peso \d,\d{4}\.$/);
  assert.match(await text(page, '#es table.candidates.trained td.prob'), /^\d+,\d{2} %$/);

  // lang="en" on the Spanish one: the same model, the panels drawn again in English.
  const passes = await page.evaluate(() => window.__ev.es.forward.length);
  await page.evaluate(() => document.getElementById('es').setAttribute('lang', 'en'));
  await page.waitForFunction((n) => window.__ev.es.forward.length > n, passes);
  await page.locator('#es .att-heat svg').waitFor();
  assert.equal(await text(page, '#es h3'), 'A GPT forward pass in this tab');
  assert.equal(await text(page, '#es .uniform-label'), 'uniform 1/256 = 0.39 %');
  assert.match(await text(page, '#es .status'), /^\d+ tokens through \d+ blocks in /);
  assert.equal(await page.locator('#es .heads input[type="checkbox"]').count(), 24, 'the ablation checkboxes are back');
  assert.equal(await page.locator('#es table.candidates').count(), 2);

  await screenshot(page, 'i18n-gpt-es');
  assertClean(problems);
  assert.deepEqual(problems.warnings, []);
  await context.close();
});

/** The widget's controls (inputs, selects, textareas, buttons) but Copy as PyTorch and Download the weights, by id or class. */
const shownControls = (page, id) => page.evaluate((i) => [...document.getElementById(i).shadowRoot
  .querySelectorAll('input, select, textarea, button')]
  .filter((el) => !el.matches('[part~="copy-pytorch"], [part~="download-weights"]') && el.checkVisibility())
  .map((el) => el.id || el.className), id);

test('controls, lock and sections lay the widget out; slots show the author\'s prose; an unknown group is warned about', async () => {
  const { page, context, problems } = await openHtml(
    '<gpt-explorer id="none" controls="none" loading="eager"></gpt-explorer>' +
    '<gpt-explorer id="one" controls="prompt" loading="eager"></gpt-explorer>' +
    '<gpt-explorer id="locked" lock="prompt, weights, block, ablation" loading="eager">' +
    '<p slot="intro">Author intro</p><p slot="caption">Author caption</p></gpt-explorer>' +
    '<gpt-explorer id="parts" sections="title,candidates" loading="eager"></gpt-explorer>' +
    '<gpt-explorer id="typo" controls="prompt,bogus" loading="eager"></gpt-explorer>');
  await waitForPasses(page, 'none', 'one', 'locked', 'parts', 'typo');

  // controls="none": no control is rendered, nor in the accessibility tree (Copy as PyTorch is a section).
  assert.deepEqual(await shownControls(page, 'none'), []);
  const tree = await page.locator('#none').ariaSnapshot();
  const controls = tree.split('\n').filter((l) => /- (textbox|radio|checkbox|slider|combobox|spinbutton|button)\b/.test(l));
  assert.deepEqual(controls.map((l) => l.trim()), ['- button "Copy as PyTorch"'], tree);
  assert.equal(await page.locator('#none .heads input').count(), 24, 'the ablation checkboxes exist, hidden');

  // controls="prompt": the prompt box alone.
  assert.deepEqual(await shownControls(page, 'one'), ['prompt']);

  // lock="prompt, weights, block, ablation": shown, disabled, and the learner's edits change no attribute.
  const states = await page.evaluate(() => {
    const r = document.getElementById('locked').shadowRoot;
    const q = (s) => r.querySelector(s);
    return { prompt: q('#prompt').disabled, trained: q('#weights-trained').disabled, untrained: q('#weights-untrained').disabled,
      layer: q('#layer').disabled, head: q('#head').disabled, box: q('.heads input').disabled, stat: q('#stat').disabled,
      temperature: q('#temperature').disabled, shown: q('#prompt').checkVisibility() && q('#layer').checkVisibility() };
  });
  assert.deepEqual(states, { prompt: true, trained: true, untrained: true, layer: true, head: true, box: true, stat: false,
    temperature: false, shown: true });
  await page.locator('#locked label[for="weights-untrained"]').click({ force: true }); // a disabled radio's label
  await page.evaluate(() => {
    const r = document.getElementById('locked').shadowRoot;
    const fire = (el, type) => el.dispatchEvent(new Event(type, { bubbles: true }));
    r.querySelector('#prompt').value = 'A learner types here';
    fire(r.querySelector('#prompt'), 'input');
    r.querySelector('#weights-untrained').checked = true;
    fire(r.querySelector('#weights-untrained'), 'change');
    r.querySelector('#layer').value = '3';
    fire(r.querySelector('#layer'), 'change');
    r.querySelector('.heads input').checked = true;
    fire(r.querySelector('.heads input'), 'change');
  });
  await page.locator('#locked select#stat').selectOption('mean'); // not locked
  await page.waitForTimeout(600); // past the prompt box's debounce
  assert.deepEqual(await page.evaluate(() => ['prompt', 'weights', 'layer', 'ablate', 'stat']
    .map((name) => document.getElementById('locked').getAttribute(name))), [null, null, null, null, 'mean']);
  assert.equal(await page.evaluate(() => window.__ev.locked.forward.at(-1).weights), 'trained');

  // The author's intro (under the title) and caption, inside the frame.
  const slots = await page.evaluate(() => {
    const r = document.getElementById('locked').shadowRoot;
    return ['intro', 'caption'].map((name) => {
      const slot = r.querySelector(`slot[name="${name}"]`);
      const [p] = slot.assignedElements();
      return { text: p?.textContent, shown: Boolean(p?.checkVisibility()), afterTitle: slot.previousElementSibling?.localName };
    });
  });
  assert.deepEqual(slots.map((s) => [s.text, s.shown]), [['Author intro', true], ['Author caption', true]]);
  assert.equal(slots[0].afterTitle, 'h3');

  // sections="title,candidates": those two panels only.
  const sections = await page.evaluate(() => {
    const r = document.getElementById('parts').shadowRoot;
    return Object.fromEntries(['title', 'description', 'model', 'prompt', 'candidates', 'copy-pytorch', 'interpret', 'block',
      'layernorm', 'generate', 'status'].map((part) => [part, r.querySelector(`[part~="${part}"]`).checkVisibility()]));
  });
  assert.deepEqual(sections, { title: true, description: false, model: false, prompt: false, candidates: true,
    'copy-pytorch': false, interpret: false, block: false, layernorm: false, generate: false, status: false });
  assert.equal(await page.locator('#parts table.candidates').count(), 2);

  // controls="prompt,bogus": one warning naming bogus; the prompt box still shows.
  const warned = problems.warnings.filter((w) => w.includes('bogus'));
  assert.equal(warned.length, 1, problems.warnings.join('\n'));
  assert.match(warned[0], /<gpt-explorer> controls="prompt,bogus": no control group named bogus/);
  assert.deepEqual(await shownControls(page, 'typo'), ['prompt']);
  assert.deepEqual(problems.warnings.filter((w) => !w.includes('bogus')), []);

  await screenshot(page, 'i18n-gpt-layout');
  assertClean(problems);
  await context.close();
});
