// What a learner does in <ffn-explorer> and <block-explorer>, in Chromium: lesson 82 §29's FFN(4, 16) preset prints
// the lesson's numbers; predicting the FFN's parameter count (hidden until answered); checking a learner's own FFN
// and EncoderBlock against PyTorch's prints of every mistake (tests/golden/learner-prints.json); the first step
// that disagrees and the mistake that reproduces it; "break a step" practice; the FFN-across-the-sequence trap;
// the collapsed W₂W₁ without an activation; and each Copy-as-PyTorch snippet run by /usr/bin/python3.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { assertClean, assertFits, browserSuite, openPage, screenshot } from './support.mjs';

const env = browserSuite();
const PRINTS = JSON.parse(readFileSync(new URL('../golden/learner-prints.json', import.meta.url), 'utf8'));

async function open(tag, attrs, ready, options = {}) {
  const session = await openPage(env.browser, options);
  await session.page.goto(`${env.url}examples/${tag}.html`);
  await session.page.locator(`${tag} .status`).filter({ hasText: /Computed by the core|forward passes/ }).waitFor({ timeout: 20000 });
  await session.page.evaluate(([t, a]) => {
    window.__events = [];
    for (const name of ['blockscope-answer', 'blockscope-check', 'blockscope-change', 'blockscope-forward']) {
      document.addEventListener(name, (e) => window.__events.push({ type: name, ...e.detail }));
    }
    for (const [k, v] of Object.entries(a)) document.querySelector(t).setAttribute(k, v);
  }, [tag, attrs]);
  if (ready) await session.page.locator(`${tag} ${ready}`).first().waitFor({ timeout: 20000 });
  return session;
}
const events = (page, type) => page.evaluate((t) => window.__events.filter((e) => e.type === t), type);
async function lastCheck(page, n) {
  await page.waitForFunction((k) => window.__events.filter((e) => e.type === 'blockscope-check').length > k, n);
  return (await events(page, 'blockscope-check')).at(-1);
}
function runPython(code) {
  const out = execFileSync('/usr/bin/python3', ['-c', code], { encoding: 'utf8', maxBuffer: 1 << 24 });
  return Object.fromEntries(out.trim().split('\n').map((line) => {
    const at = line.indexOf(' ');
    return [line.slice(0, at), JSON.parse(line.slice(at + 1))];
  }));
}
const near = (a, b, tol, what) => {
  const x = [a].flat(3);
  const y = [b].flat(3);
  assert.equal(x.length, y.length, what);
  x.forEach((v, i) => assert.ok(Math.abs(v - y[i]) <= tol, `${what}[${i}]: ${v} vs ${y[i]}`));
};

