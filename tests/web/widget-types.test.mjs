// The widgets' attributes are declared once, in each class's `static attrs`: the committed TypeScript declarations
// (types/widget-elements.d.ts) must be what scripts/gen-widget-types.mjs writes from them, and the one tag list
// (WIDGET_TAGS, kit/elements.js) must be exactly the tags the bundle defines.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import test from 'node:test';

import { generate, MODULE_TYPES, OUTPUT } from '../../scripts/gen-widget-types.mjs';

const ROOT = new URL('../../', import.meta.url);

test(`${OUTPUT} and ${MODULE_TYPES}<tag>.d.ts are what scripts/gen-widget-types.mjs writes from the widgets' static attrs`, async () => {
  const { files } = await generate();
  assert.ok(Object.keys(files).length >= 9, `generated files: ${Object.keys(files)}`);
  for (const [path, text] of Object.entries(files)) {
    assert.equal(readFileSync(new URL(path, ROOT), 'utf8'), text, `${path} is stale: run node scripts/gen-widget-types.mjs`);
  }
  const stray = readdirSync(new URL(MODULE_TYPES, ROOT)).map((f) => `${MODULE_TYPES}${f}`).filter((p) => !(p in files));
  assert.deepEqual(stray, [], 'type files of elements the bundle no longer has');
});

test('WIDGET_TAGS lists exactly the tags the bundle defines, each once', async () => {
  const { defined, tags } = await generate();
  assert.deepEqual([...tags].sort(), defined.map((d) => d.tag).sort());
  assert.equal(new Set(tags).size, tags.length);
});

test('every enumeration in the declarations is the attribute\'s option list (training-lab comparison included)', async () => {
  const { defined } = await generate();
  const text = readFileSync(new URL(OUTPUT, ROOT), 'utf8');
  const lab = defined.find((d) => d.tag === 'training-lab').cls.attrSpecs();
  assert.ok(lab.comparison.options.includes('warmup'));
  assert.match(text, new RegExp(`comparison\\?: ${lab.comparison.options.map((o) => `'${o}'`).join(' \\| ')};`));
});

test('no page or test keeps its own copy of the tag list', () => {
  const files = ['web/embed.html', 'web/docs/embedding.html', 'web/index.html', 'tests/browser/lesson-page.test.mjs',
    'tests/browser/startup.test.mjs'];
  for (const file of files) {
    const text = readFileSync(new URL(file, ROOT), 'utf8');
    assert.doesNotMatch(text, /\[\s*'layernorm-explorer',\s*'gelu-explorer',\s*'ffn-explorer'/, `${file} lists the tags itself`);
  }
});
