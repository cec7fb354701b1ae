// <training-lab> in German and Spanish, and laid out by a lesson's author: lang="de" / lang="es" (or the host page's
// <html lang="de">) gives the lab's words in that language and its numbers with a decimal comma, while Copy as PyTorch
// and the events stay the same as in English; a new lang on a lab that has trained keeps its runs; controls="…" shows
// only the named control groups (none: no control at all, gone from the accessibility tree too), lock="…" disables
// them and a learner's input on a locked control changes no attribute and restarts no run; sections="…" renders only
// those panels; the author's intro and caption appear inside the frame; an unknown group is warned about once.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { assertClean, assertFits, browserSuite, openPage } from './support.mjs';

const SMALL = 'loading="eager" layers="1" emb-dim="32" steps="100"';
const page = (htmlLang, body) => ({ body: `<!doctype html><html lang="${htmlLang}"><head><meta charset="utf-8">
<link rel="icon" href="data:,"><title>lab</title></head><body>
<script type="module" src="/dist/blockscope-widgets.js"></script>
${body}
</body></html>` });
const PAGES = {
  '/lab-en.html': page('en', '<training-lab id="lab" loading="eager"></training-lab>'),
  '/lab-de.html': page('en', '<training-lab id="lab" lang="de" loading="eager"></training-lab>'),
  '/lab-es.html': page('en', '<training-lab id="lab" lang="es" loading="eager"></training-lab>'),
  '/host-de.html': page('de', `<training-lab id="lab" ${SMALL}></training-lab>`),
  '/layout.html': page('en', `
<training-lab id="none" controls="none" ${SMALL}></training-lab>
<training-lab id="one" controls="lr, bogus" ${SMALL}></training-lab>
<training-lab id="locked" lock="lr,comparison,train" ${SMALL}>
  <p slot="intro">The author's intro.</p><p slot="caption">The author's caption.</p>
</training-lab>
<training-lab id="some" sections="title,loss" ${SMALL}></training-lab>`),
};
const env = browserSuite({ pages: PAGES });


/** Opens one of PAGES with every lab's events recorded (by the lab's id) and console warnings collected. */
async function open(path, { ready = [], width = 1280 } = {}) {
  const session = await openPage(env.browser, { width });
  session.warnings = [];
  session.page.on('console', (msg) => {
    if (msg.type() === 'warning') session.warnings.push(msg.text());
  });
  await session.page.addInitScript(() => {
    window.__ev = { step: [], ready: [] };
    document.addEventListener('blockscope-train-step', (e) => window.__ev.step.push({ id: e.target.id, ...e.detail }));
    document.addEventListener('blockscope-ready', (e) => {
      if (e.target.localName === 'training-lab') window.__ev.ready.push({ id: e.target.id, detail: e.detail });
    });
  });
  await session.page.goto(`${env.url}${path.slice(1)}`);
  for (const id of ready) await waitReady(session.page, id);
  return session;
}

const waitReady = (p, id) => p.waitForFunction((i) => window.__ev.ready.some((r) => r.id === i), id, { timeout: 60000 });
const readyCount = (p, id) => p.evaluate((i) => window.__ev.ready.filter((r) => r.id === i).length, id);
const text = (p, selector) => p.locator(selector).first().textContent();
const state = (p, id) => p.evaluate((i) => document.getElementById(i).dataset.state, id);

/**
 * Trains lab `id` until both runs did at least `n` steps, then pauses it; returns the last step event of each run,
 * with `avg`: the table's average training loss (the last 1 + ⌊i/10⌋ steps, as training-lab-charts.js smooth()).
 */
async function trainSome(p, id, n) {
  await p.click(`#${id} button.play`);
  await p.waitForFunction(([i, k]) => ['a', 'b'].every((r) => window.__ev.step.filter((e) => e.id === i && e.run === r).length >= k),
    [id, n], { timeout: 60000 });
  await p.click(`#${id} button.play`);
  await p.waitForFunction((i) => document.getElementById(i).dataset.state === 'paused', id);
  const runs = await p.evaluate((i) => ['a', 'b'].map((r) => window.__ev.step.filter((e) => e.id === i && e.run === r)), id);
  return runs.map((steps) => {
    const w = Math.min(25, 1 + Math.floor((steps.length - 1) / 10));
    return { ...steps.at(-1), avg: steps.slice(-w).reduce((sum, e) => sum + e.loss, 0) / w };
  });
}

