// <blockscope-tour> in Chromium: a tour stepped by keyboard and buttons sets the widgets' attributes as its steps'
// states say (deep-link syntax, values checked by each widget class's checkedValue), Back and Home show an earlier step
// exactly as it was (attributes a step does not mention return to the page's own values), blockscope-tour-step
// reports each step, the step attribute reflects and can be set (and a deep link / sync-url carry it), unknown ids
// draw one warning, a widget defined late gets its settings once defined, the chrome speaks German with lang="de" and
// follows a dark page, and the lesson page's tour of the block works step by step (screenshot tour-step.png).
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { test } from 'node:test';

import { ARTIFACTS, assertClean, browserSuite, openPage } from './support.mjs';

const env = browserSuite();

/** Serves `body` as /<name>.html (with the bundle) and opens it, recording the tour's events and console warnings. */
async function openInline(name, body, { lang = 'en', style = '', hash = '', ...options } = {}) {
  const session = await openPage(env.browser, options);
  const { page } = session;
  session.warnings = [];
  page.on('console', (msg) => msg.type() === 'warning' && session.warnings.push(msg.text()));
  await page.addInitScript(() => {
    window.__tour = [];
    document.addEventListener('blockscope-tour-step', (e) => window.__tour.push(e.detail));
  });
  await page.route(`${env.url}${name}.html`, (route) => route.fulfill({ contentType: 'text/html', body: `<!doctype html>
<html lang="${lang}"><head><meta charset="utf-8"><title>${name}</title></head><body style="${style}">
${body}
<script type="module" src="/dist/blockscope-widgets.js"></script></body></html>` }));
  await page.goto(`${env.url}${name}.html${hash}`);
  await page.evaluate(() => customElements.whenDefined('blockscope-tour'));
  return session;
}

/** Each element's attributes (id -> {name: value}), without the tour's own highlight mark. */
const attrsOf = (page, ...ids) => page.evaluate((list) => Object.fromEntries(list.map((id) => {
  const el = document.getElementById(id);
  return [id, Object.fromEntries([...el.attributes].filter((a) => a.name !== 'data-bs-tour').map((a) => [a.name, a.value]))];
})), ids);
const tourState = (page, sel = 'blockscope-tour') => page.evaluate((s) => {
  const t = document.querySelector(s);
  const root = t.shadowRoot;
  return {
    step: t.step, attr: t.getAttribute('step'), total: t.total,
    counter: root.querySelector('.counter').textContent,
    caption: root.querySelector('.step-slot').assignedNodes().map((n) => n.textContent.trim()).join(''),
    focused: root.activeElement?.className ?? null,
    marked: [...document.querySelectorAll('[data-bs-tour]')].map((e) => `${e.id}:${e.getAttribute('data-bs-tour')}`),
  };
}, sel);
const events = (page) => page.evaluate(() => window.__tour.splice(0));

const TWO_WIDGETS = `
<blockscope-tour id="t" label="Test tour">
  <p id="intro">Four steps over two widgets.</p>
  <blockscope-step state="ln.gamma=2&amp;ln.beta=0.5">One: γ and <b>β</b>.</blockscope-step>
  <blockscope-step state="#ln.axis=sequence&amp;gelu.x=-0.75">Two: two widgets at once.</blockscope-step>
  <blockscope-step state="gelu.derivative=true&amp;ln.gamma=99&amp;gelu-explorer.min=-1000" target="gelu">Three: clamped.</blockscope-step>
  <blockscope-step state="" target="none">Four: the page as it was.</blockscope-step>
</blockscope-tour>
<layernorm-explorer id="ln" gamma="1.5"></layernorm-explorer>
<gelu-explorer id="gelu" x="0.5"></gelu-explorer>`;
const PAGE = { ln: { id: 'ln', gamma: '1.5' }, gelu: { id: 'gelu', x: '0.5' } };

