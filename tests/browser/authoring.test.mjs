// What a lesson author chooses, for every widget: its declared control groups and sections are the ones it has;
// controls="none" hides every control (gone from layout and the accessibility tree); sections="title" renders the
// title alone; each shipped language leaves no English behind (text nodes that stay the same in German and Spanish
// must be messages that read the same in both tables, or data); dir="rtl" lays text out from the right with charts
// kept left-to-right, and the widget still fits a 390 px phone.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { assertClean, browserSuite, openPage, screenshot, widgetPage } from './support.mjs';

const pages = {};
const env = browserSuite({ pages });
let served = 0;
const TAGS = ['gelu-explorer', 'layernorm-explorer', 'ffn-explorer', 'block-explorer', 'gpt-explorer', 'training-lab',
  'residual-flow-explorer'];
// Attributes that keep each widget light and quick here (the training lab not training, the GPT small).
const QUIET = { 'training-lab': 'steps="20"', 'gpt-explorer': 'loading="eager"' };

async function openWidget(page, tag, attrs = '', { lang = 'en', dir = 'ltr', width = 1100 } = {}) {
  await page.setViewportSize({ width, height: 900 });
  const path = widgetPage(pages, `/authoring-${++served}.html`, `<${tag} ${QUIET[tag] ?? ''} ${attrs}></${tag}>`, { lang, dir });
  await page.goto(`${env.url}${path.slice(1)}`);
  await page.waitForFunction((t) => {
    const el = document.querySelector(t);
    return el?.shadowRoot?.querySelector('.status') && !/Loading|Lade|Cargando/.test(el.shadowRoot.querySelector('.status').textContent);
  }, tag, { timeout: 60000 });
  await page.waitForTimeout(300);
}

/** Visible text nodes of the widget's shadow root, trimmed (not CSS, code or data the widget was given). */
const textNodes = (page, tag) => page.$eval(tag, (el) => {
  const out = [];
  const walk = document.createTreeWalker(el.shadowRoot, NodeFilter.SHOW_TEXT);
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    const p = n.parentElement;
    if (!p || p.closest('style, code, pre, textarea, [translate="no"], .tokens, .token, .generated')) continue;
    const t = n.textContent.trim();
    if (t && p.checkVisibility()) out.push(t);
  }
  return out;
});