/** The lab's Copy as PyTorch code (as the disclosure shows it) and its toPyTorch(). */
const pytorch = (p) => p.evaluate(() => {
  const lab = document.getElementById('lab');
  const details = lab.shadowRoot.querySelector('details.copy');
  details.open = true;
  details.dispatchEvent(new Event('toggle'));
  return { shown: details.querySelector('pre').textContent, code: lab.toPyTorch() };
});

const comma = (v, digits) => v.toFixed(digits).replace('.', ',');

test('lang="de": German words, decimal commas; Copy as PyTorch and the events are the same as in English', async () => {
  const en = await open('/lab-en.html', { ready: ['lab'] });
  const de = await open('/lab-de.html', { ready: ['lab'] });
  const p = de.page;
  assert.equal(await text(p, '#lab h3'), 'Trainingslabor: zwei GPTs im Vergleich');
  assert.equal(await text(p, '#lab legend.fs'), 'Einstellungen');
  assert.equal(await text(p, '#lab button.play'), 'Trainieren');
  assert.equal(await text(p, '#lab button.reset'), 'Zurücksetzen');
  assert.equal(await text(p, '#lab select#comparison option[value="norm"]'), 'Pre-Norm vs. Post-Norm');
  assert.equal(await text(p, '#lab label[for="lr"]'), 'Lernrate0,015');
  assert.equal(await text(p, '#lab output[for="lr"]'), '0,015');
  assert.equal(await text(en.page, '#lab output[for="lr"]'), '0.015');
  assert.equal(await p.getAttribute('#lab input#lr', 'aria-valuetext'), 'Lernrate 0,015');
  assert.deepEqual(await p.locator('#lab table.results th[scope="col"]').allTextContents(),
    ['Lauf', 'Schritt', 'Verlust Train. (Ø)', 'Verlust Valid.', 'Grad.-Norm', 'Zustand']);
  assert.equal(await text(p, '#lab .run-legend'), 'A: Pre-NormB: Post-Norm');
  assert.match(await text(p, '#lab .look-for'), /^Beide Läufe starten mit denselben Gewichten .* ohne Warmup; nur die Position der LayerNorm/);
  assert.equal(await text(p, '#lab .loss-chart .ref text'), 'gleichverteiltes Raten, ln 256 = 5,55');
  assert.equal(await text(en.page, '#lab .loss-chart .ref text'), 'uniform guess, ln 256 = 5.55');
  assert.equal(await text(p, '#lab .loss-chart svg > desc'),
    'Verlust über dem Trainingsschritt für Lauf A (Pre-Norm) und Lauf B (Post-Norm). Die neuesten Zahlen stehen in der Ergebnistabelle darunter.');
  assert.equal(await text(p, '#lab .grad-chart .x-axis .tick text'), 'Emb.');
  assert.match(await text(p, '#lab .status'), /^Bereit: Lauf A mit 196\.512 und Lauf B mit 196\.512 Parametern \(wasm [\w-]+\)\. Drücken Sie „Trainieren“\.$/);
  assert.match(await text(en.page, '#lab .status'), /^Ready: run A 196,512 and run B 196,512 parameters/);
  assert.equal(await text(p, '#lab .checkpoints h4'), 'Die Modelle, die Sie trainiert haben');
  assert.equal(await text(p, '#lab button.inspect[data-run="b"]'), 'Lauf B im GPT-Explorer untersuchen');

  // Copy as PyTorch and blockscope-ready: identical in both languages (English labels, raw numbers).
  const [codeEn, codeDe] = [await pytorch(en.page), await pytorch(p)];
  assert.equal(codeDe.code, codeEn.code);
  assert.equal(codeDe.shown, codeEn.shown);
  assert.match(codeDe.code, /^# run a: pre-norm$/m);
  const readyOf = (s) => s.page.evaluate(() => window.__ev.ready[0].detail);
  assert.deepEqual(await readyOf(de), await readyOf(en));

  // A few steps in each: the same events; the table shows the average loss with a decimal comma in German.
  const [lastEn, lastDe] = [await trainSome(en.page, 'lab', 3), await trainSome(p, 'lab', 3)];
  const stepsOf = (s) => s.page.evaluate(() => window.__ev.step.filter((e) => e.step <= 3).map(({ id, ...d }) => d)
    .sort((x, y) => x.step - y.step || x.run.localeCompare(y.run)));
  assert.deepEqual(await stepsOf(de), await stepsOf(en), 'train-step details');
  for (const [session, last, format] of [[de, lastDe, comma], [en, lastEn, (v, d) => v.toFixed(d)]]) {
    await session.page.waitForFunction((s) => document.getElementById('lab').shadowRoot
      .querySelector('tr[data-run="a"] td.step').textContent === String(s), last[0].step);
    assert.equal(await text(session.page, '#lab tr[data-run="a"] td.loss'), format(last[0].avg, 3));
    assert.equal(await text(session.page, '#lab tr[data-run="b"] td.grad'), format(last[1].gradNorm, 3));
  }
  assert.equal(await text(p, '#lab tr[data-run="a"] td.state'), 'pausiert');
  assert.equal(await text(p, '#lab button.play'), 'Fortsetzen');
  const [a, b] = [lastDe[0].step, lastDe[1].step];
  assert.equal(await text(p, '#lab .status'), a === b ? `Pausiert bei Schritt ${a}.` : `Pausiert nach Schritt ${a} (A) und ${b} (B).`);
  assert.deepEqual(de.warnings, []);
  assertClean(de.problems);
  assertClean(en.problems);
  await en.context.close();
  await de.context.close();
});

test('lang="es": Spanish words and decimal commas; fits 360 px', async () => {
  const { page: p, context, problems, warnings } = await open('/lab-es.html', { ready: ['lab'], width: 360 });
  assert.equal(await text(p, '#lab h3'), 'Laboratorio de entrenamiento: dos GPT lado a lado');
  assert.equal(await text(p, '#lab legend.fs'), 'Ajustes');
  assert.equal(await text(p, '#lab button.play'), 'Entrenar');
  assert.equal(await text(p, '#lab select#comparison option[value="residual"]'), 'con o sin conexiones residuales');
  assert.equal(await text(p, '#lab output[for="lr"]'), '0,015');
  assert.equal(await text(p, '#lab .loss-chart .ref text'), 'conjetura uniforme, ln 256 = 5,55');
  assert.match(await text(p, '#lab .status'), /^Listo: la ejecución A tiene 196\.512 parámetros y la B, 196\.512 \(wasm [\w-]+\)\. Pulsa «Entrenar»\.$/);
  assert.equal(await text(p, '#lab .samples figcaption .run-name'), 'A: pre-norm');
  assert.match(await text(p, '#lab .samples figcaption'), /^A: pre-norm — tras el paso 0$/);
  await p.selectOption('#lab select#comparison', 'warmup');
  await p.waitForFunction(() => window.__ev.ready.length > 1, null, { timeout: 60000 });
  assert.match(await text(p, '#lab .look-for'), /^Ambas ejecuciones son post-norm\. La ejecución A aumenta la tasa de aprendizaje linealmente durante los primeros 60 pasos;/);
  assert.equal(await text(p, '#lab .run-legend'), 'A: post-norm, con calentamientoB: post-norm, sin calentamiento');
  await trainSome(p, 'lab', 2);
  await assertFits(p, 'training-lab', 360, 'in Spanish');
  assert.deepEqual(warnings, []);
  assertClean(problems);
  await context.close();
});

test('<html lang="de"> without lang on the lab speaks German and fits 360 px; a new lang keeps the runs it trained', async () => {
  const { page: p, context, problems, warnings } = await open('/host-de.html', { ready: ['lab'], width: 360 });
  assert.equal(await text(p, '#lab h3'), 'Trainingslabor: zwei GPTs im Vergleich');
  assert.equal(await text(p, '#lab button.play'), 'Trainieren');
  const [a, b] = await trainSome(p, 'lab', 4);
  await assertFits(p, 'training-lab', 360, 'in German');
  await p.evaluate(() => {
    window.__pair = document.getElementById('lab').pair;
    document.getElementById('lab').setAttribute('lang', 'es');
  });
  await p.waitForFunction(() => document.getElementById('lab').shadowRoot.querySelector('h3').textContent.startsWith('Laboratorio'));
  assert.equal(await p.evaluate(() => document.getElementById('lab').pair === window.__pair), true, 'the same runs');
  assert.equal(await state(p, 'lab'), 'paused');
  assert.equal(await text(p, '#lab button.play'), 'Reanudar');
  assert.equal(await text(p, '#lab .status'), a.step === b.step ? `En pausa en el paso ${a.step}.` : `En pausa tras el paso ${a.step} (A) y el ${b.step} (B).`);
  await p.waitForFunction((s) => document.getElementById('lab').shadowRoot.querySelector('tr[data-run="a"] td.step')?.textContent === String(s), a.step);
  assert.equal(await text(p, '#lab tr[data-run="a"] td.loss'), comma(a.avg, 3));
  assert.equal(await p.locator('#lab .loss-chart svg path.train').count(), 2);
  assert.equal(await p.locator('#lab select#ck-a option').count(), 1, 'the step-0 checkpoint, kept');
  assert.equal(await readyCount(p, 'lab'), 1, 'no rebuild');
  // Resume goes on from the step it had reached.
  await p.click('#lab button.play');
  await p.waitForFunction((s) => window.__ev.step.some((e) => e.run === 'a' && e.step === s + 2), a.step);
  const steps = await p.evaluate(() => window.__ev.step.filter((e) => e.run === 'a').map((e) => e.step));
  assert.deepEqual(steps.slice(0, a.step + 2), Array.from({ length: a.step + 2 }, (_, i) => i + 1));
  await p.click('#lab button.play');
  await assertFits(p, 'training-lab', 360, 'in Spanish');
  assert.deepEqual(warnings, []);
  assertClean(problems);
  await context.close();
});

test('controls, lock and sections; the intro and caption slots; an unknown group is warned about once', async () => {
  const { page: p, context, problems, warnings } = await open('/layout.html', { ready: ['none', 'one', 'locked', 'some'] });
  const visible = (selector) => p.locator(selector).evaluateAll((els) => els.map((el) => el.checkVisibility()));
  const CONTROLS = ['select#comparison', 'input#lr', 'input#warmup', 'input#steps', 'select#layers', 'select#emb-dim',
    'button.play', 'button.reset', 'select#ck-a', 'button.inspect', 'button.download'];

  // controls="none": no control is rendered, none in the accessibility tree; the Settings box and checkpoints go too.
  for (const c of CONTROLS) assert.ok((await visible(`#none ${c}`)).every((v) => !v), `#none ${c} hidden`);
  assert.deepEqual(await visible('#none fieldset.settings'), [false]);
  assert.deepEqual(await visible('#none section.checkpoints'), [false]);
  assert.deepEqual(await visible('#none h3'), [true]);
  assert.deepEqual(await visible('#none .loss-chart'), [true]);
  const tree = await p.locator('#none').ariaSnapshot();
  for (const role of ['combobox', 'slider', 'spinbutton']) assert.ok(!tree.includes(`- ${role}`), `a ${role} in ${tree}`);
  // Copy as PyTorch (the kit's panel) is a section, not one of the lab's control groups: the only button left, if any.
  const copy = (await text(p, '#none button[part~="copy-pytorch"]')).trim();
  const buttons = [...tree.matchAll(/- button "([^"]*)"/g)].map((m) => m[1]);
  assert.ok(buttons.every((b) => b === copy), `buttons in the accessibility tree: ${buttons}`);

  // controls="lr, bogus": only the learning-rate slider; one warning naming bogus.
  for (const c of CONTROLS) assert.deepEqual([...new Set(await visible(`#one ${c}`))], [c === 'input#lr'], `#one ${c}`);
  assert.deepEqual(await visible('#one fieldset.settings'), [true]);
  const bogus = warnings.filter((w) => w.includes('bogus'));
  assert.equal(bogus.length, 1, warnings.join('\n'));
  assert.match(bogus[0], /<training-lab> controls="lr, bogus": no control group named bogus/);
  assert.deepEqual(warnings.filter((w) => !w.includes('bogus')), []);

  // lock="lr,comparison,train": shown, disabled; the learner's keys and a change that slips through are refused,
  // and the runs are not rebuilt.
  for (const c of ['input#lr', 'select#comparison', 'button.play', 'button.reset']) {
    assert.equal(await p.locator(`#locked ${c}`).isDisabled(), true, `#locked ${c} disabled`);
    assert.deepEqual(await visible(`#locked ${c}`), [true]);
  }
  assert.equal(await p.locator('#locked input#warmup').isDisabled(), false);
  const pairBefore = await p.evaluate(() => {
    window.__lockedPair = document.getElementById('locked').pair;
    return window.__ev.ready.length;
  });
  await p.locator('#locked input#lr').press('ArrowLeft').catch(() => {});
  await p.locator('#locked select#comparison').press('ArrowDown').catch(() => {});
  await p.locator('#locked button.play').click({ force: true, timeout: 2000 }).catch(() => {});
  await p.evaluate(() => {
    const lr = document.getElementById('locked').shadowRoot.querySelector('input#lr');
    lr.value = '-1';
    lr.dispatchEvent(new Event('input'));
    lr.dispatchEvent(new Event('change'));
    const cmp = document.getElementById('locked').shadowRoot.querySelector('select#comparison');
    cmp.value = 'ffn';
    cmp.dispatchEvent(new Event('change'));
  });
  await p.waitForTimeout(800);
  assert.equal(await p.getAttribute('#locked', 'lr'), null, 'lr unchanged');
  assert.equal(await p.getAttribute('#locked', 'comparison'), null, 'comparison unchanged');
  assert.equal(await p.inputValue('#locked select#comparison'), 'norm', 'the menu shows the comparison again');
  assert.equal(await text(p, '#locked output[for="lr"]'), '0.015', 'the slider shows the learning rate again');
  assert.equal(await p.evaluate(() => window.__ev.ready.length), pairBefore, 'no rebuild');
  assert.equal(await p.evaluate(() => document.getElementById('locked').pair === window.__lockedPair), true, 'the same runs');
  assert.equal(await state(p, 'locked'), 'ready', 'not training');
  // A script may still train a locked lab; the Train button stays disabled through the state changes.
  await p.evaluate(() => document.getElementById('locked').play());
  await p.waitForFunction(() => window.__ev.step.filter((e) => e.id === 'locked').length >= 4);
  assert.equal(await text(p, '#locked button.play'), 'Pause');
  assert.equal(await p.locator('#locked button.play').isDisabled(), true);
  await p.evaluate(() => document.getElementById('locked').pause());
  await p.waitForFunction(() => document.getElementById('locked').dataset.state === 'paused');
  // Unlocked, the controls work again.
  await p.evaluate(() => document.getElementById('locked').removeAttribute('lock'));
  for (const c of ['input#lr', 'select#comparison', 'button.play', 'button.reset']) {
    assert.equal(await p.locator(`#locked ${c}`).isDisabled(), false, `#locked ${c} enabled again`);
  }
  const n = await readyCount(p, 'locked');
  await p.selectOption('#locked select#comparison', 'activation');
  await p.click('#locked .restart-prompt button.restart'); // the runs have trained: a new comparison is asked about first
  await p.waitForFunction((k) => window.__ev.ready.filter((r) => r.id === 'locked').length > k, n, { timeout: 60000 });
  assert.equal(await p.getAttribute('#locked', 'comparison'), 'activation');

  // The author's intro under the title and caption under the charts, inside the lab's frame.
  const slots = await p.evaluate(() => {
    const lab = document.getElementById('locked');
    const box = (el) => el.getBoundingClientRect();
    const [intro, caption] = [...lab.querySelectorAll('p')];
    const root = lab.shadowRoot;
    return { lab: box(lab).toJSON(), intro: box(intro).toJSON(), caption: box(caption).toJSON(), title: box(root.querySelector('h3')).toJSON(),
      charts: box(root.querySelector('[part~="chart"]')).toJSON(), samples: box(root.querySelector('[part~="samples"]')).toJSON(),
      slotted: [intro.assignedSlot?.name, caption.assignedSlot?.name] };
  });
  assert.deepEqual(slots.slotted, ['intro', 'caption']);
  for (const name of ['intro', 'caption']) {
    const r = slots[name];
    assert.ok(r.height > 0 && r.top >= slots.lab.top && r.bottom <= slots.lab.bottom && r.left >= slots.lab.left, `${name} inside the frame`);
  }
  assert.ok(slots.intro.top >= slots.title.bottom, 'intro under the title');
  assert.ok(slots.caption.top >= slots.charts.bottom && slots.caption.bottom <= slots.samples.top, 'caption under the charts');

  // sections="title,loss": only the heading and the loss chart.
  const sections = { title: 'h3', description: '[part~="description"]', settings: 'fieldset.settings', legend: '.run-legend',
    'look-for': '.look-for', loss: '[part~="loss"]', gradients: '[part~="gradients"]', samples: '[part~="samples"]',
    results: '[part~="results"]', 'copy-pytorch': '.pytorch', checkpoints: 'section.checkpoints', status: '.status' };
  for (const [name, selector] of Object.entries(sections)) {
    assert.deepEqual(await visible(`#some ${selector}`), [['title', 'loss'].includes(name)], `#some ${name}`);
    assert.deepEqual(await visible(`#one ${selector}`), [name !== 'checkpoints'], `#one ${name}`); // no checkpoint controls shown
  }
  assert.equal(await p.locator('#some .loss-chart svg path.train').count(), 2);
  assertClean(problems);
  await context.close();
});