test('a tour stepped by keyboard and buttons sets what each state says; Back restores earlier steps exactly', async () => {
  const { page, context, problems } = await openInline('tour-two', TWO_WIDGETS, { reducedMotion: 'reduce' });
  await page.locator('gelu-explorer .status').filter({ hasText: 'points from the core' }).waitFor({ timeout: 20000 });
  let s = await tourState(page);
  assert.deepEqual([s.step, s.attr, s.total], [0, null, 4]);
  assert.match(await page.locator('#t .summary').textContent(), /^4 steps · /);
  assert.equal(await page.locator('#t .panel').isHidden(), true);
  assert.equal(await page.locator('#intro').isVisible(), true, 'the intro shows before the tour starts');

  // Start: step 1, the focus in the tour's panel (keys work from there).
  await page.locator('#t .start').click();
  s = await tourState(page);
  assert.deepEqual([s.step, s.attr, s.counter, s.caption, s.focused], [1, '1', 'Step 1 of 4', 'One: γ and β.', 'next']);
  assert.deepEqual(s.marked, ['ln:target highlight']);
  const step1 = await attrsOf(page, 'ln', 'gelu');
  assert.deepEqual(step1, { ln: { ...PAGE.ln, gamma: '2', beta: '0.5' }, gelu: PAGE.gelu });
  assert.equal(await page.evaluate(() => getComputedStyle(document.querySelector('#t').shadowRoot.querySelector('.panel')).position), 'fixed');

  await page.keyboard.press('ArrowRight'); // step 2: γ and β go back to the page's values, two widgets change
  const step2 = await attrsOf(page, 'ln', 'gelu');
  assert.deepEqual(step2, { ln: { ...PAGE.ln, axis: 'sequence' }, gelu: { ...PAGE.gelu, x: '-0.75' } });
  s = await tourState(page);
  assert.deepEqual([s.counter, s.marked], ['Step 2 of 4', ['ln:target highlight', 'gelu:target highlight']]);

  await page.keyboard.press('PageDown'); // step 3: values checked as deep links are (clamped), a tag addresses too
  const step3 = await attrsOf(page, 'ln', 'gelu');
  assert.deepEqual(step3, { ln: { ...PAGE.ln, gamma: '3' }, gelu: { ...PAGE.gelu, derivative: 'true', min: '-20' } });
  assert.deepEqual((await tourState(page)).marked, ['gelu:target highlight'], 'target="gelu" chooses what is outlined');

  await page.locator('#t .next').click(); // step 4: nothing set, so everything as the page had it
  assert.deepEqual(await attrsOf(page, 'ln', 'gelu'), PAGE);
  s = await tourState(page);
  assert.deepEqual([s.counter, s.marked], ['Step 4 of 4', []]);
  assert.equal(await page.locator('#t .next').textContent(), 'Finish');
  await page.keyboard.press('ArrowRight'); // a key never steps past the end
  assert.equal((await tourState(page)).step, 4);

  // Back, by every route, shows the earlier steps exactly as they were.
  await page.keyboard.press('Home');
  assert.deepEqual(await attrsOf(page, 'ln', 'gelu'), step1);
  await page.keyboard.press('End');
  await page.keyboard.press('PageUp');
  assert.deepEqual(await attrsOf(page, 'ln', 'gelu'), step3);
  await page.keyboard.press('ArrowLeft');
  assert.deepEqual(await attrsOf(page, 'ln', 'gelu'), step2);
  await page.locator('#t .back').click();
  assert.deepEqual(await attrsOf(page, 'ln', 'gelu'), step1);
  assert.equal(await page.locator('#t .back').isDisabled(), true);
  // The widgets drew what the attributes say (γ = 2 on the slider's read-out).
  await page.locator('layernorm-explorer output[for="gamma"]').filter({ hasText: '2.0' }).waitFor();

  // Esc closes: the widgets keep the step's state, the focus goes back to Start.
  await page.keyboard.press('Escape');
  s = await tourState(page);
  assert.deepEqual([s.step, s.attr, s.marked, s.focused], [0, null, [], 'start']);
  assert.deepEqual(await attrsOf(page, 'ln', 'gelu'), step1);

  const states = { 1: 'ln.gamma=2&ln.beta=0.5', 2: 'ln.axis=sequence&gelu.x=-0.75',
    3: 'gelu.derivative=true&ln.gamma=99&gelu-explorer.min=-1000', 4: '', 0: '' };
  const seen = await events(page);
  assert.deepEqual(seen.map((d) => d.step), [1, 2, 3, 4, 1, 4, 3, 2, 1, 0]);
  for (const d of seen) assert.deepEqual(d, { step: d.step, total: 4, state: states[d.step] });
  assertClean(problems);
  await context.close();
});

