// Linked selection in Chromium (kit/linked-selection.js): on one page, two <gpt-explorer>s and a <block-explorer> on
// the same prompt, a <gpt-explorer> on another prompt and one in another link group. Pointing at token k in one
// widget (hover, or the keyboard alone) highlights token k — class "linked" and aria-current — in every view of the
// widgets on the same tokens (chips, attribution, both heatmaps' rows and columns, the block's table and bars), and
// in none of the others; a head pointed at in the ablation checkboxes is highlighted in the twin widget and its
// attention heatmap; a next-token candidate links by token id. 360 px, dark mode, no console errors.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { test } from 'node:test';

import { ARTIFACTS, assertClean, browserSuite, openPage } from './support.mjs';

const env = browserSuite();
const PROMPT = 'The jury said that';

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark"><link rel="icon" href="data:,"><title>linked selection</title></head>
<body style="margin: 0">
<gpt-explorer id="a" loading="eager" prompt="${PROMPT}"></gpt-explorer>
<gpt-explorer id="b" loading="eager" prompt="${PROMPT}" layer="2" head="3"></gpt-explorer>
<block-explorer id="d" prompt="${PROMPT}" layers="2" emb-dim="16" heads="2"></block-explorer>
<gpt-explorer id="c" loading="eager" prompt="A different prompt"></gpt-explorer>
<gpt-explorer id="e" loading="eager" prompt="${PROMPT}" link-group="other"></gpt-explorer>
<script type="module" src="/dist/blockscope-widgets.js"></script>
</body></html>`;

/** Opens the page with every widget's forward pass and every blockscope-select event recorded. */
async function openLinked(options) {
  const { page, context, problems } = await openPage(env.browser, options);
  await page.addInitScript(() => {
    window.__forward = {};
    window.__select = [];
    document.addEventListener('blockscope-forward', (e) => { window.__forward[e.target.id] = e.detail; });
    document.addEventListener('blockscope-select', (e) => window.__select.push(e.detail));
  });
  await page.route(`${env.url}linked.html`, (route) => route.fulfill({ contentType: 'text/html', body: PAGE }));
  await page.goto(`${env.url}linked.html`);
  await page.waitForFunction(() => ['a', 'b', 'c', 'd', 'e'].every((id) => window.__forward[id]), null, { timeout: 90000 });
  await page.waitForFunction(() => ['a', 'b', 'c', 'e'].every((id) =>
    document.getElementById(id).shadowRoot.querySelector('.att-heat svg') &&
    document.getElementById(id).shadowRoot.querySelectorAll('ol.attr li').length > 0));
  return { page, context, problems };
}

/** What each widget shows as linked: positions of chips, attribution items, heatmap bands, block rows and bars. */
async function linked(page) {
  return page.evaluate(() => {
    const out = {};
    const positions = (root, sel) => [...root.querySelectorAll(sel)].filter((el) => el.classList.contains('linked'))
      .map((el) => Number(el.dataset.position));
    const current = (root, sel) => [...root.querySelectorAll(sel)].filter((el) => el.getAttribute('aria-current') === 'true')
      .map((el) => Number(el.dataset.position));
    for (const id of ['a', 'b', 'c', 'e']) {
      const r = document.getElementById(id).shadowRoot;
      const bands = (box, cls) => [...r.querySelectorAll(`${box} .linked-band.${cls}`)].map((el) => Number(el.dataset.index));
      out[id] = {
        chips: positions(r, '.chips li'), chipsCurrent: current(r, '.chips li'), attribution: positions(r, 'ol.attr li'),
        attRows: bands('.att-heat', 'row'), attCols: bands('.att-heat', 'col'), lnCols: bands('.ln-heat', 'col'),
        lnTable: current(r, 'table.ln-table th[data-position]'),
        candidates: [...r.querySelectorAll('table.candidates tr.linked')].map((el) => Number(el.dataset.id)),
        heads: [...r.querySelectorAll('.heads label.linked input')].map((el) => el.dataset.head),
        attBox: r.querySelector('.att-heat').classList.contains('linked'),
        attBoxCurrent: r.querySelector('.att-heat').getAttribute('aria-current'),
      };
    }
    const d = document.getElementById('d').shadowRoot;
    out.d = { rows: positions(d, 'table.tokens tr'), rowsCurrent: current(d, 'table.tokens tr'), bars: positions(d, '.bars rect.bar') };
    return out;
  });
}

const NONE = { chips: [], chipsCurrent: [], attribution: [], attRows: [], attCols: [], lnCols: [], lnTable: [], candidates: [], heads: [],
  attBox: false, attBoxCurrent: null };
const omit = (o, ...keys) => Object.fromEntries(Object.entries(o).filter(([k]) => !keys.includes(k)));

test('hovering a token in one widget highlights it in every widget on the same tokens, and nowhere else', async () => {
  const { page, context, problems } = await openLinked({ width: 1100, height: 900 });
  const ids = await page.evaluate(() => window.__forward.a.ids);
  assert.deepEqual(await page.evaluate(() => window.__forward.d.ids), ids, 'the block explorer reads the same byte tokens');
  const k = 4;
  await page.locator(`#a >> .chips li[data-position="${k}"]`).hover();
  await page.waitForFunction(() => window.__select.at(-1)?.kind === 'token');
  const sent = await page.evaluate(() => window.__select.at(-1));
  assert.equal(sent.position, k);
  assert.equal(sent.id, ids[k]);
  assert.equal(sent.group, 'page');
  assert.equal(sent.source, 'gpt-explorer#a');

  const seen = await linked(page);
  for (const id of ['a', 'b']) {
    assert.deepEqual(seen[id].chips, [k], `${id}: chip`);
    assert.deepEqual(seen[id].chipsCurrent, [k], `${id}: chip aria-current`);
    assert.deepEqual(seen[id].attribution, [k], `${id}: attribution`);
    assert.deepEqual(seen[id].attRows, [k], `${id}: attention row`);
    assert.deepEqual(seen[id].attCols, [k], `${id}: attention column`);
    assert.deepEqual(seen[id].lnCols, [k], `${id}: LayerNorm column`);
    assert.deepEqual(seen[id].lnTable, [k], `${id}: the LayerNorm table's column header (aria-current)`);
  }
  assert.deepEqual(seen.d, { rows: [k], rowsCurrent: [k], bars: [k] }, 'block explorer');
  assert.deepEqual(seen.c, NONE, 'another prompt is not linked');
  assert.deepEqual(seen.e, NONE, 'another link group is not linked');

  // Leaving the chips ends the selection everywhere.
  await page.mouse.move(1090, 5);
  await page.waitForFunction(() => window.__select.at(-1)?.kind === null);
  const cleared = await linked(page);
  for (const id of ['a', 'b', 'c', 'e']) assert.deepEqual(omit(cleared[id], 'heads'), omit(NONE, 'heads'), `${id} cleared`);
  assert.deepEqual(cleared.d, { rows: [], rowsCurrent: [], bars: [] });

  // Hovering a heatmap cell points at its column's token (the key); hovering the block's bar points back.
  await page.locator('#d >> .bars rect.bar[data-position="2"]').hover();
  await page.waitForFunction(() => window.__select.at(-1)?.position === 2);
  assert.deepEqual((await linked(page)).a.chips, [2]);

  // A next-token candidate links by token id: the same row in the twin, and every prompt position holding that id.
  const cand = await page.evaluate(() => window.__forward.a.candidates.find((c) => window.__forward.a.ids.includes(c.id))?.id ??
    window.__forward.a.candidates[0].id);
  await page.locator(`#a >> table.candidates.selected tr[data-id="${cand}"]`).hover();
  await page.waitForFunction((id) => window.__select.at(-1)?.id === id && window.__select.at(-1).position === null, cand);
  const byId = await linked(page);
  assert.deepEqual(byId.b.candidates, [cand]);
  assert.deepEqual(byId.b.chips, ids.flatMap((id, t) => (id === cand ? [t] : [])));
  assertClean(problems);
  await context.close();
});

