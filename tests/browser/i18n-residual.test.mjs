// <residual-flow-explorer> in other languages and in an author's layout, in Chromium: lang="de" and lang="es" show
// the table's words and the lesson's gradient norms with a decimal comma (the English page shows 15.069, 9.787 …),
// PyTorch's printout still quoted as PyTorch printed it; a German page makes a widget without lang German; Copy as
// PyTorch and the gradient-norms event stay the same in every language; controls="none" hides every control while
// the author's intro and caption appear inside the frame; controls="depth" shows only the depth slider; lock="…"
// shows controls disabled and neither the keyboard, the buttons nor "Back to the lesson's weights" change them;
// sections="…" renders only those sections; an unknown group is named in one console warning.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { assertClean, browserSuite, openPage, screenshot, widgetPage } from './support.mjs';

const TAG = 'residual-flow-explorer';
const PAGES = {};
const env = browserSuite({ pages: PAGES });

/** Registers an in-memory page at `path` (support.mjs widgetPage). */
const page = (path, body, options) => widgetPage(PAGES, path, body, options);

const DE = page('/i18n/residual-de.html', `<${TAG} lang="de"></${TAG}>`);
const ES = page('/i18n/residual-es.html', `<${TAG} lang="es"></${TAG}>`);
const HOST_DE = page('/i18n/residual-host-de.html', `<${TAG}></${TAG}>`, { lang: 'de' });
const PAIR = page('/i18n/residual-en-de.html',
  ['en', 'de'].map((l) => `<${TAG} id="${l}" lang="${l}" depth="5" std="0.1" activation="gelu" seed="3"></${TAG}>`).join(''));
const NONE = page('/i18n/residual-controls-none.html', `<article style="max-width: 640px; margin: 1rem auto">
  <p>Stack eight layers and compare the gradient each layer's weights receive.</p>
  <${TAG} controls="none">
    <p slot="intro">Layer 1 is the one farthest from the loss.</p>
    <p slot="caption">Both nets get gradients of the same size at the lesson's std.</p>
  </${TAG}>
  <p>With std 0.1 the plain net's gradient vanishes.</p></article>`);
const PLAIN = page('/i18n/residual-plain.html', `<${TAG}></${TAG}>`);
const LOCKED = page('/i18n/residual-locked.html', `<${TAG} depth="4" lock="depth, std, seed, compounding"></${TAG}>`);
const SECTIONS = page('/i18n/residual-sections.html', `<${TAG} sections="title, results"></${TAG}>`);
const UNKNOWN = page('/i18n/residual-unknown.html', `<${TAG} controls="depth, width"></${TAG}>`);

/** Opens `path` and waits until every widget on it shows the core's numbers (every language names wasm). */
async function open(path, options = {}) {
  const session = await openPage(env.browser, options);
  session.warnings = [];
  session.page.on('console', (msg) => msg.type() === 'warning' && session.warnings.push(msg.text()));
  await session.page.addInitScript(() => {
    window.__ev = {};
    document.addEventListener('blockscope-gradient-norms', (e) => (window.__ev[e.target.id || 'el'] ??= []).push(e.detail));
  });
  await session.page.goto(`${env.url}${path.slice(1)}`);
  await session.page.waitForFunction((tag) => [...document.querySelectorAll(tag)].every((el) =>
    /wasm/.test(el.shadowRoot?.querySelector('.status')?.textContent ?? '')), TAG, { timeout: 30000 });
  return session;
}

const $ = (p, selector) => p.locator(`${TAG} ${selector}`).first();
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
const events = (p) => p.evaluate(() => (window.__ev.el ?? []).length);
// Every control group's controls.
const CONTROLS = { depth: ['#depth'], std: ['#std', 'button.low-std'], activation: ['#activation'], layernorm: ['#layernorm'],
  'same-std': ['#same-std'], seed: ['button.reseed'], lesson: ['button.lesson'],
  compounding: ['#toy-factor', '#toy-steps', '.compounding button'] };

