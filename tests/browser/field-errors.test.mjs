// Every validated field says what is wrong right under it: the message is visible, within 40 px of the field,
// announced (role="alert") and tied to the field (aria-invalid, aria-describedby); the widget keeps working on the
// last valid value — <ffn-explorer>'s costs stay those of the last valid sizes, marked as such — and the message goes
// once the field is fixed. The messages come from the i18n tables (German shown too).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { assertClean, browserSuite, openPage, widgetPage } from './support.mjs';

const pages = {};
const env = browserSuite({ pages });
widgetPage(pages, '/fields-en.html', `<gelu-explorer></gelu-explorer>
<block-explorer loading="eager"></block-explorer><ffn-explorer></ffn-explorer>
<layernorm-explorer></layernorm-explorer>`);
widgetPage(pages, '/fields-de.html', '<block-explorer loading="eager"></block-explorer>', { lang: 'de' });

/** The error message shown for `field` (in `tag`): its text, distance from the field, visibility and ARIA ties. */
function messageOf(page, tag, field) {
  return page.evaluate(([t, f]) => {
    const root = document.querySelector(t).shadowRoot;
    const input = root.querySelector(f);
    const ids = (input.getAttribute('aria-describedby') ?? '').split(/\s+/);
    const msg = [...root.querySelectorAll('.field-error')].find((m) => ids.includes(m.id));
    if (!msg) return { invalid: input.getAttribute('aria-invalid'), text: null };
    const a = input.getBoundingClientRect();
    const b = msg.getBoundingClientRect();
    // The gap between the two boxes (0 when they touch or overlap), horizontally and vertically.
    const gap = Math.hypot(Math.max(0, b.left - a.right, a.left - b.right), Math.max(0, b.top - a.bottom, a.top - b.bottom));
    const style = getComputedStyle(msg);
    return { invalid: input.getAttribute('aria-invalid'), text: msg.textContent, gap, role: msg.getAttribute('role'),
      visible: b.width > 0 && b.height > 0 && style.visibility !== 'hidden' && style.display !== 'none' };
  }, [tag, field]);
}

async function assertShown(page, tag, field, pattern) {
  await page.waitForFunction(([t, f]) => document.querySelector(t).shadowRoot.querySelector(f)?.getAttribute('aria-invalid') === 'true',
    [tag, field], { timeout: 10000 });
  const m = await messageOf(page, tag, field);
  assert.match(m.text ?? '', pattern, `${tag} ${field}: message`);
  assert.ok(m.visible, `${tag} ${field}: the message is visible`);
  assert.ok(m.gap <= 40, `${tag} ${field}: the message is ${m.gap} px from its field`);
  assert.equal(m.role, 'alert');
}

async function assertCleared(page, tag, field) {
  await page.waitForFunction(([t, f]) => !document.querySelector(t).shadowRoot.querySelector(f).hasAttribute('aria-invalid'), [tag, field]);
  assert.equal((await messageOf(page, tag, field)).text, null, `${tag} ${field}: the message is gone`);
}

async function open(path) {
  const { page, context, problems } = await openPage(env.browser);
  await page.addInitScript(() => {
    window.__costs = [];
    window.__blocks = 0;
    document.addEventListener('blockscope-change', (e) => e.detail.section === 'costs' && window.__costs.push(e.detail));
    document.addEventListener('blockscope-forward', () => { window.__blocks++; });
  });
  await page.goto(`${env.url}${path.slice(1)}`);
  return { page, context, problems };
}

test('block-explorer: emb_dim 2048 says it is too large, heads 5 that they must divide emb_dim, next to the field; a valid value clears it', async () => {
  const { page, context, problems } = await open('/fields-en.html');
  await page.waitForFunction(() => window.__blocks > 0, null, { timeout: 30000 });
  await page.locator('block-explorer details.settings summary').click(); // the model's sizes
  const field = page.locator('block-explorer input#emb-dim');
  await field.fill('2048');
  await field.press('Enter');
  await assertShown(page, 'block-explorer', '#emb-dim', /^Too large: the largest allowed is 512\.$/);
  assert.equal(await page.evaluate(() => document.querySelector('block-explorer').numAttr('emb-dim')), 64, 'emb_dim keeps its last valid value');
  await field.fill('32');
  await field.press('Enter');
  await assertCleared(page, 'block-explorer', '#emb-dim');
  assert.equal(await page.evaluate(() => document.querySelector('block-explorer').getAttribute('emb-dim')), '32');
  // A head count that does not divide emb_dim (the core would refuse the model) is explained under its field.
  await page.locator('block-explorer input#heads').fill('5');
  await page.locator('block-explorer input#heads').press('Enter');
  await assertShown(page, 'block-explorer', '#heads', /^emb_dim \(32\) must be divisible by the number of heads \(5\)\.$/);
  assert.equal(await page.evaluate(() => document.querySelector('block-explorer').numAttr('heads')), 4);
  assertClean(problems);
  await context.close();
});