test('keyboard only: the chips are one tab stop, arrow keys point, a head checkbox links heads; 360 px, dark mode', async () => {
  const { page, context, problems } = await openLinked({ width: 360, height: 800, colorScheme: 'dark' });
  // Tab from the prompt box of widget b into its token chips, then move with the arrow keys.
  await page.locator('#b >> textarea#prompt').focus();
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.getElementById('b').shadowRoot.activeElement?.dataset.position), '0');
  for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowRight');
  await page.waitForFunction(() => window.__select.at(-1)?.position === 3);
  let seen = await linked(page);
  assert.deepEqual(seen.a.chips, [3]);
  assert.deepEqual(seen.a.chipsCurrent, [3]);
  assert.deepEqual(seen.a.attCols, [3]);
  assert.deepEqual(seen.d.rows, [3]);
  assert.deepEqual(seen.c.chips, []);
  // The highlight is visible in the dark palette: an amber outline (--bs-c5), not the background colour.
  const style = await page.evaluate(() => {
    const chip = document.getElementById('a').shadowRoot.querySelector('.chips li.linked');
    const cs = getComputedStyle(chip);
    return { outline: cs.outlineStyle, color: cs.outlineColor, theme: document.getElementById('a').resolvedTheme };
  });
  assert.equal(style.theme, 'dark');
  assert.equal(style.outline, 'solid');
  assert.equal(style.color, 'rgb(227, 179, 65)');
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.locator('#a >> section.prompt-section').screenshot({ path: `${ARTIFACTS}linked-selection-360-dark-chips.png` });
  await page.locator('#a >> .att-heat').screenshot({ path: `${ARTIFACTS}linked-selection-360-dark-attention.png` });
  // Shift+Tab leaves the chips for the prompt box: the selection ends.
  await page.keyboard.press('Shift+Tab');
  await page.waitForFunction(() => window.__select.at(-1)?.kind === null);
  assert.deepEqual((await linked(page)).a.chips, []);

  // Heads: focusing the checkbox of block 2, head 3 (0-based "1.2") in a highlights it in b, whose attention heatmap
  // shows that head; c reads other tokens, so its heads are not linked.
  await page.locator('#a >> input[data-head="1.2"]').focus();
  await page.waitForFunction(() => window.__select.at(-1)?.kind === 'head');
  seen = await linked(page);
  assert.deepEqual(seen.b.heads, ['1.2']);
  assert.equal(seen.b.attBox, true);
  assert.equal(seen.b.attBoxCurrent, 'true');
  assert.equal(seen.a.attBox, false, 'a shows block 1, head 1');
  assert.deepEqual(seen.c.heads, []);
  assert.deepEqual(seen.e.heads, []);
  await page.keyboard.press('Space'); // the checkbox still works: the head is ablated in a only
  await page.waitForFunction(() => document.getElementById('a').getAttribute('ablate') === '1.2');
  assert.equal(await page.evaluate(() => document.getElementById('b').getAttribute('ablate')), null);
  // Nothing makes the page scroll sideways (wide tables scroll inside their own boxes, as without linking).
  const [scrollW, innerW] = await page.evaluate(() => [document.documentElement.scrollWidth, innerWidth]);
  assert.ok(scrollW <= innerW, `page is ${scrollW} px wide at ${innerW} px`);
  assertClean(problems);
  await context.close();
});

test('the embedding guide documents the channel and lists link-group for both linked widgets', async () => {
  const { page, context, problems } = await openPage(env.browser);
  await page.goto(`${env.url}docs/embedding.html`);
  await page.waitForSelector('#attribute-tables[data-generated]');
  const guide = await page.evaluate(() => ({
    events: document.querySelector('#events-table').textContent,
    section: document.querySelector('#linked')?.nextElementSibling?.textContent ?? '',
    groups: ['gpt-explorer', 'block-explorer'].map((t) =>
      document.querySelector(`table.attrs[data-tag="${t}"] tr[data-attr="link-group"]`)?.textContent ?? ''),
  }));
  assert.match(guide.events, /blockscope-select/);
  assert.match(guide.section, /aria-current/);
  for (const row of guide.groups) assert.match(row, /page/);
  assertClean(problems);
  await context.close();
});