test('lang="de": German labels and status, the lesson\'s norms with a decimal comma, PyTorch\'s printout as printed', async () => {
  const { page: p, context, problems, warnings } = await open(DE);
  assert.equal(await $(p, 'h3').textContent(), 'Gradientenfluss mit Residualverbindungen: mit und ohne');
  assert.match(await $(p, '.status').textContent(), /^Vom Kern berechnet \(wasm [\w-]+\)\.$/);
  // The en page shows 15.069, 9.787 and 29.272, 31.163 (residual-flow-explorer.test.mjs).
  const plain = await p.locator(`${TAG} td[data-net="withoutResidual"]`).allTextContents();
  const res = await p.locator(`${TAG} td[data-net="withResidual"]`).allTextContents();
  assert.deepEqual([plain[0], plain[7], res[0], res[7]], ['15,069', '9,787', '29,272', '31,163']);
  assert.match(await $(p, 'dd[data-ratio="withoutResidual"]').textContent(), /^1,54 \(15,069 \/ 9,787\)$/);
  assert.equal(await $(p, 'dt').textContent(), 'ohne Residualverbindung: Schicht 1 / Schicht 8');
  // PyTorch's printout is quoted as PyTorch printed it; the relative difference is the widget's number.
  assert.match(await $(p, '.torch').textContent(),
    /^PyTorch gab „no-res: L1=15\.069, L8=9\.787“ und „residual: L1=29\.272, L8=31\.163“ aus; .* höchstens \d,\de−\d+ \(relativ\) ab\.$/);
  assert.match(await $(p, '.setup').textContent(), /^8 Schichten, d = 16, tanh; die eigenen PyTorch-Gewichte/);
  assert.equal(await $(p, 'label[for="depth"]').textContent(), 'Tiefe8');
  assert.equal(await $(p, '#std-out').textContent(), '0,30');
  assert.equal(await $(p, '#depth').getAttribute('aria-valuetext'), '8 Schichten');
  assert.equal(await $(p, 'button.reseed').textContent(), 'Neuer Seed (Blockscope-Seed 1)');
  assert.match(await $(p, '.note').textContent(), /std·√d = 0,3·√16 = 1,2/);
  assert.equal(await $(p, '.chart svg title').textContent(),
    'Norm des Gewichtsgradienten pro Schicht, 8 Schichten, mit und ohne Residualverbindungen');
  // The compounding toy: 0.5^10 in German.
  assert.match(await $(p, '#toy-result').textContent(), /^0,5\^10 = 9,77 × 10\^−4: Die erste Schicht erhält/);
  await $(p, '.compounding button[data-factor="2"]').click();
  assert.match(await $(p, '#toy-result').textContent(), /^2,0\^10 = 1024,00: .* er explodiert\.$/);
  // A value the widget had to clamp is reported in German.
  await setAttr(p, 'depth', '100');
  await $(p, '.status').filter({ hasText: 'liegt außerhalb' }).waitFor();
  assert.match(await $(p, '.status').textContent(), /^depth 100 liegt außerhalb von 1–32, verwendet wird 32\. Vom Kern berechnet/);
  // … and, for the page's author, once in the console (in English, like every console message).
  assert.deepEqual(warnings, ['<residual-flow-explorer> depth="100": outside 1 … 32; using 32']);
  assertClean(problems);
  await context.close();
});

test('lang="es": Spanish labels and numbers', async () => {
  const { page: p, context, problems, warnings } = await open(ES);
  assert.equal(await $(p, 'h3').textContent(), 'Flujo del gradiente con conexiones residuales: con y sin');
  assert.match(await $(p, '.status').textContent(), /^Calculado por el núcleo \(wasm [\w-]+\)\.$/);
  assert.equal(await $(p, 'td[data-net="withResidual"]').textContent(), '29,272');
  assert.equal(await $(p, 'button.lesson').textContent(), 'Volver a los pesos de la lección');
  assert.equal(await $(p, '#activation option[value="gelu"]').textContent(), 'GELU (aprox. tanh)');
  assert.match(await $(p, '.toy-real').textContent(),
    /^Las redes reales de arriba \(pasada hacia atrás del núcleo\): sin conexión residual: capa 1 \/ capa 8 = 1,54, como si/);
  await $(p, 'button.low-std').click();
  await $(p, '.setup').filter({ hasText: 'semilla 1 de Blockscope' }).waitFor();
  assert.match(await $(p, '.setup').textContent(), /^8 capas, d = 16, tanh; pesos de la red simple ~ N\(0, 0,1\)/);
  assert.deepEqual(warnings, []);
  assertClean(problems);
  await context.close();
});

