// The lesson page's "Tokens that are words" section, in Chromium: its <gpt-explorer model="brown-bpe"> reads
// the shipped BPE model with the model's own vocab.json + merges.txt — the prompt's chips are the ids OpenAI
// encoder.py's algorithm gives on those files and the next-token logits are PyTorch's within 1e-4
// (tests/golden/trained_brown_bpe.json, tests/reference/make_trained_goldens.py) —; its logit lens and attribution
// cover the BPE tokens; its Copy-as-PyTorch snippet, run by Debian's PyTorch, prints the same candidates; it fits
// 360 px in dark mode; and nothing logs an error. Screenshots in artifacts/screenshots/.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { promisify } from 'node:util';

import { ARTIFACTS, assertClean, browserSuite, openPage } from './support.mjs';

const env = browserSuite();
const golden = JSON.parse(readFileSync(new URL('../golden/trained_brown_bpe.json', import.meta.url), 'utf8'));
const prompt = golden.prompts.find((p) => p.text === 'The jury said that the');
const config = JSON.parse(readFileSync(new URL('../../web/models/brown-bpe/config.json', import.meta.url), 'utf8'));

/** The words explorer's forward pass once shown, with its chips and lens rows. */
async function shown(page) {
  await page.waitForFunction(() => window.__words.length > 0, null, { timeout: 60000 });
  await page.waitForFunction(() => document.querySelector('#gpt-words').shadowRoot.querySelectorAll('table.lens tbody tr').length > 0);
  return page.evaluate(() => {
    const r = document.querySelector('#gpt-words').shadowRoot;
    return {
      ev: window.__words.at(-1),
      chipIds: [...r.querySelectorAll('.chips li[data-position]')].map((li) => Number(li.dataset.id)),
      note: r.querySelector('.token-note').textContent,
      lensRows: r.querySelectorAll('table.lens tbody tr').length,
      attr: [...r.querySelectorAll('ol.attr li')].length,
    };
  });
}

for (const colorScheme of ['light', 'dark']) {
  test(`lesson page, ${colorScheme}: the BPE model reads its own tokens and gives PyTorch's logits`, async () => {
    const width = colorScheme === 'dark' ? 360 : 1000;
    const { page, context, problems } = await openPage(env.browser, { width, colorScheme });
    await page.addInitScript(() => {
      window.__words = [];
      document.addEventListener('blockscope-forward', (e) => {
        if (e.target.id === 'gpt-words') window.__words.push(e.detail);
      });
    });
    await page.goto(`${env.url}#words`);
    await page.locator('#gpt-words').scrollIntoViewIfNeeded();
    const seen = await shown(page);
    assert.deepEqual(seen.ev.ids, prompt.ids, "the model's own BPE ids (encoder.py's on the same files)");
    assert.deepEqual(seen.chipIds, prompt.ids);
    assert.match(seen.note, /model's own byte-level BPE .*vocab\.json \+ merges\.txt; vocabulary /);
    assert.ok(seen.note.includes(`vocabulary ${config.vocab_size.toLocaleString('en-US')}`), seen.note);
    const expected = prompt.logits.at(-1);
    const diff = Math.max(...seen.ev.lastLogits.map((v, i) => Math.abs(v - expected[i])));
    assert.ok(diff <= 1e-4, `last-position logits differ from PyTorch's by ${diff}`);
    // The lens has a row per layer (embeddings + each block), attribution one item per prompt token.
    assert.equal(seen.lensRows, seen.ev.config.n_layers + 1);
    assert.equal(seen.ev.lens.length, seen.ev.config.n_layers + 1);
    assert.equal(seen.attr, prompt.ids.length);
    assert.equal(seen.ev.attribution.length, prompt.ids.length);
    // At 360 px the page does not scroll sideways (wide tables scroll inside their own boxes, as for every model).
    const [scrollW, right] = await page.evaluate(() => [document.documentElement.scrollWidth,
      document.querySelector('#gpt-words').getBoundingClientRect().right]);
    assert.ok(scrollW <= width && right <= width, `page ${scrollW} px, widget ends at ${right} px, viewport ${width}`);
    if (colorScheme === 'light') {
      // Copy as PyTorch: the book's GPTModel on the shipped weights (read from their URL) and the BPE ids prints the
      // widget's candidates.
      const code = await page.evaluate(() => document.querySelector('#gpt-words').toPyTorch());
      assert.ok(code.includes(`ids = ${JSON.stringify(prompt.ids)}`), 'the snippet carries the BPE ids');
      const { stdout } = await promisify(execFile)('/usr/bin/python3', ['-c', code], { encoding: 'utf8', timeout: 300_000 });
      const line = stdout.trim().split('\n').find((l) => l.startsWith('candidates '));
      const py = JSON.parse(line.slice('candidates '.length));
      assert.deepEqual(py.map(([id]) => id), seen.ev.candidates.map((c) => c.id), 'PyTorch ranks the same ids');
      py.forEach(([, p], i) => assert.ok(Math.abs(p - seen.ev.candidates[i].probability) <= 2e-6, `candidate ${i}: ${p}`));
    }
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.locator('#gpt-words').screenshot({ path: `${ARTIFACTS}gpt-words-${colorScheme}-${width}.png` });
    assertClean(problems);
    await context.close();
  });
}