test('ffn-lesson82: the lesson\'s printout, its mistakes named, the parameter count predicted, and its snippet', async () => {
  const tag = 'ffn-explorer';
  const { page, context, problems } = await open(tag, { preset: 'ffn-lesson82', predict: 'params', d: '4' }, '.ffn-lesson:not([hidden])');
  const lesson = page.locator(`${tag} .ffn-lesson`);
  // Hidden until predicted: the printout's params line and the cost tables' counts.
  await page.locator(`${tag} [data-cost="parameters"] .masked`).waitFor();
  const lessonText = await lesson.textContent();
  assert.ok(!lessonText.includes('148'), lessonText);
  assert.ok(!(await page.locator(tag).ariaSnapshot()).includes('148'));
  await page.locator(`${tag} #predict-params`).fill('128');
  await page.locator(`${tag} [data-question="params"] button`).first().click();
  const said = await page.locator(`${tag} #predict-params-result`).textContent();
  assert.match(said, /You said 128\.0000; the core computes 148\.0000\..*the two weight matrices only: the biases add h \+ d = 20/);
  const answer = (await events(page, 'blockscope-answer')).at(-1);
  assert.deepEqual([answer.question, answer.answer, answer.expected, answer.correct, answer.tolerance, answer.attempts], ['params', 128, 148, false, 0, 1]);
  const printout = await lesson.locator('pre.printout').textContent();
  assert.equal(printout, 'hidden shape: torch.Size([1, 16])\noutput shape: torch.Size([1, 4])\n' +
    'output:       [−0.3974, 0.2011, 0.0934, −0.1582]\nparams:       148');
  const change = (await events(page, 'blockscope-change')).filter((e) => e.section === 'lesson').at(-1);
  assert.ok(change.maxAbsDiff <= 1e-6, `core vs PyTorch ${change.maxAbsDiff}`);
  // The snippet (the lesson's code verbatim) prints the same numbers.
  let py = runPython(await page.evaluate((t) => document.querySelector(t).toPyTorch(), tag));
  assert.deepEqual([py.hidden_shape, py.output_shape, py.params], [[1, 16], [1, 4], 148]);
  near(py.output, change.output, 1e-6, 'snippet output');
  // Four tokens: every FFN mistake, printed by PyTorch, is named.
  await page.locator(`${tag} #lesson-x`).fill(PRINTS.ffn_lesson82.x);
  await lesson.locator('.lesson-compare').filter({ hasText: 'Your own x' }).waitFor();
  await lesson.locator('details.check summary').click();
  for (const [id, p] of Object.entries(PRINTS.ffn_lesson82.prints)) {
    const n = (await events(page, 'blockscope-check')).length;
    await lesson.locator('[part="check-input"]').fill(p.repr);
    await lesson.locator('details.check button').click();
    const e = await lastCheck(page, n);
    assert.equal(e.match, id, `${id}: ${await lesson.locator('[part="check-result"]').textContent()}`);
  }
  py = runPython(await page.evaluate((t) => document.querySelector(t).toPyTorch(), tag));
  near(py.output, (await events(page, 'blockscope-change')).filter((e) => e.section === 'lesson').at(-1).output, 1e-6, '4-token output');
  await screenshot(page, 'learner-ffn-lesson82');
  assertClean(problems);
  await context.close();
});

test('the FFN-across-the-sequence trap moves every row; without an activation W₂W₁ collapses; snippets agree', async () => {
  const tag = 'ffn-explorer';
  const { page, context, problems } = await open(tag, { 'example-activation': 'none' }, '.collapse:not([hidden])', { width: 360 });
  assert.match(await page.locator(`${tag} [data-example="collapsed"]`).textContent(), /^\[\[1\.0000, 0\.0000\], \[0\.0000, 1\.0000\]\]$/);
  const py = runPython(await page.evaluate((t) => document.querySelector(t).toPyTorch(), tag));
  const ex = (await events(page, 'blockscope-change')).filter((e) => e.section === 'example').at(-1);
  near(py.output, ex.output, 1e-6, 'no-activation output');
  near(py.collapsed, [[1, 0], [0, 1]], 1e-6, 'W2 W1');
  // The trap: switching it on fills in a fourth position (T = d = 4); an edit of one position moves all four.
  await page.locator(`${tag} #demo-mode`).check();
  await page.locator(`${tag} .demo-info`).filter({ hasText: 'Trap on' }).waitFor();
  await page.locator(`${tag} button.nudge`).nth(1).click();
  await page.locator(`${tag} .report`).filter({ hasText: 'that is the trap' }).waitFor();
  const pw = (await events(page, 'blockscope-change')).filter((e) => e.section === 'positionwise').at(-1);
  assert.equal(pw.mode, 'across-sequence');
  assert.deepEqual(pw.changedInputs, [2]);
  assert.deepEqual(pw.changedOutputs, [1, 2, 3, 4]);
  await page.locator(`${tag} #demo-mode`).uncheck();
  await page.locator(`${tag} .demo-info`).filter({ hasNotText: 'Trap on' }).waitFor();
  await page.locator(`${tag} button.nudge`).nth(1).click();
  await page.locator(`${tag} .report`).filter({ hasText: 'bit-for-bit' }).waitFor();
  await assertFits(page, tag, 360, 'with the trap and the collapse');
  await screenshot(page, 'learner-ffn-trap-360');
  assertClean(problems);
  await context.close();
});

async function stepCheck(page, text, step = 'all') {
  const tag = 'block-explorer';
  const n = (await events(page, 'blockscope-check')).length;
  await page.locator(`${tag} #paste-step`).selectOption(step);
  await page.locator(`${tag} #step-input`).fill(text);
  await page.locator(`${tag} .step-check button`).first().click();
  return lastCheck(page, n);
}