test('ffn-explorer: d = 0 and d = 100000 are explained under the field; the costs keep the last valid numbers, marked stale', async () => {
  const { page, context, problems } = await open('/fields-en.html');
  await page.waitForFunction(() => window.__costs.length > 0, null, { timeout: 30000 });
  const params = () => page.locator('ffn-explorer [data-cost="parameters"]').textContent();
  const valid = await params();
  for (const bad of ['0', '100000']) {
    await page.locator('ffn-explorer #in-d').fill(bad);
    await assertShown(page, 'ffn-explorer', '#in-d', /d must be a whole number from 1 to 65,536, got "(0|100000)"/);
    assert.equal(await params(), valid, 'the costs still show the last valid sizes');
    const note = page.locator('ffn-explorer .stale-note');
    assert.ok(await note.isVisible(), 'a note says the numbers are those of the last valid sizes');
    assert.match(await note.textContent(), /last valid sizes \(d = 768,/);
  }
  await page.locator('ffn-explorer #in-d').fill('512');
  await assertCleared(page, 'ffn-explorer', '#in-d');
  await page.waitForFunction(() => window.__costs.at(-1).d === 512);
  assert.equal(await page.locator('ffn-explorer .stale-note').isVisible(), false);
  assertClean(problems);
  await context.close();
});

test('layernorm-explorer: "abc" in a token field is explained right under that field', async () => {
  const { page, context, problems } = await open('/fields-en.html');
  await page.locator('layernorm-explorer input#tok-0').waitFor();
  await page.waitForFunction(() => /\d/.test(document.querySelector('layernorm-explorer').shadowRoot.querySelector('.status').textContent));
  const before = await page.locator('layernorm-explorer input#tok-0').inputValue();
  await page.locator('layernorm-explorer input#tok-0').fill('abc');
  await assertShown(page, 'layernorm-explorer', '#tok-0', /"abc"/);
  await page.locator('layernorm-explorer input#tok-0').fill(before);
  await assertCleared(page, 'layernorm-explorer', '#tok-0');
  assertClean(problems);
  await context.close();
});

test('gelu-explorer: a left end not below the right end is explained under the field and not applied', async () => {
  const { page, context, problems } = await open('/fields-en.html');
  const field = page.locator('gelu-explorer input#min');
  await field.waitFor();
  await field.fill('5');
  await field.press('Enter');
  await assertShown(page, 'gelu-explorer', '#min', /^Must be less than the right end \(3\)\.$/);
  assert.equal(await page.evaluate(() => document.querySelector('gelu-explorer').hasAttribute('min')), false);
  await field.fill(''); // a number field holds no text ("abc" reads as empty)
  await field.press('Enter');
  await assertShown(page, 'gelu-explorer', '#min', /^Enter a number\.$/);
  await field.fill('-4');
  await field.press('Enter');
  await assertCleared(page, 'gelu-explorer', '#min');
  assert.equal(await page.evaluate(() => document.querySelector('gelu-explorer').getAttribute('min')), '-4');
  assertClean(problems);
  await context.close();
});

test('the messages are in the widget\'s language', async () => {
  const { page, context, problems } = await open('/fields-de.html');
  await page.waitForFunction(() => window.__blocks > 0, null, { timeout: 30000 });
  await page.locator('block-explorer details.settings summary').click();
  await page.locator('block-explorer input#heads').fill('99');
  await page.locator('block-explorer input#heads').press('Enter');
  await assertShown(page, 'block-explorer', '#heads', /^Zu groß: erlaubt ist höchstens 16\.$/);
  assertClean(problems);
  await context.close();
});