test('a German page (<html lang="de">) makes a widget without lang German', async () => {
  const { page: p, context, problems } = await open(HOST_DE);
  assert.equal(await $(p, 'h3').textContent(), 'Gradientenfluss mit Residualverbindungen: mit und ohne');
  assert.equal(await $(p, 'td[data-net="withoutResidual"]').textContent(), '15,069');
  assertClean(problems);
  await context.close();
});

test('Copy as PyTorch and the gradient-norms event are identical in English and German', async () => {
  const { page: p, context, problems } = await open(PAIR);
  await p.waitForFunction(() => window.__ev.en?.length && window.__ev.de?.length);
  const { ev, code } = await p.evaluate(() => ({ ev: window.__ev,
    code: Object.fromEntries(['en', 'de'].map((id) => [id, document.getElementById(id).toPyTorch()])) }));
  assert.deepEqual(ev.de.at(-1), ev.en.at(-1));
  assert.equal(ev.en.at(-1).std, 0.1);
  assert.equal(code.de, code.en);
  assert.match(code.de, /nn\.init\.normal_\(l\.weight, std=0\.1\)/);
  assert.match(code.de, /^depth, d = 5, 16$/m);
  // What the learner reads differs: 0.10 and 0,10.
  assert.equal(await p.locator('#en #std-out').textContent(), '0.10');
  assert.equal(await p.locator('#de #std-out').textContent(), '0,10');
  assertClean(problems);
  await context.close();
});

test('controls="none": no control is rendered; the author\'s intro and caption are inside the frame', async () => {
  const { page: p, context, problems, warnings } = await open(NONE, { width: 900, height: 900 });
  for (const selector of Object.values(CONTROLS).flat()) {
    assert.equal(await visible(p, selector), false, `${selector} is visible`);
  }
  assert.equal(await $(p, '#depth').boundingBox(), null, 'the depth slider takes no room');
  for (const row of ['.controls', '.buttons']) assert.equal(await visible(p, row), false, `${row} takes room`);
  const tree = await p.locator(TAG).ariaSnapshot();
  for (const role of ['slider', 'combobox', 'checkbox', 'spinbutton']) {
    assert.ok(!tree.includes(`- ${role}`), `a ${role} is in the accessibility tree:\n${tree}`);
  }
  for (const name of ['Re-seed', 'Back to the lesson', 'per layer, 10 layers']) assert.ok(!tree.includes(name), name);
  assert.equal(await $(p, 'td[data-net="withoutResidual"]').textContent(), '15.069');
  const frame = await p.locator(TAG).boundingBox();
  const title = await $(p, 'h3').boundingBox();
  const chart = await $(p, '.chart').boundingBox();
  const intro = await p.locator(`${TAG} > p[slot="intro"]`).boundingBox();
  const caption = await p.locator(`${TAG} > p[slot="caption"]`).boundingBox();
  for (const [name, b] of [['intro', intro], ['caption', caption]]) {
    assert.ok(b.x >= frame.x && b.x + b.width <= frame.x + frame.width + 0.5, `${name} is outside the frame horizontally`);
    assert.ok(b.y >= frame.y && b.y + b.height <= frame.y + frame.height, `${name} is outside the frame vertically`);
  }
  assert.ok(intro.y >= title.y + title.height - 0.5, 'the intro is under the title');
  assert.ok(caption.y >= chart.y + chart.height - 0.5, 'the caption is under the chart');
  await screenshot(p, 'layout-residual-controls-none');
  assert.deepEqual(warnings, []);
  assertClean(problems);
  await context.close();
});