test('block: the first step that disagrees, for every mistake PyTorch printed, and break-a-step practice', async () => {
  const tag = 'block-explorer';
  const { page, context, problems } = await open(tag, { preset: 'encoder-block-lesson82' }, '.step-check:not([hidden]) #break-mistake');
  await page.locator(`${tag} #break-mistake option`).first().waitFor({ state: 'attached' });
  for (const [id, c] of Object.entries(PRINTS.encoder_block)) {
    const e = await stepCheck(page, c.print, c.step ?? 'all');
    const want = c.mistake ?? id;
    assert.equal(e.match, want, `${id}: ${await page.locator(`${tag} .step-check [part="check-result"]`).textContent()}`);
    assert.equal(e.step, c.first, `${id}: first step`);
    if (c.first) assert.equal(await page.locator(`${tag} .step-table tr.first`).getAttribute('data-step'), c.first);
  }
  // The hooks snippet the widget offers, run on the lesson's own block, is judged correct at every step.
  const { lessonCode, hooks } = await page.evaluate(() => {
    const el = document.querySelector('block-explorer');
    return { lessonCode: el.lesson.preset.lessonCode, hooks: el.lesson.preset.hooksSnippet };
  });
  const printed = execFileSync('/usr/bin/python3', ['-c', `import torch, torch.nn as nn\n${lessonCode}\n` +
    `torch.manual_seed(42)\nblock = EncoderBlock(8, 2, 32)\nx = torch.randn(2, 5, 8)\n${hooks}`], { encoding: 'utf8' });
  const ok = await stepCheck(page, printed);
  assert.equal(ok.match, 'correct');
  assert.equal(ok.steps.length, 6);
  // Break a step: the core injects ReLU at ff; answering att is wrong, ff right.
  await page.locator(`${tag} #break-step`).selectOption('ff');
  await page.locator(`${tag} #break-mistake option[value="relu-instead-of-gelu"]`).waitFor({ state: 'attached' });
  await page.locator(`${tag} #break-mistake`).selectOption('relu-instead-of-gelu');
  await page.locator(`${tag} .break button`).first().click();
  await page.locator(`${tag} .break-quiz:not([hidden])`).waitFor();
  await page.locator(`${tag} .break-quiz input[value="att"]`).check();
  let n = (await events(page, 'blockscope-check')).length;
  await page.locator(`${tag} .break-quiz .quiz-answer`).click();
  let e = await lastCheck(page, n);
  assert.deepEqual([e.match, e.step], ['relu-instead-of-gelu', 'ff']);
  await page.locator(`${tag} .break-quiz input[value="ff"]`).check();
  n = (await events(page, 'blockscope-check')).length;
  await page.locator(`${tag} .break-quiz .quiz-answer`).click();
  e = await lastCheck(page, n);
  const answers = (await events(page, 'blockscope-answer')).map((a) => [a.question, a.answer, a.expected, a.correct, a.attempts]);
  assert.deepEqual(answers, [['first-wrong-step', 'att', 'ff', false, 1], ['first-wrong-step', 'ff', 'ff', true, 2]]);
  // A bad paste is refused by name; the check keeps working.
  await stepCheck(page, "{'norm1': [[1, 2]], 'lm_head': [1]}").catch(() => {});
  assert.match(await page.locator(`${tag} .step-check [part="check-result"]`).textContent(), /Unknown step 'lm_head'/);
  await screenshot(page, 'learner-block-first-wrong-step');
  assertClean(problems);
  await context.close();
});