for (const tag of TAGS) {
  test(`<${tag}>: declared control groups and sections exist; controls="none" and sections="title" hide the rest`, async () => {
    const { page, context, problems } = await openPage(env.browser);
    await openWidget(page, tag);
    const info = await page.$eval(tag, (el) => ({
      declared: Object.keys(el.constructor.controlGroups),
      groups: el.boundControls.groups().map((g) => g.group),
      sections: Object.keys(el.constructor.sections),
      parts: [...el.shadowRoot.querySelectorAll('[part]')].flatMap((p) => p.getAttribute('part').split(/\s+/)),
    }));
    assert.ok(info.declared.length > 0, 'no control groups declared');
    // Every control is in a declared group (a declared group may have no hideable control: <gelu-explorer>'s x is the
    // chart itself, which lock="x" makes read-only but controls="…" never hides).
    assert.deepEqual([...new Set(info.groups)].filter((g) => !info.declared.includes(g)), [], 'controls in undeclared groups');
    assert.ok(new Set(info.groups).size >= info.declared.length - 1, `declared groups without controls: ${info.declared} vs ${info.groups}`);
    for (const s of info.sections) assert.ok(info.parts.includes(s), `section ${s} has no part`);
    assert.ok(info.sections.includes('title'), 'title is a section');
    // Frameworks (React 19, Vue, Svelte) set a property instead of an attribute when the element has a member of that
    // name: no attribute may be one (only `lang`, HTMLElement's own, which reflects the attribute).
    const members = await page.$eval(tag, (el) => Object.keys(el.constructor.attrSpecs()).filter((n) => n in el));
    assert.deepEqual(members, [], 'attributes that are also members of the element');

    await page.$eval(tag, (el) => el.setAttribute('controls', 'none'));
    // (A wrapper with display: contents has no box of its own: it is shown when something inside it is.)
    const shown = await page.$eval(tag, (el) => {
      const visible = (n) => n.checkVisibility() || [...n.children].some(visible);
      return el.boundControls.groups().flatMap((g) => g.nodes).filter(visible).length;
    });
    assert.equal(shown, 0, 'controls="none" left controls visible');
    await page.$eval(tag, (el) => el.setAttribute('sections', 'title'));
    const visibleParts = await page.$eval(tag, (el) => [...el.shadowRoot.querySelectorAll('[part]')]
      .filter((p) => p.checkVisibility() && Object.keys(el.constructor.sections).some((s) => p.part.contains(s)))
      .map((p) => p.getAttribute('part')));
    assert.deepEqual([...new Set(visibleParts)], ['title']);
    const tree = await page.locator(tag).ariaSnapshot();
    assert.doesNotMatch(tree, /- (button|checkbox|slider|spinbutton|combobox|textbox)/, `accessibility tree still has controls:\n${tree}`);
    assertClean(problems);
    await context.close();
  });

  test(`<${tag}>: German and Spanish leave no English text behind`, async () => {
    const { page, context, problems } = await openPage(env.browser);
    const { LOCALES } = await import('../../web/widgets/kit/i18n.js');
    // English from its files (the widgets add each one with their code); German and Spanish as the widgets load them.
    const tables = { en: (await import('../../web/widgets/i18n/en/index.js')).default };
    for (const l of ['de', 'es']) tables[l] = (await LOCALES[l].load()).default;
    // Messages a language writes as English does (technical terms such as "feed-forward", "GELU (tanh)").
    const sameIn = (lang) => new Set(Object.entries(tables.en).filter(([k, v]) => typeof v === 'string' &&
      v === tables[lang][k]).map(([, v]) => v));
    const code = /^[\w.]+ = [\w.]+\(|self\./; // lines of the lesson's PyTorch, shown as code
    await openWidget(page, tag);
    const en = new Set(await textNodes(page, tag));
    for (const lang of ['de', 'es']) {
      const same = sameIn(lang);
      await openWidget(page, tag, '', { lang });
      // A text made of such messages (a run named "A: pre-norm" in Spanish too) is not English left behind.
      const sameTexts = [...same].filter((v) => v.length >= 3).sort((a, b) => b.length - a.length);
      const rest = (t) => sameTexts.reduce((r, v) => r.split(v).join(' '), t);
      const left = (await textNodes(page, tag)).filter((t) => en.has(t) && !code.test(t) &&
        /[A-Za-z]{3,}\W+[A-Za-z]{3,}/.test(rest(t)));
      assert.deepEqual(left, [], `<${tag} lang="${lang}">: English left`);
    }
    assertClean(problems);
    await context.close();
  });

  test(`<${tag}>: right to left, at 390 px`, async () => {
    const { page, context, problems } = await openPage(env.browser);
    await openWidget(page, tag, '', { dir: 'rtl', width: 390 });
    const dirs = await page.$eval(tag, (el) => ({
      host: getComputedStyle(el).direction,
      title: getComputedStyle(el.shadowRoot.querySelector('[part~="title"]')).direction,
      charts: [...el.shadowRoot.querySelectorAll('svg')].map((s) => getComputedStyle(s).direction),
      width: el.getBoundingClientRect().width,
      scroll: document.documentElement.scrollWidth,
    }));
    assert.equal(dirs.host, 'rtl');
    assert.equal(dirs.title, 'rtl');
    for (const d of dirs.charts) assert.equal(d, 'ltr', 'charts keep their axes left to right');
    assert.ok(dirs.scroll <= 390 + 1, `page ${dirs.scroll} px wide at 390`);
    if (tag === 'ffn-explorer') await screenshot(page, 'rtl-ffn-explorer');
    assertClean(problems);
    await context.close();
  });
}

test('the guide\'s authoring example works as written: no warnings, the groups it names shown, γ locked, the slots inside', async () => {
  const { readFileSync } = await import('node:fs');
  const guide = readFileSync(new URL('../../web/docs/embedding.html', import.meta.url), 'utf8');
  const section = guide.slice(guide.indexOf('<h2 id="authoring">'));
  const example = section.slice(section.indexOf('<pre><code>') + 11, section.indexOf('</code></pre>'))
    .replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
  assert.match(example, /^<layernorm-explorer /);
  const { page, context, problems } = await openPage(env.browser);
  const warnings = [];
  page.on('console', (m) => m.type() === 'warning' && warnings.push(m.text()));
  widgetPage(pages, '/authoring-guide.html', example);
  await page.goto(`${env.url}authoring-guide.html`);
  await page.waitForFunction(() => document.querySelector('layernorm-explorer')?.shadowRoot?.querySelector('td'), null, { timeout: 30000 });
  const seen = await page.$eval('layernorm-explorer', (el) => ({
    groups: el.boundControls.groups().filter((g) => g.nodes.some(function visible(n) {
      return n.checkVisibility() || [...n.children].some(visible);
    })).map((g) => g.group),
    gammaDisabled: [...el.boundControls.groups().find((g) => g.group === 'gamma').nodes]
      .flatMap((n) => (n.matches('input') ? [n] : [...n.querySelectorAll('input')])).every((i) => i.disabled),
    slots: ['intro', 'caption'].map((n) => el.shadowRoot.querySelector(`slot[name="${n}"]`).assignedElements().length),
  }));
  assert.deepEqual(seen.groups.sort(), ['gamma', 'tokens']);
  assert.equal(seen.gammaDisabled, true);
  assert.deepEqual(seen.slots, [1, 1]);
  assert.deepEqual(warnings, []);
  assertClean(problems);
  await context.close();
});
