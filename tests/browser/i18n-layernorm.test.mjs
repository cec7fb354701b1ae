// <layernorm-explorer> in other languages and in an author's layout, in Chromium: lang="de" and lang="es" show the
// table's words and the core's numbers with a decimal comma (the English page shows 4.0000, −1.3416 …); a German
// page (<html lang="de">) makes a widget without lang German; Copy as PyTorch and the change event stay the same in
// every language; controls="none" hides every control (layout, accessibility tree) while the author's intro and
// caption appear inside the frame; controls="<groups>" shows only those; lock="…" shows them disabled and the
// learner's keyboard and clicks change nothing; sections="…" renders only those sections; an unknown group is named
// in one console warning.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { assertClean, browserSuite, openPage, screenshot, widgetPage } from './support.mjs';

const TAG = 'layernorm-explorer';
const PAGES = {};
const env = browserSuite({ pages: PAGES });

/** Registers an in-memory page at `path` (support.mjs widgetPage). */
const page = (path, body, options) => widgetPage(PAGES, path, body, options);

const ARTICLE = (widget) => `<article style="max-width: 640px; margin: 2rem auto; font: 17px/1.6 Georgia, serif">
  <h1>Lesson 82 · LayerNorm</h1>
  <p>A transformer block normalizes every token before attention and before the feed-forward network. LayerNorm takes
    the mean and the variance of one token's own features, so each token is normalized on its own.</p>
  <p>Below, the lesson's three tokens. The first, [1, 3, 5, 7], has mean 4 and variance 5.</p>
  ${widget}
  <p>Notice that token 2 is ten times token 1: LayerNorm gives both the same normalized vector.</p>
  <p>Next we scale and shift the normalized values with γ and β.</p>
</article>`;

const DE = page('/i18n/layernorm-de.html', `<${TAG} lang="de"></${TAG}>`);
const ES = page('/i18n/layernorm-es.html', `<${TAG} lang="es"></${TAG}>`);
const HOST_DE = page('/i18n/layernorm-host-de.html', `<main><${TAG}></${TAG}></main>`, { lang: 'de' });
const PAIR = page('/i18n/layernorm-en-de.html', ['en', 'de'].map((l) =>
  `<${TAG} id="${l}" lang="${l}" values="1, 2.5, -3; 4, 5, 6.25" gamma="1.3" beta="-0.2" eps="0.001"></${TAG}>`).join(''));
const NONE = page('/i18n/layernorm-controls-none.html', ARTICLE(`<${TAG} controls="none">
    <p slot="intro">Read the mean and the variance of token 1 first, then compare the two charts.</p>
    <p slot="caption">Before (blue) and after (green): the normalized token has mean 0 and variance 1.</p>
  </${TAG}>`));
const PLAIN = page('/i18n/layernorm-plain.html', `<${TAG}></${TAG}>`);
const LOCKED = page('/i18n/layernorm-locked.html', `<${TAG} lock="gamma, tokens, axis"></${TAG}>`);
const SECTIONS = page('/i18n/layernorm-sections.html', `<${TAG} sections="title, sequence"></${TAG}>`);
const UNKNOWN = page('/i18n/layernorm-unknown.html', `<${TAG} controls="tokens, colour"></${TAG}>`);

/** Opens `path` and waits until every widget on it shows the core's numbers (every language names wasm). */
async function open(path, options = {}) {
  const session = await openPage(env.browser, options);
  session.warnings = [];
  session.page.on('console', (msg) => msg.type() === 'warning' && session.warnings.push(msg.text()));
  await session.page.goto(`${env.url}${path.slice(1)}`);
  await session.page.waitForFunction((tag) => [...document.querySelectorAll(tag)].every((el) =>
    /wasm/.test(el.shadowRoot?.querySelector('.status')?.textContent ?? '')), TAG, { timeout: 20000 });
  return session;
}

