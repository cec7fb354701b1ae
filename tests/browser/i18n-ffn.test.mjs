// <ffn-explorer> in other languages and laid out by an author, in Chromium: lang="de" / lang="es" speak the message
// tables (web/widgets/i18n/<locale>/ffn-explorer.js) with the locale's numbers (4.722.432, 0,8412), a German page
// makes a widget without lang German, and switching lang rebuilds it in place; Copy as PyTorch and event details stay
// locale-free; controls="…" / lock="…" / sections="…" and the intro and caption slots (kit/layout.js).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { assertClean, browserSuite, openPage } from './support.mjs';

const TAG = 'ffn-explorer';
const env = browserSuite();

/**
 * Opens a page holding one <ffn-explorer> with `attrs` (and `inner` HTML as its children) on a page whose <html> has
 * lang `pageLang`, and waits until every part shows the core's numbers. Records console warnings (problems.warnings)
 * and the widget's blockscope-change details (window.__changes).
 */
async function open({ attrs = {}, pageLang = 'en', inner = '', ready = true } = {}) {
  const session = await openPage(env.browser);
  const { page } = session;
  session.problems.warnings = [];
  page.on('console', (msg) => {
    if (msg.type() === 'warning') session.problems.warnings.push(msg.text());
  });
  const attributes = Object.entries(attrs).map(([k, v]) => ` ${k}="${v}"`).join('');
  await page.route(`${env.url}i18n-ffn.html`, (route) => route.fulfill({ contentType: 'text/html', body: `<!doctype html>
<html lang="${pageLang}"><head><meta charset="utf-8"><title>ffn i18n</title></head><body>
<script>window.__changes = []; document.addEventListener('blockscope-change', (e) => window.__changes.push(e.detail));</script>
<${TAG}${attributes}>${inner}</${TAG}>
<script type="module" src="/dist/blockscope-widgets.js"></script></body></html>` }));
  await page.goto(`${env.url}i18n-ffn.html`);
  if (ready) await whenComputed(page);
  return session;
}

/** Waits until the costs, the worked example, the hidden values and the position-wise outputs are drawn. */
async function whenComputed(page) {
  await page.waitForFunction((tag) => {
    const root = document.querySelector(tag)?.shadowRoot;
    const has = (sel) => (root?.querySelector(sel)?.textContent ?? '') !== '';
    return has('[data-cost="parameters"]') && has('[data-example="output"]') && has('[data-hidden="post-min"]') &&
      has('table.demo-out tr[data-position="1"]');
  }, TAG, { timeout: 30000 });
}

const text = (page, sel) => page.locator(`${TAG} ${sel}`).first().textContent();
const all = (page, sel) => page.locator(`${TAG} ${sel}`).allTextContents();
const attr = (page, name) => page.evaluate(([tag, n]) => document.querySelector(tag).getAttribute(n), [TAG, name]);
/** Whether each selector's first match in the widget is rendered (checkVisibility: display, visibility, content-visibility). */
const visible = (page, selectors) => page.evaluate(([tag, sels]) => Object.fromEntries(sels.map((s) => {
  const el = document.querySelector(tag).shadowRoot.querySelector(s);
  return [s, el ? el.checkVisibility() : 'missing'];
})), [TAG, selectors]);

// One control of each group the widget declares (static controlGroups), by group.
const CONTROLS = {
  'lesson-x': '#lesson-x', example: '#cell-W1-0-0', activation: 'input[name="example-activation"]',
  sizes: '#in-d', bias: '#attn-bias', prompt: '#prompt', layer: '#layer', demo: '#pos-0', trap: '#demo-mode',
};
const MORE_CONTROLS = ['button.reset-example', 'button[data-preset="gpt2"]', '#ffn-bias', 'button.nudge', '#in-tokens'];