test('block, keyboard only: paste one step and check it, then break a step and answer the quiz', async () => {
  const tag = 'block-explorer';
  const { page, context, problems } = await open(tag, { preset: 'encoder-block-lesson82' }, '.step-check:not([hidden]) #break-mistake',
    { width: 360 });
  await page.locator(`${tag} #break-mistake option`).first().waitFor({ state: 'attached' });
  const aria = await page.locator(`${tag} .step-check`).ariaSnapshot();
  for (const name of ['combobox "What you paste"', 'textbox "Your printout"', 'button "Find the first step that disagrees"',
    'combobox "step"', 'combobox "mistake"', 'button "Break it"']) assert.ok(aria.includes(name), `${name} in\n${aria}`);
  const focused = () => page.evaluate((t) => document.querySelector(t).shadowRoot.activeElement?.id
    || document.querySelector(t).shadowRoot.activeElement?.textContent, tag);
  // One step (attention without the 1/√d scale), chosen, pasted and checked with keys alone.
  await page.locator(`${tag} #paste-step`).focus();
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  assert.equal(await page.locator(`${tag} #paste-step`).inputValue(), 'att');
  await page.keyboard.press('Tab');
  assert.equal(await focused(), 'step-input');
  await page.keyboard.insertText(PRINTS.encoder_block['single-att'].print);
  await page.keyboard.press('Tab');
  assert.equal(await focused(), 'Find the first step that disagrees');
  let n = (await events(page, 'blockscope-check')).length;
  await page.keyboard.press('Enter');
  let e = await lastCheck(page, n);
  assert.deepEqual([e.match, e.step], ['no-scale', 'att']);
  assert.match(await page.locator(`${tag} .step-check [part="check-result"][aria-live="polite"]`).textContent(), /scale/);
  // Break a step: norm2 with the unbiased variance; Tab to the quiz, pick norm2 with the arrow keys, answer.
  await page.locator(`${tag} #break-step`).focus();
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  assert.equal(await page.locator(`${tag} #break-step`).inputValue(), 'norm2');
  // The list of mistakes for norm2 (not a list still being made for a step passed on the way).
  await page.locator(`${tag} #break-mistake[data-step="norm2"] option[value="unbiased-variance"]`).waitFor({ state: 'attached' });
  await page.keyboard.press('Tab');
  assert.equal(await focused(), 'break-mistake');
  for (let i = 0; i < 10 && await page.locator(`${tag} #break-mistake`).inputValue() !== 'unbiased-variance'; i++) {
    await page.keyboard.press('ArrowDown');
  }
  assert.equal(await page.locator(`${tag} #break-mistake`).inputValue(), 'unbiased-variance');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Enter');
  await page.locator(`${tag} .break-quiz:not([hidden])`).waitFor();
  await page.keyboard.press('Tab'); // into the radio group: its first option
  for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowDown'); // norm1 -> att -> add1 -> norm2
  assert.equal(await page.locator(`${tag} .break-quiz input:checked`).getAttribute('value'), 'norm2');
  while (await focused() !== 'Answer') await page.keyboard.press('Tab');
  n = (await events(page, 'blockscope-check')).length;
  await page.keyboard.press('Enter');
  e = await lastCheck(page, n);
  assert.deepEqual([e.match, e.step], ['unbiased-variance', 'norm2']);
  const answer = (await events(page, 'blockscope-answer')).at(-1);
  assert.deepEqual([answer.question, answer.answer, answer.correct], ['first-wrong-step', 'norm2', true]);
  await assertFits(page, tag, 360, 'with the step check');
  await screenshot(page, 'learner-block-keyboard-360');
  assertClean(problems);
  await context.close();
});