const $ = (p, selector) => p.locator(`${TAG} ${selector}`).first();
const texts = (p, selector) => p.locator(`${TAG} ${selector}`).allTextContents();
const visible = (p, selector) => p.evaluate(([tag, s]) => {
  const el = document.querySelector(tag).shadowRoot.querySelector(s);
  if (!el) throw new Error(`no ${s}`);
  return el.checkVisibility();
}, [TAG, selector]);
const attr = (p, name) => p.evaluate(([tag, n]) => document.querySelector(tag).getAttribute(n), [TAG, name]);
const setAttr = (p, name, value) => p.evaluate(([tag, n, v]) => {
  const el = document.querySelector(tag);
  if (v === null) el.removeAttribute(n);
  else el.setAttribute(n, v);
}, [TAG, name, value]);
// Every control group's controls, and the containers that hold nothing else.
const CONTROLS = { tokens: ['#preset', '#tok-0', 'button.nudge', 'button.add', 'fieldset.tokens-fs'], gamma: ['#gamma'],
  beta: ['#beta'], axis: ['#wrong-axis'], token: ['#token'] };

test('lang="de": German labels and status, numbers with a decimal comma, no console errors or warnings', async () => {
  const { page: p, context, problems, warnings } = await open(DE);
  assert.equal(await $(p, 'h3').textContent(), 'LayerNorm: jedes Token über seine Merkmale normalisieren');
  assert.match(await $(p, '.status').textContent(), /^Vom Kern berechnet \(wasm [\w-]+\): T = 3 Token × d = 4 Merkmale\.$/);
  // The en page shows 4.0000, 5.0000 and ±1.3416, ±0.4472 (layernorm-explorer.test.mjs).
  assert.equal(await $(p, '[data-stat="mean"]').textContent(), '4,0000');
  assert.equal(await $(p, '[data-stat="variance"]').textContent(), '5,0000');
  assert.deepEqual(await texts(p, 'table.detail td[data-col="normalized"]'), ['−1,3416', '−0,4472', '0,4472', '1,3416']);
  assert.deepEqual(await texts(p, 'table.sequence td[data-stat="mean"]'), ['4,0000', '25,0000', '2,0000']);
  assert.equal(await $(p, 'output[for="gamma"]').textContent(), '1,0');
  assert.equal(await $(p, 'label[for="gamma"]').textContent(), 'γ (Skalierung)');
  assert.equal(await $(p, 'button.add').textContent(), 'Token hinzufügen');
  assert.match(await $(p, '#axis-help').textContent(), /Legen Sie den Schalter um/);
  assert.equal(await $(p, '.detail-chart svg title').textContent(), 'Token 1 vor und nach LayerNorm');
  assert.equal(await $(p, '.detail-chart svg desc').textContent(), 'Token 1, Merkmal für Merkmal. Vorher: 1,0000; 3,0000; ' +
    '5,0000; 7,0000. Nachher: −1,3416; −0,4472; 0,4472; 1,3416. Mittelwert 4,0000, Varianz 5,0000.');
  // An edit is reported in German.
  await $(p, 'button[aria-label="Zum ersten Merkmal von Token 3 1 addieren"]').click();
  await $(p, '.report').filter({ hasText: 'Sie haben Token 3 geändert' }).waitFor();
  assert.equal(await $(p, '.report').textContent(),
    'Sie haben Token 3 geändert; nur die Ausgabe von Token 3 hat sich geändert — jedes Token wird für sich normalisiert.');
  // An invalid edit: the widget's own message in German.
  await $(p, '#tok-0').fill('1, 2, 3');
  await $(p, '#tok-0-error').waitFor(); // under the field
  assert.equal(await $(p, '#tok-0-error').textContent(),
    'Token 2 hat 4 Merkmale, Token 1 aber 3; alle Token brauchen dasselbe d — die letzten gültigen Token werden angezeigt.');
  await $(p, '#tok-0').fill('1, 3, 5, 7');
  await $(p, '#tok-0-error').waitFor({ state: 'detached' });
  // A prediction's prompt names the token with its values in German notation.
  await setAttr(p, 'predict', 'mean');
  assert.equal(await $(p, '[data-question="mean"] .prompt').textContent(),
    'Sagen Sie den Mittelwert μ von Token 1 ([1,00; 3,00; 5,00; 7,00]) voraus.');
  assert.deepEqual(warnings, []);
  assertClean(problems);
  await context.close();
});