test('lang="de": German labels, decimal commas and grouped thousands, no console errors or warnings', async () => {
  const { page, context, problems } = await open({ attrs: { lang: 'de' } });
  assert.equal(await text(page, 'h3'), 'Das Feed-Forward-Netz: aufweiten, GELU, zurückprojizieren');
  assert.match(await text(page, '.status'), /^Vom Kern berechnet \(wasm [\w-]+\)\.$/);
  assert.equal(await text(page, 'button.reset-example'), 'Beispiel der Lektion wiederherstellen');
  assert.deepEqual(await all(page, '#layer option'), ['Block 1', 'Block 2']);
  assert.equal(await page.locator(`${TAG} button.nudge`).first().getAttribute('aria-label'),
    '1 zum ersten Merkmal von Position 1 addieren');
  // The en page shows 4,722,432 / 66.7% / 0.8412 / [0.8412, −0.0454] (ffn-explorer.test.mjs).
  assert.equal(await text(page, '[data-cost="parameters"]'), '4.722.432');
  assert.equal(await text(page, '[data-cost="share"]'), '66,7\u00a0%');
  assert.equal(await text(page, '[data-cost="entries"]'), '25.165.824 (25,2 Millionen)');
  assert.equal(await text(page, '[data-breakdown="total"]'), '7.085.568 = 2.360.064 + 4.722.432 + 3.072');
  assert.deepEqual(await all(page, 'td[data-step="post"]'), ['0,8412', '−0,0454', '−0,1588', '2,9964']);
  assert.equal(await text(page, '[data-example="output"]'), '[0,8412; −0,0454]');
  assert.match(await text(page, '.dominance'), /kürzer als 1\.536 Tokens = 2d ist: Bei n = 1\.024 ist das FFN der größere Posten/);
  assert.match(await text(page, '.demo-info'), /Blockscope-Seed 123: 148 Parameter\) läuft in einem Aufruf auf 3 Token-Vektoren/);
  assert.match(await text(page, '#hidden-summary'), /^Block 1: \d+ Tokens × h = 128 verborgene Einheiten = [\d.]+ Werte\. Vor GELU sind [\d,]+\u00a0% negativ/);
  assert.match(await text(page, '[data-hidden="post-min"]'), /^−0,\d{4}$/);
  // A learner's edit answers in German: the position-wise report and a bad cell.
  await page.locator(`${TAG} button.nudge`).nth(1).click();
  await page.locator(`${TAG} .report`).filter({ hasText: 'Sie haben Position 2 geändert; die Ausgabe hat sich nur an Position 2 geändert' }).waitFor();
  await page.locator(`${TAG} #cell-W1-2-1`).fill('1e7');
  await page.locator(`${TAG} .example-status.error`).filter({ hasText: 'W₁ Zeile 3, Spalte 2 (1e7) muss zwischen −1.000.000 und 1.000.000 liegen' }).waitFor();
  assertClean(problems);
  assert.deepEqual(problems.warnings, []);
  await context.close();
});

test('lang="es": Spanish labels and numbers; a German page makes a widget without lang German', async () => {
  let { page, context, problems } = await open({ attrs: { lang: 'es' } });
  assert.equal(await text(page, 'h3'), 'La red feed-forward: expandir, GELU, proyectar de vuelta');
  assert.match(await text(page, '.status'), /^Calculado por el núcleo \(wasm [\w-]+\)\.$/);
  assert.equal(await text(page, 'label[for="prompt"]'), 'Prompt');
  assert.equal(await page.locator(`${TAG} #attn-bias option[value="out"]`).textContent(), 'solo W_o (lección LM4-T3, el libro)');
  assert.equal(await text(page, '[data-cost="parameters"]'), '4.722.432');
  assert.equal(await text(page, '[data-cost="share"]'), '66,7\u00a0%');
  assert.deepEqual(await all(page, 'td[data-step="post"]'), ['0,8412', '−0,0454', '−0,1588', '2,9964']);
  assert.match(await text(page, '.convention'), /^La atención se cuenta así: La lección LM4-T3/);
  assertClean(problems);
  assert.deepEqual(problems.warnings, []);
  await context.close();

  ({ page, context, problems } = await open({ pageLang: 'de-AT' }));
  assert.equal(await text(page, 'h3'), 'Das Feed-Forward-Netz: aufweiten, GELU, zurückprojizieren');
  assert.equal(await text(page, '[data-cost="parameters"]'), '4.722.432');
  assertClean(problems);
  assert.deepEqual(problems.warnings, []);
  await context.close();
});