test('the step attribute reflects and can be set; the event bubbles out of a shadow root; deep link and sync-url', async () => {
  const { page, context, problems } = await openInline('tour-attr', TWO_WIDGETS, { reducedMotion: 'reduce' });
  const composed = page.evaluate(() => new Promise((resolve) => {
    const host = document.createElement('div');
    document.body.append(host);
    host.attachShadow({ mode: 'open' }).innerHTML = '<blockscope-tour><blockscope-step>only</blockscope-step></blockscope-tour>';
    document.addEventListener('blockscope-tour-step', (e) => e.target === host && resolve(e.composed && e.bubbles), { once: false });
    host.shadowRoot.querySelector('blockscope-tour').step = 1;
  }));
  assert.equal(await composed, true);
  await events(page);
  await page.evaluate(() => document.querySelector('#t').setAttribute('step', '3'));
  assert.deepEqual(await attrsOf(page, 'gelu'), { gelu: { ...PAGE.gelu, derivative: 'true', min: '-20' } });
  assert.deepEqual((await events(page)).map((d) => d.step), [3]);
  await page.evaluate(() => { document.querySelector('#t').step = 2; });
  assert.equal(await page.locator('#t').getAttribute('step'), '2');
  await page.evaluate(() => document.querySelector('#t').setAttribute('step', '99'));
  assert.equal(await page.locator('#t').getAttribute('step'), '4', 'clamped to the steps there are');
  await page.evaluate(() => document.querySelector('#t').removeAttribute('step'));
  assert.equal((await tourState(page)).step, 0);
  assert.deepEqual((await events(page)).map((d) => d.step), [2, 4, 0]);
  assertClean(problems);
  await context.close();

  // The example page: its hash opens the tour at step 2; with sync-url, Next writes step 3 into the hash.
  const session = await openPage(env.browser, { reducedMotion: 'reduce' });
  await session.page.goto(`${env.url}examples/blockscope-tour.html#tour.step=2`);
  await session.page.waitForFunction(() => document.querySelector('#tour')?.step === 2);
  assert.equal(await session.page.locator('#ln').getAttribute('axis'), 'sequence');
  await session.page.locator('#tour .next').click();
  await session.page.waitForFunction(() => new URLSearchParams(location.hash.slice(1)).get('tour.step') === '3');
  assert.equal(await session.page.locator('#gelu').getAttribute('x'), '-0.75');
  assertClean(session.problems);
  await session.context.close();
});

test('unknown ids draw one console.warn naming them; the rest of the step still applies', async () => {
  const { page, context, problems, warnings } = await openInline('tour-unknown', `
<blockscope-tour id="t">
  <blockscope-step state="nope.x=1&amp;ln.gamma=2&amp;missing-widget.level=3">One.</blockscope-step>
  <blockscope-step state="nope.y=2&amp;ln.axis=diagonal">Two.</blockscope-step>
</blockscope-tour>
<layernorm-explorer id="ln"></layernorm-explorer>`);
  await page.evaluate(() => document.querySelector('#t').start());
  for (let i = 0; i < 2; i++) {
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowLeft');
  }
  assert.equal(await page.locator('#ln').getAttribute('gamma'), '2');
  const unknown = warnings.filter((w) => w.includes('nothing on the page'));
  assert.equal(unknown.length, 1, warnings.join('\n'));
  assert.match(unknown[0], /<blockscope-tour id="t">.*"nope", "missing-widget"/);
  assert.equal(warnings.filter((w) => w.includes('axis="diagonal"')).length, 1, 'a value a deep link could not set is refused, once');
  assert.equal(await page.locator('#ln').getAttribute('axis'), null);
  assert.match(await page.locator('#t .title').textContent(), /^Guided tour$/);
  assertClean(problems);
  await context.close();
});