test('lang="es": Spanish labels and numbers, the book preset\'s note and the BatchNorm comparison', async () => {
  const { page: p, context, problems, warnings } = await open(ES);
  assert.equal(await $(p, 'h3').textContent(), 'LayerNorm: normalizar cada token sobre sus características');
  assert.match(await $(p, '.status').textContent(), /^Calculado por el núcleo \(wasm [\w-]+\): T = 3 tokens × d = 4 características\.$/);
  assert.equal(await $(p, '[data-stat="mean"]').textContent(), '4,0000');
  assert.equal(await $(p, 'label[for="beta"]').textContent(), 'β (desplazamiento)');
  assert.equal(await $(p, 'label[for="preset"]').textContent(), 'Ejemplo');
  assert.equal(await $(p, 'h4 label[for="token"]').textContent(), 'Token en detalle ');
  await screenshot(p, 'i18n-layernorm-es');
  await $(p, '#preset').selectOption('book');
  await $(p, 'table.sequence td[data-stat="mean"]').filter({ hasText: '0,1324' }).waitFor();
  const note = await $(p, '.book-note').textContent();
  assert.match(note, /la estimación insesgada \(÷ \(n − 1\)\): 0,0231 y 0,0398/);
  assert.match(note, /0,0192 y 0,0332\.$/);
  await $(p, 'details.batchnorm summary').click();
  await $(p, '.bn-verdict').filter({ hasText: 'El mismo token' }).waitFor();
  assert.match(await $(p, '.bn-verdict').textContent(), /se mueve hasta \d+,\d{4} cuando cambia/);
  assert.match(await $(p, 'table.bn-table td[data-batch="A"]').textContent(), /^\[−?\d,\d{4}; /);
  assert.deepEqual(warnings, []);
  assertClean(problems);
  await context.close();
});

test('a German page (<html lang="de">) makes a widget without lang German', async () => {
  const { page: p, context, problems } = await open(HOST_DE);
  assert.equal(await $(p, 'h3').textContent(), 'LayerNorm: jedes Token über seine Merkmale normalisieren');
  assert.equal(await $(p, '[data-stat="mean"]').textContent(), '4,0000');
  // Its lang attribute wins over the page's, and changing it rebuilds the widget in that language.
  await setAttr(p, 'lang', 'en');
  await $(p, '.status').filter({ hasText: 'Computed by the core' }).waitFor();
  assert.equal(await $(p, 'h3').textContent(), 'LayerNorm: normalize each token over its features');
  assert.equal(await $(p, '[data-stat="mean"]').textContent(), '4.0000');
  assertClean(problems);
  await context.close();
});

test('Copy as PyTorch and the change event are identical in English and German', async () => {
  const session = await openPage(env.browser);
  const { page: p, context, problems } = session;
  await p.addInitScript(() => {
    window.__changes = { en: [], de: [] };
    document.addEventListener('blockscope-change', (e) => window.__changes[e.target.id]?.push(e.detail));
  });
  await p.goto(`${env.url}${PAIR.slice(1)}`);
  await p.waitForFunction(() => window.__changes.en.length && window.__changes.de.length, null, { timeout: 20000 });
  const { changes, code } = await p.evaluate(() => ({ changes: window.__changes,
    code: Object.fromEntries(['en', 'de'].map((id) => [id, document.getElementById(id).toPyTorch()])) }));
  assert.deepEqual(changes.de.at(-1), changes.en.at(-1));
  assert.deepEqual(changes.en.at(-1).gamma, 1.3);
  assert.equal(code.de, code.en);
  assert.match(code.de, /ln\.weight\.fill_\(1\.3\)/);
  assert.match(code.de, /\[1\.0, 2\.5, -3\.0\],\n\s+\[4\.0, 5\.0, 6\.25\]/);
  // What the learner reads differs: 1.3 and 1,3.
  assert.equal(await p.locator('#en output[for="gamma"]').textContent(), '1.3');
  assert.equal(await p.locator('#de output[for="gamma"]').textContent(), '1,3');
  assertClean(problems);
  await context.close();
});

test('controls="none" in a lesson column: no control is rendered; the author\'s intro and caption are inside the frame', async () => {
  const { page: p, context, problems, warnings } = await open(NONE, { width: 900, height: 1000 });
  for (const selector of [...Object.values(CONTROLS).flat(), 'fieldset.affine']) {
    assert.equal(await visible(p, selector), false, `${selector} is visible`);
  }
  const box = await $(p, '#gamma').boundingBox();
  assert.equal(box, null, 'the γ slider takes no room');
  const tree = await p.locator(TAG).ariaSnapshot();
  for (const role of ['slider', 'combobox', 'checkbox', 'switch', 'textbox', 'spinbutton']) {
    assert.ok(!tree.includes(`- ${role}`), `a ${role} is in the accessibility tree:\n${tree}`);
  }
  assert.ok(!tree.includes('Add a token'));
  // The numbers are still there, and the heading names the token shown.
  assert.equal(await $(p, '[data-stat="mean"]').textContent(), '4.0000');
  assert.equal(await visible(p, '.token-name'), true);
  assert.equal(await $(p, '.token-name').textContent(), 'Token 1 in detail');
  // The author's prose: inside the widget's frame, the intro under the title, the caption under the first chart.
  const frame = await p.locator(TAG).boundingBox();
  const intro = await p.locator(`${TAG} > p[slot="intro"]`).boundingBox();
  const caption = await p.locator(`${TAG} > p[slot="caption"]`).boundingBox();
  const title = await $(p, 'h3').boundingBox();
  const chart = await $(p, '.detail-chart').boundingBox();
  for (const [name, b] of [['intro', intro], ['caption', caption]]) {
    assert.ok(b.x >= frame.x && b.x + b.width <= frame.x + frame.width + 0.5, `${name} is outside the frame horizontally`);
    assert.ok(b.y >= frame.y && b.y + b.height <= frame.y + frame.height, `${name} is outside the frame vertically`);
  }
  assert.ok(intro.y >= title.y + title.height - 0.5, 'the intro is under the title');
  assert.ok(caption.y >= chart.y + chart.height - 0.5, 'the caption is under the chart');
  assert.ok(frame.width <= 640, `the widget is ${frame.width} px wide in a 640 px column`);
  await screenshot(p, 'layout-controls-none');
  assert.deepEqual(warnings, []);
  assertClean(problems);
  await context.close();
});

test('controls="gamma" shows only the γ slider; controls="tokens,gamma" the tokens and γ', async () => {
  const { page: p, context, problems, warnings } = await open(PLAIN);
  const shown = async () => Object.fromEntries(await Promise.all(Object.entries(CONTROLS).map(async ([group, selectors]) =>
    [group, (await Promise.all(selectors.map((s) => visible(p, s)))).every(Boolean)])));
  assert.deepEqual(await shown(), { tokens: true, gamma: true, beta: true, axis: true, token: true });
  await setAttr(p, 'controls', 'gamma');
  assert.deepEqual(await shown(), { tokens: false, gamma: true, beta: false, axis: false, token: false });
  for (const s of CONTROLS.tokens) assert.equal(await visible(p, s), false, s);
  assert.equal(await visible(p, 'fieldset.affine'), true);
  assert.equal(await visible(p, '#beta'), false);
  await setAttr(p, 'controls', 'tokens, gamma');
  assert.deepEqual(await shown(), { tokens: true, gamma: true, beta: false, axis: false, token: false });
  // The learner still edits what is shown.
  await $(p, '#tok-0').fill('2, 4, 6, 8');
  await $(p, '[data-stat="mean"]').filter({ hasText: '5.0000' }).waitFor();
  await setAttr(p, 'controls', null);
  assert.deepEqual(await shown(), { tokens: true, gamma: true, beta: true, axis: true, token: true });
  assert.deepEqual(warnings, []);
  assertClean(problems);
  await context.close();
});

test('lock="gamma, tokens, axis": shown disabled; the learner\'s keys and clicks change nothing, scripts still do', async () => {
  const { page: p, context, problems, warnings } = await open(LOCKED);
  const disabled = (s) => p.evaluate(([tag, sel]) => [...document.querySelector(tag).shadowRoot.querySelectorAll(sel)]
    .map((el) => el.disabled), [TAG, s]);
  for (const s of ['#gamma', '#preset', '#tok-0', 'button.nudge', 'button.add', '#wrong-axis']) {
    assert.equal(await visible(p, s), true, `${s} is hidden`);
    assert.ok((await disabled(s)).every(Boolean), `${s} is not disabled`);
  }
  assert.equal(await $(p, '#gamma').getAttribute('title'), 'Set by the lesson');
  assert.deepEqual(await disabled('#beta'), [false]);
  // Keyboard on the slider, typing into a token, the +1 button, the switch: nothing changes.
  await $(p, '#gamma').focus();
  await p.keyboard.press('ArrowRight');
  await $(p, '#tok-0').click({ force: true });
  await p.keyboard.type('9');
  await $(p, 'button.nudge').click({ force: true });
  await $(p, 'label.switch').click({ force: true });
  await $(p, '#preset').selectOption('single', { force: true }).catch(() => {});
  await p.waitForTimeout(200);
  assert.deepEqual([await attr(p, 'gamma'), await attr(p, 'values'), await attr(p, 'axis')], [null, null, null]);
  assert.equal(await $(p, '#tok-0').inputValue(), '1, 3, 5, 7');
  assert.equal(await $(p, '[data-stat="mean"]').textContent(), '4.0000');
  assert.equal(await p.evaluate((tag) => document.querySelector(tag).set('gamma', 2), TAG), false);
  // β is not locked: the keyboard moves it.
  await $(p, '#beta').focus();
  await p.keyboard.press('ArrowRight');
  await p.waitForFunction((tag) => document.querySelector(tag).getAttribute('beta') === '0.1', TAG);
  // A script (the page's author) still sets a locked attribute; rows built for new tokens come locked too.
  await setAttr(p, 'values', '1, 2; 3, 4; 5, 6; 7, 9');
  await $(p, '#tok-3').waitFor();
  assert.ok((await disabled('.tokens input, .tokens button, button.add')).every(Boolean));
  await setAttr(p, 'gamma', '2');
  await $(p, 'output[for="gamma"]').filter({ hasText: '2.0' }).waitFor();
  // Unlocked: the controls work again, each with its own enabled state (✕ with 4 tokens, Add below 8).
  await setAttr(p, 'lock', null);
  assert.ok((await disabled('.tokens input, .tokens button, button.add, #gamma, #wrong-axis')).every((d) => !d));
  await $(p, '#gamma').focus();
  await p.keyboard.press('ArrowRight');
  await p.waitForFunction((tag) => document.querySelector(tag).getAttribute('gamma') === '2.1', TAG);
  assert.deepEqual(warnings, []);
  assertClean(problems);
  await context.close();
});

test('sections="title, sequence" renders only the title and the whole sequence', async () => {
  const { page: p, context, problems, warnings } = await open(SECTIONS);
  const parts = await p.evaluate((tag) => Object.fromEntries([...document.querySelector(tag).shadowRoot
    .querySelectorAll('[part]')].map((el) => [el.getAttribute('part'), el.checkVisibility()])), TAG);
  assert.equal(parts.title, true);
  assert.equal(parts.sequence, true);
  for (const part of ['formula', 'detail', 'batchnorm', 'check', 'copy-pytorch', 'status']) {
    assert.equal(parts[part], false, `${part} is rendered`);
  }
  assert.equal(await visible(p, '.seq-chart svg'), true);
  assert.equal(await visible(p, '.detail-chart'), false);
  assert.deepEqual(await texts(p, 'table.sequence td[data-stat="mean"]'), ['4.0000', '25.0000', '2.0000']);
  await setAttr(p, 'sections', 'all');
  assert.equal(await visible(p, '[part="detail"]'), true);
  assert.deepEqual(warnings, []);
  assertClean(problems);
  await context.close();
});

test('an unknown control group is named in one console warning; the known ones still apply', async () => {
  const { page: p, context, problems, warnings } = await open(UNKNOWN);
  assert.equal(await visible(p, '#tok-0'), true);
  assert.equal(await visible(p, '#gamma'), false);
  await setAttr(p, 'values', '1, 2, 3');
  await $(p, '[data-stat="mean"]').filter({ hasText: '2.0000' }).waitFor();
  assert.equal(warnings.length, 1, warnings.join('\n'));
  assert.match(warnings[0], /<layernorm-explorer> controls="tokens, colour": no control group named colour/);
  assertClean(problems);
  await context.close();
});