test('controls="depth" shows only the depth slider, and its row alone', async () => {
  const { page: p, context, problems, warnings } = await open(PLAIN);
  for (const s of Object.values(CONTROLS).flat()) assert.equal(await visible(p, s), true, s);
  await setAttr(p, 'controls', 'depth');
  for (const [group, selectors] of Object.entries(CONTROLS)) {
    for (const s of selectors) assert.equal(await visible(p, s), group === 'depth', `${s} (${group})`);
  }
  assert.equal(await visible(p, '.controls'), true);
  assert.equal(await visible(p, '.buttons'), false);
  const n = await events(p);
  await $(p, '#depth').focus();
  await p.keyboard.press('ArrowRight');
  await p.waitForFunction((k) => window.__ev.el.length > k, n);
  assert.equal(await attr(p, 'depth'), '9');
  assert.deepEqual(warnings, []);
  assertClean(problems);
  await context.close();
});

test('lock="depth, std, seed, compounding": disabled; keys, buttons and "Back to the lesson" leave them alone', async () => {
  const { page: p, context, problems, warnings } = await open(LOCKED);
  const disabled = (s) => p.evaluate(([tag, sel]) => [...document.querySelector(tag).shadowRoot.querySelectorAll(sel)]
    .map((el) => el.disabled), [TAG, s]);
  for (const s of [...CONTROLS.depth, ...CONTROLS.std, ...CONTROLS.seed, ...CONTROLS.compounding]) {
    assert.equal(await visible(p, s), true, `${s} is hidden`);
    assert.ok((await disabled(s)).every(Boolean), `${s} is not disabled`);
  }
  assert.deepEqual(await disabled('#activation, #layernorm, button.lesson'), [false, false, false]);
  assert.equal(await $(p, '#depth').getAttribute('title'), 'Set by the lesson');
  await $(p, '#depth').focus();
  await p.keyboard.press('ArrowRight');
  await $(p, 'button.low-std').click({ force: true });
  await $(p, 'button.reseed').click({ force: true });
  await $(p, '#toy-factor').click({ force: true });
  await p.keyboard.type('2');
  await p.waitForTimeout(200);
  assert.deepEqual([await attr(p, 'depth'), await attr(p, 'std'), await attr(p, 'seed')], ['4', null, null]);
  assert.equal(await $(p, '#toy-factor').inputValue(), '0.5');
  // An unlocked control works; "Back to the lesson's weights" resets it but leaves the locked depth.
  let n = await events(p);
  await $(p, '#layernorm').check();
  await p.waitForFunction((k) => window.__ev.el.length > k, n);
  assert.equal(await attr(p, 'layernorm'), '');
  n = await events(p);
  await $(p, 'button.lesson').click();
  await p.waitForFunction((k) => window.__ev.el.length > k, n);
  assert.deepEqual([await attr(p, 'layernorm'), await attr(p, 'depth')], [null, '4']);
  assert.equal(await p.evaluate((tag) => document.querySelector(tag).set('depth', 6), TAG), false);
  assert.deepEqual(warnings, []);
  assertClean(problems);
  await context.close();
});

test('sections="title, results" renders only the title and the results', async () => {
  const { page: p, context, problems, warnings } = await open(SECTIONS);
  const parts = await p.evaluate((tag) => Object.fromEntries([...document.querySelector(tag).shadowRoot
    .querySelectorAll('[part]')].map((el) => [el.getAttribute('part'), el.checkVisibility()])), TAG);
  assert.equal(parts.title, true);
  assert.equal(parts.results, true);
  for (const part of ['description', 'why', 'compounding', 'copy-pytorch', 'status']) {
    assert.equal(parts[part], false, `${part} is rendered`);
  }
  assert.equal(await visible(p, '.chart svg'), true);
  assert.equal(await visible(p, 'table.norms'), true);
  assert.deepEqual(warnings, []);
  assertClean(problems);
  await context.close();
});

test('an unknown control group is named in one console warning; the known ones still apply', async () => {
  const { page: p, context, problems, warnings } = await open(UNKNOWN);
  assert.equal(await visible(p, '#depth'), true);
  assert.equal(await visible(p, '#std'), false);
  const n = await events(p);
  await setAttr(p, 'depth', '3');
  await p.waitForFunction((k) => window.__ev.el.length > k, n);
  assert.equal(warnings.length, 1, warnings.join('\n'));
  assert.match(warnings[0], /<residual-flow-explorer> controls="depth, width": no control group named width/);
  assertClean(problems);
  await context.close();
});