test('a widget that is not defined yet gets its step once customElements.whenDefined says it is', async () => {
  const { page, context, problems } = await openInline('tour-late', `
<blockscope-tour id="t" dock="none">
  <blockscope-step state="late.level=7&amp;ln.gamma=2">One.</blockscope-step>
  <blockscope-step state="ln.beta=1">Two.</blockscope-step>
</blockscope-tour>
<later-widget id="late" level="1"></later-widget>
<layernorm-explorer id="ln"></layernorm-explorer>`);
  await page.locator('#t .start').click();
  assert.equal(await page.locator('#ln').getAttribute('gamma'), '2');
  assert.equal(await page.locator('#late').getAttribute('level'), '1', 'not set before its class can check the value');
  assert.equal(await page.evaluate(() => getComputedStyle(document.querySelector('#t').shadowRoot.querySelector('.panel')).position), 'static');
  await page.evaluate(() => customElements.define('later-widget', class extends HTMLElement {
    static checkedValue(name, raw) {
      return name === 'level' ? String(Math.min(5, Number(raw))) : null; // its own limits: at most 5
    }
  }));
  await page.waitForFunction(() => document.querySelector('#late').getAttribute('level') === '5');
  await page.keyboard.press('ArrowRight');
  assert.deepEqual(await attrsOf(page, 'late', 'ln'), { late: { id: 'late', level: '1' }, ln: { id: 'ln', beta: '1' } });
  assertClean(problems);
  await context.close();
});

test('lang="de": the tour\'s chrome in German, numbers through Intl; on a dark page its palette is dark', async () => {
  const { page, context, problems } = await openInline('tour-de', `
<blockscope-tour id="t" lang="de">
  <blockscope-step state="gelu.x=2">Eins.</blockscope-step>
  <blockscope-step state="gelu.x=3">Zwei.</blockscope-step>
</blockscope-tour>
<gelu-explorer id="gelu"></gelu-explorer>`, { style: 'background: #0d1117; color: #e6edf3', reducedMotion: 'reduce' });
  const text = (sel) => page.locator(`#t ${sel}`).textContent();
  await page.locator('#t .title').filter({ hasText: 'Geführte Tour' }).waitFor(); // German is loaded on demand
  assert.equal(await text('.title'), 'Geführte Tour');
  assert.match(await text('.summary'), /^2 Schritte · ← → oder Bild ↑\/↓/);
  assert.equal(await text('.start'), 'Tour starten');
  await page.locator('#t .start').click();
  assert.equal(await text('.counter'), 'Schritt 1 von 2');
  assert.equal(await text('.back'), '◀ Zurück');
  assert.equal(await text('.next'), 'Weiter ▶');
  assert.equal(await page.locator('#t .close').getAttribute('aria-label'), 'Tour schließen');
  assert.match(await text('.summary'), /^Schritt 1 von 2: /);
  await page.keyboard.press('End');
  assert.equal(await text('.next'), 'Fertig');
  // Numbers go through Intl.NumberFormat: a long tour counts "1.200" in German.
  await page.evaluate(() => {
    const t = document.querySelector('#t');
    t.append(...Array.from({ length: 1198 }, () => document.createElement('blockscope-step')));
  });
  await page.waitForFunction(() => document.querySelector('#t').shadowRoot.querySelector('.counter').textContent === 'Schritt 2 von 1.200');
  const bg = await page.evaluate(() => getComputedStyle(document.querySelector('#t').shadowRoot.querySelector('.panel')).backgroundColor);
  assert.equal(bg, 'rgb(13, 17, 23)');
  assertClean(problems);
  await context.close();
});