test('block: predict the first operation (stepper out of the page until answered), the quiz, and the snippets', async () => {
  const tag = 'block-explorer';
  const { page, context, problems } = await open(tag, { predict: 'first-op,prenorm-quiz', norm: 'post' }, '[part="predict"]:not([hidden])', { colorScheme: 'dark' });
  assert.equal(await page.locator(`${tag} .stepper-wrap`).count(), 0, 'the stepper is in the page before the answer');
  assert.ok(!(await page.locator(tag).ariaSnapshot()).includes('self.norm1'));
  await page.locator(`${tag} [data-question="first-op"] input[value="norm1"]`).check();
  await page.locator(`${tag} [data-question="first-op"] button`).first().click();
  await page.locator(`${tag} #predict-first-op-result`).filter({ hasText: 'post-norm runs attention on the raw input' }).waitFor();
  await page.locator(`${tag} .stepper-wrap`).waitFor();
  await page.locator(`${tag} [data-question="prenorm-quiz"] input[value="pre"]`).check();
  await page.locator(`${tag} [data-question="prenorm-quiz"] button`).first().click();
  await page.locator(`${tag} #predict-prenorm-quiz-result`).filter({ hasText: 'Right' }).waitFor();
  const a = await events(page, 'blockscope-answer');
  assert.deepEqual(a.map((x) => [x.question, x.answer, x.expected, x.correct]), [['first-op', 'norm1', 'att', false], ['prenorm-quiz', 'pre', 'pre', true]]);
  // GPT mode's snippet counts the parameters the widget reports.
  const { code, text } = await page.evaluate((t) => {
    const el = document.querySelector(t);
    return { code: el.toPyTorch(), text: el.shadowRoot.querySelector('.model-text').textContent };
  }, tag);
  const py = runPython(code);
  assert.ok(text.includes(`${py.params.toLocaleString('en-US')} parameters`), `${py.params} in "${text}"`);
  // Lesson mode's snippet prints every step's per-token statistics: equal to the core's inspection.
  const wait = page.evaluate(() => new Promise((r) => document.addEventListener('blockscope-forward', (e) => r(e.detail), { once: true })));
  await page.evaluate((t) => document.querySelector(t).setAttribute('preset', 'encoder-block-lesson82'), tag);
  const fwd = await wait;
  const lesson = runPython(await page.evaluate((t) => document.querySelector(t).toPyTorch(), tag));
  for (const s of fwd.inspection.pre.layers[0].steps.filter((x) => x.id in lesson)) {
    near(lesson[s.id][0], Array.from(Object.values(s.mean)), 2e-6, `${s.id} mean`);
    near(lesson[s.id][1], Array.from(Object.values(s.var)), 2e-6, `${s.id} var`);
    near(lesson[s.id][2], Array.from(Object.values(s.norm)), 2e-6, `${s.id} norm`);
  }
  await screenshot(page, 'learner-block-predict-dark');
  assertClean(problems);
  await context.close();
});

test('the FFN cost view: attention\'s 8d² and 4nd FLOPs, "the FFN dominates below 2d tokens", the FFN-bias toggle', async () => {
  const tag = 'ffn-explorer';
  const { page, context, problems } = await open(tag, {}, '.dominance');
  const cost = (key) => page.locator(`${tag} [data-cost="${key}"]`).textContent();
  assert.equal(await cost('flops'), '9,437,184');            // 16d² at d = 768
  assert.equal(await cost('attention-flops'), '4,718,592');  // 8d²
  assert.equal(await cost('score-flops'), '3,145,728');      // 4nd at n = 1024
  assert.match(await page.locator(`${tag} .dominance`).textContent(), /shorter than 1,536 tokens = 2d: at n = 1,024 the FFN is the larger cost/);
  // n = 2048 > 2d: attention is now the larger cost.
  await page.locator(`${tag} #in-tokens`).fill('2048');
  await page.locator(`${tag} .dominance`).filter({ hasText: 'no longer the larger cost' }).waitFor();
  // Keyboard: Space on the FFN-bias checkbox drops the 5d biases from the count (8d² = 4,718,592 at d = 768).
  await page.locator(`${tag} #ffn-bias`).focus();
  await page.keyboard.press('Space');
  await page.locator(`${tag} [data-cost="parameters"]`).filter({ hasText: '4,718,592' }).waitFor();
  const e = (await events(page, 'blockscope-change')).filter((x) => x.section === 'costs').at(-1);
  assert.deepEqual([e.ffnBias, e.parameters, e.ffnDominatesBelow], [false, 4718592, 1536]);
  assertClean(problems);
  await context.close();
});