test('Copy as PyTorch and the events are the same in English and German; lang="de" set later rebuilds in German', async () => {
  const state = async (page) => page.evaluate((tag) => {
    const el = document.querySelector(tag);
    const last = (section) => window.__changes.filter((e) => e.section === section).at(-1);
    return { code: el.toPyTorch(), example: last('example'), costs: last('costs'), positionwise: last('positionwise'),
      hidden: last('hidden') };
  }, TAG);
  const en = await open();
  const de = await open({ attrs: { lang: 'de' } });
  const a = await state(en.page);
  const b = await state(de.page);
  assert.ok(a.code.includes('nn.Linear(2, 4)'));
  assert.equal(b.code, a.code);
  for (const section of ['example', 'costs', 'positionwise', 'hidden']) assert.deepEqual(b[section], a[section], section);
  // The lesson preset: its printout and snippet are PyTorch's text in every language.
  for (const { page } of [en, de]) {
    await page.evaluate((tag) => document.querySelector(tag).setAttribute('preset', 'ffn-lesson82'), TAG);
    await page.locator(`${TAG} .ffn-lesson pre.printout`).filter({ hasText: 'params:       148' }).waitFor();
  }
  assert.equal(await text(de.page, '.ffn-lesson pre.printout'), await text(en.page, '.ffn-lesson pre.printout'));
  assert.equal(await de.page.evaluate((tag) => document.querySelector(tag).toPyTorch(), TAG),
    await en.page.evaluate((tag) => document.querySelector(tag).toPyTorch(), TAG));
  assert.match(await text(de.page, '.lesson-compare'), /^PyTorch gab \[−0\.3974, 0\.2011, 0\.0934, −0\.1582\] aus; .* höchstens \d,\de[-+]\d+ davon ab\.$/);
  await de.context.close();

  // The en page switches to German: rebuilt in place, the learner's worked-example cells kept.
  const { page, context, problems } = en;
  await page.locator(`${TAG} #cell-x-1-0`).fill('2');
  await page.locator(`${TAG} td[data-step="out"][data-i="1"]`).filter({ hasText: '1.9546' }).waitFor();
  await page.evaluate((tag) => document.querySelector(tag).setAttribute('lang', 'de'), TAG);
  await page.locator(`${TAG} td[data-step="out"][data-i="1"]`).filter({ hasText: '1,9546' }).waitFor();
  assert.equal(await page.locator(`${TAG} #cell-x-1-0`).inputValue(), '2');
  assert.equal(await text(page, 'h3'), 'Das Feed-Forward-Netz: aufweiten, GELU, zurückprojizieren');
  await page.locator(`${TAG} [data-cost="parameters"]`).filter({ hasText: '4.722.432' }).waitFor();
  await page.locator(`${TAG} .status`).filter({ hasText: 'Vom Kern berechnet' }).waitFor();
  assert.equal(await page.locator(`${TAG} h3`).count(), 1);
  assertClean(problems);
  assert.deepEqual(problems.warnings, []);
  await context.close();
});

