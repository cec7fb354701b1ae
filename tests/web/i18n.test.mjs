// The message tables (web/widgets/i18n/): every shipped locale has exactly English's keys, the same {placeholders}
// in each message and an `other` form in each plural message; each file's keys carry its prefix; and the number
// formats are the locale's (decimal comma in German and Spanish) while fmt() stays locale-free.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import test from 'node:test';

import { addEnglish, isLoaded, loadLocale, LOCALES, Messages, matchLocale, messages } from '../../web/widgets/kit/i18n.js';
import { fmt } from '../../web/widgets/kit/values.js';
import enKit from '../../web/widgets/i18n/en/kit.js';
import enGelu from '../../web/widgets/i18n/en/gelu-explorer.js';
import english from '../../web/widgets/i18n/en/index.js';

const I18N = new URL('../../web/widgets/i18n/', import.meta.url);
// Every locale's table: English, the reference, from its files (i18n/en/index.js; the widgets add each file with their
// code), every other one through the loader the widgets use (a chunk loaded on demand).
const TABLES = { en: english };
for (const locale of Object.keys(LOCALES).filter((l) => l !== 'en')) {
  await loadLocale(locale);
  TABLES[locale] = (await LOCALES[locale].load()).default;
}
const PREFIX = {
  kit: 'kit.', 'gelu-explorer': 'gelu.', 'layernorm-explorer': 'layernorm.', 'ffn-explorer': 'ffn.',
  'block-explorer': 'block.', 'gpt-explorer': 'gpt.', 'training-lab': 'lab.', 'residual-flow-explorer': 'residual.',
  tour: 'tour.',
};
const placeholders = (message) => {
  const texts = typeof message === 'object' ? Object.values(message) : [message];
  return [...new Set(texts.flatMap((t) => [...t.matchAll(/\{(\w+)\}/g)].map((m) => m[1])))].sort();
};

test('every locale directory is registered and every registered locale has a directory', () => {
  const dirs = readdirSync(I18N, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort();
  assert.deepEqual(dirs, Object.keys(LOCALES).sort());
  // Each locale but English has its chunk module (i18n/<locale>.js), which kit/i18n.js imports on demand.
  const chunks = readdirSync(I18N).filter((f) => f.endsWith('.js')).map((f) => f.slice(0, -3)).sort();
  assert.deepEqual(chunks, Object.keys(LOCALES).filter((l) => l !== 'en').sort());
});

test('each file of each locale holds only its own prefix, and the files are the same in every locale', async () => {
  for (const locale of Object.keys(LOCALES)) {
    const { FILES } = await import(new URL(`${locale}/index.js`, I18N).href);
    assert.deepEqual(Object.keys(FILES).sort(), Object.keys(PREFIX).sort(), `${locale}: files`);
    for (const [file, table] of Object.entries(FILES)) {
      const foreign = Object.keys(table).filter((k) => !k.startsWith(PREFIX[file]));
      assert.deepEqual(foreign, [], `${locale}/${file}.js: keys without the prefix ${PREFIX[file]}`);
    }
  }
});

test('the English table is not empty and its messages are strings or plural objects with `other`', () => {
  const en = TABLES.en;
  assert.ok(Object.keys(en).length > 100, `only ${Object.keys(en).length} English messages`);
  for (const [key, message] of Object.entries(en)) {
    if (typeof message === 'object') assert.equal(typeof message.other, 'string', `en ${key}: plural without other`);
    else assert.equal(typeof message, 'string', `en ${key}`);
  }
});

for (const locale of Object.keys(LOCALES).filter((l) => l !== 'en')) {
  test(`${locale}: every English message is translated, with the same placeholders, and nothing extra`, () => {
    const en = TABLES.en;
    const table = TABLES[locale];
    const missing = Object.keys(en).filter((k) => !Object.hasOwn(table, k));
    const extra = Object.keys(table).filter((k) => !Object.hasOwn(en, k));
    assert.deepEqual(missing, [], `${locale}: ${missing.length} messages missing`);
    assert.deepEqual(extra, [], `${locale}: messages English does not have`);
    for (const [key, message] of Object.entries(table)) {
      assert.equal(typeof message, typeof en[key], `${locale} ${key}: plural object in one locale, string in the other`);
      if (typeof message === 'object') assert.equal(typeof message.other, 'string', `${locale} ${key}: plural without other`);
      assert.deepEqual(placeholders(message), placeholders(en[key]), `${locale} ${key}: placeholders`);
    }
  });
}

test('numbers follow the locale; fmt() (code and events) does not', () => {
  const de = new Messages('de');
  const es = new Messages('es');
  const en = new Messages('en');
  assert.equal(de.num(-1.23456, 4), '−1,2346');
  assert.equal(en.num(-1.23456, 4), '−1.2346');
  assert.equal(es.num(0.5, 2), '0,50');
  assert.equal(de.num(1234567), '1.234.567');
  assert.equal(en.num(1234567), '1,234,567');
  assert.equal(de.num(-0.00001, 4), '0,0000');
  assert.equal(de.percent(0.964), '96,4\u00a0%');
  assert.equal(de.num(NaN), 'NaN');
  assert.equal(fmt(-1.23456), '−1.2346');
  for (const v of [0.1, -2.5, 1e-7, 123.456789, -0.00004]) assert.equal(en.num(v, 4), fmt(v, 4), `en num vs fmt at ${v}`);
});

test('a locale speaks English until its table is loaded, then its own language', async () => {
  assert.equal(isLoaded('de'), true); // loaded above
  assert.equal(messages('de').t('kit.locked'), TABLES.de['kit.locked']);
  assert.notEqual(TABLES.de['kit.locked'], TABLES.en['kit.locked']);
  assert.equal(messages('fr').locale, 'en');
});

test('English has the kit\'s messages, and a widget\'s once its code adds them (addEnglish: they travel in its chunk)', () => {
  const en = messages('en');
  assert.equal(en.t('kit.locked'), enKit['kit.locked']);
  const key = 'gelu.failed';
  assert.ok(Object.hasOwn(enGelu, key));
  assert.equal(en.has(key), false, 'a widget\'s English before its code was loaded');
  addEnglish(enGelu);
  addEnglish(enGelu); // adding a file twice is harmless
  assert.equal(en.t(key), enGelu[key]);
  assert.equal(messages('de').t(key), TABLES.de[key]);
  assert.throws(() => addEnglish({ [key]: 'another text' }), /"gelu\.failed" is already English for another text/);
  assert.throws(() => addEnglish(null), /expected a message table/);
});

test('plural forms and placeholders; unknown tags fall back', () => {
  assert.equal(matchLocale('de-AT'), 'de');
  assert.equal(matchLocale('ES_mx'), 'es');
  assert.equal(matchLocale('fr'), null);
  const m = new Messages('fr');
  assert.equal(m.locale, 'en');
});