test('the lesson page\'s tour of the block: every step sets and shows its widget (screenshot tour-step.png)', async () => {
  const { page, context, problems } = await openPage(env.browser, { width: 1280, height: 900, reducedMotion: 'reduce' });
  await page.addInitScript(() => {
    window.__tour = [];
    document.addEventListener('blockscope-tour-step', (e) => window.__tour.push(e.detail));
  });
  await page.goto(env.url);
  const tour = page.locator('#block-tour');
  assert.equal(await tour.getAttribute('label'), 'A tour of the block');
  await page.locator('#block-tour .start').click();
  const expected = [
    ['layernorm-widget', { gamma: '2', beta: '0.5' }],
    ['layernorm-widget', { axis: 'sequence', gamma: null, beta: null }],
    ['block-widget', { step: '2' }],
    ['block-widget', { step: '3' }],
    ['ffn-widget', { 'example-activation': 'relu' }],
    ['block-widget', { step: '7' }],
    ['block-widget', { step: '9' }],
    ['residual-flow', { std: '0.1' }],
  ];
  const total = expected.length;
  for (const [i, [id, attrs]] of expected.entries()) {
    if (i > 0) await page.keyboard.press('ArrowRight');
    // A widget whose code the page has not loaded yet (those off screen come after the first widget's numbers) gets
    // its step once its code arrives, which the step asks for.
    await page.waitForFunction(([target, want]) => Object.entries(want).every(([n, v]) => document.getElementById(target)
      .getAttribute(n) === v), [id, attrs], { timeout: 10000 }).catch(() => {}); // the assertion below says what differs
    const shown = await page.evaluate(([target, names]) => {
      const el = document.getElementById(target);
      const r = el.getBoundingClientRect();
      return { attrs: Object.fromEntries(names.map((n) => [n, el.getAttribute(n)])), mark: el.getAttribute('data-bs-tour'),
        inView: r.top < innerHeight && r.bottom > 0, others: [...document.querySelectorAll('[data-bs-tour]')].length };
    }, [id, Object.keys(attrs)]);
    assert.deepEqual(shown, { attrs, mark: 'target highlight', inView: true, others: 1 }, `step ${i + 1}`);
    assert.equal(await page.locator('#block-tour .counter').textContent(), `Step ${i + 1} of ${total}`);
    if (i === 2) {
      // Step 3: the block explorer at norm1 with the tour's panel over the page.
      await page.locator('block-explorer .step-title').filter({ hasText: 'step 2: LayerNorm before attention' }).waitFor({ timeout: 30000 });
      await page.locator('block-explorer table.summary').filter({ hasText: '8.0000' }).waitFor({ timeout: 30000 });
      mkdirSync(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: `${ARTIFACTS}tour-step.png` }); // the window as the learner sees it, panel docked
    }
  }
  // Every step is undone by going back to the first: the block, FFN and residual widgets are as the page had them.
  await page.keyboard.press('Home');
  const back = await page.evaluate(() => ({
    block: document.getElementById('block-widget').getAttribute('step'),
    ffn: document.getElementById('ffn-widget').getAttribute('example-activation'),
    std: document.getElementById('residual-flow').getAttribute('std'),
    gamma: document.getElementById('layernorm-widget').getAttribute('gamma'),
  }));
  assert.deepEqual(back, { block: null, ffn: null, std: null, gamma: '2' });
  await page.keyboard.press('End');
  await page.locator('#block-tour .next').click(); // Finish
  assert.equal(await tour.getAttribute('step'), null);
  const steps = (await page.evaluate(() => window.__tour)).map((d) => d.step);
  assert.deepEqual(steps, [1, 2, 3, 4, 5, 6, 7, 8, 1, 8, 0]);
  assertClean(problems);
  await context.close();
});

test('the guide\'s "Guided tours" section lists every attribute of the tour, before the deep links', async () => {
  const { page, context, problems } = await openPage(env.browser);
  await page.goto(`${env.url}docs/embedding.html`);
  const guide = await page.evaluate(async () => ({
    rows: [...document.querySelectorAll('#tour-attributes tbody tr')].map((r) => [r.dataset.attr, r.cells[1].textContent, r.cells[2].textContent]),
    // The guide shows no tour: its class is loaded on demand.
    specs: (await (await import('/dist/blockscope-widgets.js')).load('blockscope-tour')).attrSpecs(),
    headings: [...document.querySelectorAll('h2')].map((h) => h.id),
  }));
  assert.deepEqual(guide.rows.map((r) => r[0]), Object.keys(guide.specs));
  for (const [name, values, shown] of guide.rows) {
    const spec = guide.specs[name];
    if (spec.type === 'boolean') assert.equal(shown, spec.default ? 'on' : 'off', name);
    else assert.ok(shown.includes(String(spec.default)), `${name} default ${shown}`);
    for (const o of spec.options ?? []) assert.ok(values.includes(o), `${name} option ${o}`);
  }
  assert.equal(guide.headings[guide.headings.indexOf('tours') + 1], 'deep-links');
  assertClean(problems);
  await context.close();
});