test('controls="none" renders no control; controls="prompt" only the prompt', async () => {
  let { page, context, problems } = await open({ attrs: { controls: 'none', preset: 'ffn-lesson82' } });
  await page.locator(`${TAG} .ffn-lesson pre.printout`).filter({ hasText: 'params:' }).waitFor();
  const selectors = [...Object.values(CONTROLS), ...MORE_CONTROLS];
  const seen = await visible(page, selectors);
  assert.deepEqual(seen, Object.fromEntries(selectors.map((s) => [s, false])));
  const box = await page.evaluate((tag) => {
    const r = document.querySelector(tag).shadowRoot.querySelector('#prompt').getBoundingClientRect();
    return r.width + r.height;
  }, TAG);
  assert.equal(box, 0);
  // Gone from the accessibility tree too; the readouts stay.
  const tree = await page.locator(TAG).ariaSnapshot();
  for (const name of ['Prompt', 'FFN of', 'Reset to the lesson’s example', 'Biases in attention’s projections',
    'Add 1 to the first feature of position 1', 'Trap: apply the FFN', 'Lesson 82: EncoderBlock']) {
    assert.ok(!tree.includes(name), `${name} in the accessibility tree`);
  }
  assert.ok(tree.includes('4,722,432'));
  assertClean(problems);
  assert.deepEqual(problems.warnings, []);
  await context.close();

  ({ page, context, problems } = await open({ attrs: { controls: 'prompt' } }));
  const only = await visible(page, Object.values(CONTROLS).filter((s) => s !== '#lesson-x'));
  assert.deepEqual(only, Object.fromEntries(Object.entries(CONTROLS).filter(([g]) => g !== 'lesson-x')
    .map(([g, s]) => [s, g === 'prompt'])));
  await page.locator(`${TAG} #prompt`).fill('Hi!');
  await page.locator(`${TAG} #hidden-summary`).filter({ hasText: '3 tokens' }).waitFor();
  assertClean(problems);
  assert.deepEqual(problems.warnings, []);
  await context.close();
});

test('lock="…" shows the groups disabled and the learner cannot change them; scripts still can', async () => {
  const { page, context, problems } = await open({ attrs: { lock: 'sizes, activation, trap, demo' } });
  const state = () => page.evaluate((tag) => {
    const root = document.querySelector(tag).shadowRoot;
    return Object.fromEntries(['#in-d', 'button[data-preset="lesson82"]', 'input[name="example-activation"][value="relu"]',
      '#demo-mode', '#pos-0', 'button.nudge', '#prompt', '#cell-W1-0-0'].map((s) => {
      const el = root.querySelector(s);
      return [s, { disabled: el.disabled, visible: el.checkVisibility() }];
    }));
  }, TAG);
  const s = await state();
  for (const sel of ['#in-d', 'button[data-preset="lesson82"]', 'input[name="example-activation"][value="relu"]', '#demo-mode',
    '#pos-0', 'button.nudge']) {
    assert.deepEqual(s[sel], { disabled: true, visible: true }, sel);
  }
  assert.deepEqual(s['#prompt'], { disabled: false, visible: true });
  assert.deepEqual(s['#cell-W1-0-0'], { disabled: false, visible: true });
  assert.equal(await page.locator(`${TAG} #in-d`).getAttribute('title'), 'Set by the lesson');
  // Clicks and keys reach nothing; an input event (as typing fires) is refused by set(); the attributes stay.
  await page.locator(`${TAG} input[name="example-activation"][value="relu"]`).click({ force: true });
  await page.locator(`${TAG} #demo-mode`).click({ force: true });
  await page.locator(`${TAG} button[data-preset="lesson82"]`).click({ force: true });
  await page.locator(`${TAG} button.nudge`).first().click({ force: true });
  const focused = await page.evaluate((tag) => {
    const root = document.querySelector(tag).shadowRoot;
    root.querySelector('#demo-mode').focus();
    return root.activeElement?.id ?? null;
  }, TAG);
  assert.equal(focused, null); // a disabled switch takes no focus, so no key reaches it
  await page.keyboard.press('Space');
  const refused = await page.evaluate((tag) => {
    const el = document.querySelector(tag);
    const d = el.shadowRoot.querySelector('#in-d');
    d.value = '512';
    d.dispatchEvent(new Event('input'));
    return { set: el.set('d', '64'), locked: el.locked('tokens'), activation: el.set('example-activation', 'none') };
  }, TAG);
  assert.deepEqual(refused, { set: false, locked: true, activation: false });
  await page.waitForTimeout(300);
  assert.deepEqual(await Promise.all(['d', 'example-activation', 'demo-mode', 'demo', 'qkv-bias'].map((n) => attr(page, n))),
    [null, null, null, null, null]);
  assert.equal(await text(page, '[data-cost="parameters"]'), '4,722,432');
  assert.equal(await page.locator(`${TAG} #demo-mode`).isChecked(), false);
  // The author's script is not the learner: it still sets a locked attribute, and the widget follows.
  await page.evaluate((tag) => document.querySelector(tag).setAttribute('d', '512'), TAG);
  await page.locator(`${TAG} [data-cost="parameters"]`).filter({ hasText: '2,099,712' }).waitFor();
  assert.equal(await page.locator(`${TAG} #in-d`).isDisabled(), true);
  // An unlocked group still works: the prompt.
  await page.locator(`${TAG} #prompt`).fill('Hello');
  await page.locator(`${TAG} #hidden-summary`).filter({ hasText: '5 tokens' }).waitFor();
  // Unlocking gives the controls back (the reset button keeps its own state: disabled on the lesson's numbers).
  await page.evaluate((tag) => document.querySelector(tag).removeAttribute('lock'), TAG);
  assert.equal(await page.locator(`${TAG} #in-d`).isDisabled(), false);
  assert.equal(await page.locator(`${TAG} button.nudge`).first().isDisabled(), false);
  assert.equal(await page.locator(`${TAG} button.reset-example`).isDisabled(), true);
  assertClean(problems);
  assert.deepEqual(problems.warnings, []);
  await context.close();
});