test('the compounding toy: 2¹⁰ ≈ 1024 and 0.5¹⁰ ≈ 0.001, next to the real networks\' layer-1/layer-L ratios', async () => {
  const tag = 'residual-flow-explorer';
  const { page, context, problems } = await open(tag, {}, '.toy-real');
  const norms = (await page.evaluate(() => document.querySelector('residual-flow-explorer').result.norms));
  await page.locator(`${tag} .compounding button[data-factor="2"]`).click();
  assert.match(await page.locator(`${tag} #toy-result`).textContent(), /^2\.0\^10 = 1024\.00: .* explodes/);
  await page.locator(`${tag} .compounding button[data-factor="0.5"]`).click();
  assert.match(await page.locator(`${tag} #toy-result`).textContent(), /^0\.5\^10 = 9\.77 × 10\^−4: .* vanishes/);
  const ratio = norms.withoutResidual[0] / norms.withoutResidual.at(-1);
  assert.match(await page.locator(`${tag} .toy-real`).textContent(),
    new RegExp(`without residual: layer 1 / layer 8 = ${ratio.toFixed(2)}`));
  // Keyboard: type a factor; the bars follow (11 bars for 10 layers, log scale).
  await page.locator(`${tag} #toy-factor`).fill('1.5');
  assert.match(await page.locator(`${tag} #toy-result`).textContent(), /^1\.5\^10 = 57\.67/);
  assert.equal(await page.locator(`${tag} .toy-chart rect`).count(), 11);
  assertClean(problems);
  await context.close();
});

test('GPT_CONFIG_124M: the constructor view\'s five parts counted as PyTorch counts the book\'s TransformerBlock; steppable at 768', async () => {
  const tag = 'block-explorer';
  const { page, context, problems } = await open(tag, { preset: 'gpt2-124m' }, '.config-view:not([hidden]) td[data-part="total"]');
  const counts = Object.fromEntries(await page.locator(`${tag} .config-view tr[data-part]`).evaluateAll((rows) =>
    rows.map((r) => [r.dataset.part, Number(r.querySelector('td.num').textContent.replace(/,/g, ''))])));
  counts.total = Number((await page.locator(`${tag} .config-view td[data-part="total"]`).textContent()).replace(/,/g, ''));
  const py = runPython([
    'import sys; sys.path.insert(0, "tests/reference")',
    'from book_modules import TransformerBlock',
    'cfg = {"vocab_size": 50257, "context_length": 1024, "emb_dim": 768, "n_heads": 12, "n_layers": 12, "drop_rate": 0.1, "qkv_bias": False}',
    'b = TransformerBlock(cfg)',
    'n = lambda m: sum(p.numel() for p in m.parameters())',
    'print("parts", [n(b.att), n(b.ff), n(b.norm1), n(b.norm2), n(b.drop_shortcut), n(b)])',
  ].join('\n'));
  assert.deepEqual([counts.att, counts.ff, counts.norm1, counts.norm2, counts.drop, counts.total], py.parts);
  // The stepper runs a real 768-wide block: norm1's output has per-token variance ≈ 1 (LayerNorm at init).
  await page.evaluate(() => { window.__step = null; document.addEventListener('blockscope-step', (e) => { window.__step = e.detail; }); });
  await page.locator(`${tag} .next`).click();
  await page.waitForFunction(() => window.__step?.step === 'norm1');
  const v = await page.evaluate(() => window.__step.var);
  assert.ok(v.every((x) => Math.abs(x - 1) < 1e-3), `norm1 variance ${v.slice(0, 3)}`);
  const fwd = await page.evaluate(() => document.querySelector('block-explorer').blockModel.config);
  assert.deepEqual([fwd.emb_dim, fwd.n_heads, fwd.context_length, fwd.n_layers], [768, 12, 1024, 1]);
  assertClean(problems);
  await context.close();
});

test('residual flow: the Copy-as-PyTorch snippet is lesson 82 §21\'s code and prints the widget\'s gradient norms', async () => {
  const tag = 'residual-flow-explorer';
  const { page, context, problems } = await open(tag, {}, '.toy-real');
  const { code, norms } = await page.evaluate((t) => {
    const el = document.querySelector(t);
    return { code: el.toPyTorch(), norms: el.result.norms };
  }, tag);
  assert.match(code, /torch\.manual_seed\(7\)/);
  const py = runPython(code);
  near(py.withoutResidual, norms.withoutResidual, 1e-4, 'without residual');
  near(py.withResidual, norms.withResidual, 1e-4, 'with residual');
  await page.locator(`${tag} [part="copy-pytorch"]`).click();
  await page.locator(`${tag} .copy-box [role="status"]`).filter({ hasText: /Copied|selected/ }).waitFor();
  assertClean(problems);
  await context.close();
});