test('sections="title, costs" renders only those; the intro and caption slots sit inside the frame', async () => {
  let { page, context, problems } = await open({ attrs: { sections: 'title, costs' } });
  const parts = ['[part~="title"]', '[part~="costs"]', '[part~="example"]', '[part~="hidden"]', '[part~="positionwise"]',
    '[part~="copy-pytorch"]', '[part~="status"]'];
  assert.deepEqual(await visible(page, parts), {
    '[part~="title"]': true, '[part~="costs"]': true, '[part~="example"]': false, '[part~="hidden"]': false,
    '[part~="positionwise"]': false, '[part~="copy-pytorch"]': false, '[part~="status"]': false,
  });
  assert.equal(await text(page, '[data-cost="parameters"]'), '4,722,432');
  assertClean(problems);
  assert.deepEqual(problems.warnings, []);
  await context.close();

  ({ page, context, problems } = await open({
    inner: '<p slot="intro">Before reading on, guess where most of the parameters are.</p>' +
      '<p slot="caption">The FFN holds two thirds of the block.</p>',
  }));
  const slots = await page.evaluate((tag) => {
    const el = document.querySelector(tag);
    const frame = el.getBoundingClientRect();
    return ['intro', 'caption'].map((name) => {
      const slot = el.shadowRoot.querySelector(`slot[name="${name}"]`);
      const [p] = slot.assignedElements();
      const r = p.getBoundingClientRect();
      return { text: p.textContent, visible: p.checkVisibility(), inside: r.top >= frame.top && r.bottom <= frame.bottom &&
        r.left >= frame.left && r.right <= frame.right && r.height > 0 };
    });
  }, TAG);
  assert.deepEqual(slots, [
    { text: 'Before reading on, guess where most of the parameters are.', visible: true, inside: true },
    { text: 'The FFN holds two thirds of the block.', visible: true, inside: true },
  ]);
  // The intro comes right after the title.
  assert.equal(await page.evaluate((tag) => document.querySelector(tag).shadowRoot.querySelector('h3').nextElementSibling
    .getAttribute('name'), TAG), 'intro');
  assertClean(problems);
  assert.deepEqual(problems.warnings, []);
  await context.close();
});

test('an unknown control group gives one warning naming it; the known ones still apply', async () => {
  const { page, context, problems } = await open({ attrs: { controls: 'prompt, bogus' } });
  assert.equal(problems.warnings.length, 1, problems.warnings.join('\n'));
  assert.match(problems.warnings[0], /<ffn-explorer> controls="prompt, bogus": no control group named bogus \(it has .*sizes.*\)/);
  assert.deepEqual(await visible(page, ['#prompt', '#in-d']), { '#prompt': true, '#in-d': false });
  // Later updates re-apply the layout without warning again.
  await page.locator(`${TAG} #prompt`).fill('Hi!');
  await page.locator(`${TAG} #hidden-summary`).filter({ hasText: '3 tokens' }).waitFor();
  assert.equal(problems.warnings.length, 1);
  assertClean(problems);
  await context.close();
});
