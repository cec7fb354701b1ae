// Writes tests/golden/tokenizer_gpt2.json: GPT-2 token ids of a varied corpus, from the npm package gpt-tokenizer
// (r50k_base = GPT-2), for tests/unit/test_tokenizer.cpp. Run from the repo root: node tests/reference/make_tokenizer_goldens.mjs
//
// "<|endoftext|>" in text: gpt-tokenizer's default encode() throws ("Disallowed special token"), and its
// allowedSpecial option is broken in 4.0.0 (its sticky special-token regex only finds a special token where a
// segment starts, and loses text after a second one). So, for texts containing it, "ids" are built the way
// tiktoken's encode(allowed_special="all") defines them: encode the text between occurrences with plain
// encode() and put 50256 for each occurrence; "ordinary_ids" is encode(text, { disallowedSpecial: new Set() }),
// where it is just text (OpenAI encoder.py, tiktoken encode_ordinary).
import { readFileSync, writeFileSync } from 'node:fs';
import { encode } from 'gpt-tokenizer/encoding/r50k_base';

const EOT = '<|endoftext|>';
const EOT_ID = 50256;

// ---- Hand-written cases, by theme -------------------------------------------------------------------------

const scripts = [
  'Crème brûlée, naïve café, façade, jalapeño, smörgåsbord, Ærøskøbing, Øresund, Łódź, Şişli, Đà Nẵng',
  'Ελληνικά: Η γρήγορη καφέ αλεπού πηδάει πάνω από τον τεμπέλη σκύλο. ΑΒΓΔ αβγδ ς',
  'Русский: Съешь же ещё этих мягких французских булок, да выпей чаю. Ёжик в тумане.',
  'Українська: Чуєш їх, доцю, га? Кумедна ж ти, прощайся без ґольфів!',
  'العربية: نص حكيم له سر قاطع وذو شأن عظيم مكتوب على ثوب أخضر ومغلف بجلد أزرق. ١٢٣ ٤٥٦',
  'עברית: דג סקרן שט בים מאוכזב ולפתע מצא חברה. שָׁלוֹם',
  'हिन्दी: ऋषियों को सताने वाले दुष्ट राक्षसों के राजा रावण का सर्वनाश करने वाले विष्णुवतार भगवान श्रीराम। १२३४',
  'ภาษาไทย: เป็นมนุษย์สุดประเสริฐเลิศคุณค่า กว่าบรรดาฝูงสัตว์เดรัจฉาน ๑๒๓',
  '中文：我能吞下玻璃而不伤身体。敏捷的棕色狐狸跳过了懒狗。１２３',
  '日本語：いろはにほへと ちりぬるを わかよたれそ つねならむ。カタカナ、ｶﾀｶﾅ、漢字。',
  '한국어: 키스의 고유조건은 입술끼리 만나야 하고 특별한 기술은 필요치 않다. 다람쥐 헌 쳇바퀴에 타고파',
  'Tiếng Việt: Tôi có thể ăn thủy tinh mà không hại gì. ქართული: მინას ვჭამ. Հայերեն: Կրնամ ապակի ուտել։',
  'Mixed: English, Ελληνικά, Русский, العربية, עברית, हिन्दी, ไทย, 中文, 日本語, 한국어 — all in one line.',
  'Ge\u0301ne\u0301ration with combining acute (e + U+0301), a\u0308 vs ä, n\u0303, Z\u0351\u0352\u0353algo t\u0336e\u0336x\u0336t\u0336',
  'Zero-width: a\u200bb\u200cc\u200dd\ufeffe and soft\u00adhyphen, word\u2060joiner',
];

const emoji = [
  'Emoji: 😀😃😄 👍 🎉🎉🎉 ❤️ ✨ 🚀',
  'ZWJ families: 👨‍👩‍👧‍👦 👩‍❤️‍💋‍👨 🧑‍💻 🏳️‍🌈 🏴‍☠️',
  'Skin tones: 👋🏻 👋🏼 👋🏽 👋🏾 👋🏿 🤝🏽',
  'Flags: 🇺🇸 🇬🇧 🇯🇵 🇩🇪 🇫🇷 🇧🇷 🇮🇳 🏴󠁧󠁢󠁳󠁣󠁴󠁿',
  'Keycaps: 1️⃣ 2️⃣ #️⃣ *️⃣, variation selectors: ☺︎ ☺️',
  'word😀word 😀word word😀 😀 😀',
];

const whitespace = [
  '',
  ' ',
  '  ',
  '\n',
  '\n\n\n',
  '\t',
  'a  b   c    d',
  'trailing spaces   ',
  '   leading spaces',
  '\tTabbed\tcolumns\tof\ttext\t',
  'line one\r\nline two\r\n\r\nline four\r\n',
  'mixed \t \n  \r\n whitespace\u00a0nbsp\u2003em\u3000ideographic',
  '\u000b\u000c vertical tab and form feed \u0085 next line \u2028 line sep \u2029 para sep',
  '  \n  \n\t\t\n    indented\n        more',
  'end with newline\n',
  ' a',
  'a ',
  '\u00a0',
  '\u00a0 a \u00a0b',
  '\u1680ogham\u1680space\u180emongolian',
];

const contractions = [
  "I'm sure you'll see we've done what they'd said it's worth, isn't it?",
  "I'M SURE YOU'LL SEE WE'VE DONE WHAT THEY'D SAID IT'S WORTH, ISN'T IT?",
  "He'S she'S It'S don'T We'Ve they'Re",
  'Curly: I’m sure you’ll see we’ve done what they’d said it’s worth, isn’t it?',
  "'s 't 're 've 'm 'll 'd '' ''' 'x 'S '",
  "rock 'n' roll, the '90s, 'quoted', \"double\", ‘single’, “double curly”",
  "O'Neil o'clock y'all ma'am d'Artagnan l'homme",
];

const numbers = [
  '0 1 12 123 1234 12345 123456 1234567890 31415926535897932384626433832795028841971693993751',
  '3.14159 -2.71828 6.022e23 1,000,000 1.000.000,50 $19.99 €5 £3.50 ¥1000 50% 1/2 ½ ¼ ¾',
  'Dates: 2024-01-31, 31/12/1999, 12:34:56.789, Tue Feb 29 2028, 1990s',
  'Phone +1 (555) 123-4567, ISBN 978-3-16-148410-0, v1.2.3-rc.4, 0xDEADBEEF 0b1010 1e-9',
  'Other digits: ٠١٢٣٤٥٦٧٨٩ ۰۱۲۳ ०१२३४५ ০১২৩ ๐๑๒๓ 〇一二三 ⅠⅡⅢⅣ ①②③ ²³¹ ₁₂₃ 𝟘𝟙𝟚',
  'a1b2c3 abc123 123abc 1st 2nd 3rd 4th 100km 5kg 3x4 1080p',
  '99999999999999999999999999999999999999999999999999999999999999999999999999999999',
];

const code = [
  'def fib(n):\n    """Return the n-th Fibonacci number."""\n    a, b = 0, 1\n    for _ in range(n):\n        a, b = b, a + b\n    return a\n',
  'int main(int argc, char** argv) {\n  std::vector<int> v{1, 2, 3};\n  for (auto& x : v) x *= 2;\n  return v.size() > 2 ? 0 : -1;\n}\n',
  "const add = (a, b) => a + b;\nexport default function App({ items = [] }) {\n\treturn items.map((it, i) => `${i}: ${it?.name ?? 'none'}`);\n}\n",
  'fn main() -> Result<(), Box<dyn Error>> {\n    let xs: Vec<u32> = (0..10).filter(|x| x % 2 == 0).collect();\n    println!("{:?}", xs);\n    Ok(())\n}\n',
  'SELECT u.id, COUNT(*) AS n FROM users u JOIN orders o ON o.user_id = u.id WHERE o.total >= 100.00 GROUP BY u.id HAVING n > 3;',
  '#!/usr/bin/env bash\nset -euo pipefail\nfor f in *.txt; do\n  wc -l "$f" | awk \'{print $1}\' >> counts.log 2>&1\ndone\n',
  '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>Test &amp; more</title></head>\n<body><p class="x">Hello, <b>world</b>!</p></body></html>',
  '{"name": "blockscope", "version": "0.1.0", "ids": [1, 2, 3], "nested": {"ok": true, "pi": 3.14}}',
  'package main\n\nimport "fmt"\n\nfunc main() {\n\tch := make(chan int, 4)\n\tgo func() { ch <- 42 }()\n\tfmt.Println(<-ch)\n}\n',
  '\\begin{equation}\n  E = mc^2, \\quad \\int_0^\\infty e^{-x^2}\\,dx = \\frac{\\sqrt{\\pi}}{2}\n\\end{equation}',
  '    if (x != nullptr && *x >= 0) { return x->next; } // TODO(me): fix ++i vs i++ ... ===',
  'a+=1;b-=2;c*=3;d/=4;e%=5;f<<=6;g>>=7;h&&i||j;k??l;m!==n;o=>p;q::r;s->t;@decorator #pragma $var',
];

const urls = [
  'https://www.example.com/path/to/page?query=value&other=123#section-2',
  'Visit http://localhost:8080/api/v1/users/42?fields=name,email or mailto:someone@example.org today.',
  'ftp://files.example.net/pub/archive-2024.tar.gz and file:///C:/Users/Me/Documents/r%C3%A9sum%C3%A9.pdf',
  'https://ja.wikipedia.org/wiki/日本語 https://emoji.example/😀?q=%F0%9F%98%80',
  '@user #hashtag https://t.co/AbC123xYz user_name-42@mail.co.uk',
];

const specials = [
  EOT,
  `Hello${EOT}World`,
  `${EOT}Starts with it`,
  `Ends with it${EOT}`,
  `${EOT}${EOT}`,
  `two ${EOT} in ${EOT} text`,
  `document one.\n\n${EOT}\n\ndocument two.`,
  '<|endoftext| is not complete, nor is |endoftext|> or <|endoftext >',
  `<|${EOT}|>`,
];

const punctuation = [
  'Hello, world! How are you? I am fine... Really?!? (Yes.) [No.] {Maybe.}',
  '—em dash– en dash - hyphen… ellipsis «guillemets» „quotes“ ¡hola! ¿qué?',
  '!!! ??? ... --- *** ___ ~~~ ### @@@ $$$ %%% ^^^ &&& ((( ))) ||| \\\\\\ /// ::: ;;; """',
  '©®™ §¶ †‡ •·° ±×÷ ≤≥≠≈∞ √∑∏∫ ←→↑↓ ♠♣♥♦ ★☆ ✓✗ ☐☑',
  'a.b,c;d:e!f?g', ' . , ; : ! ?', '.hidden ..parent ./relative ~/home',
];

const longParagraph = [
  'The transformer architecture, introduced in 2017, replaced recurrence with attention: every position in a',
  'sequence can look at every earlier position in a single step, weighting each by a learned similarity score.',
  "GPT-2, released by OpenAI in February 2019, stacked 12 to 48 such blocks and was trained on WebText, roughly",
  '40 GB of text from 8 million web pages linked from Reddit posts with at least three karma. Its tokenizer is a',
  "byte-level byte-pair encoding with 50,257 tokens: 256 byte tokens, 50,000 merges and one special token, '<|",
  "endoftext|>' (written here in two pieces). Because it starts from bytes, it can encode any string at all —",
  'emoji, Chinese, misspellings, binary garbage — without an unknown token, though rare scripts cost many tokens',
  "per character. Before merging, text is split by a regular expression into words, numbers, punctuation runs and",
  "whitespace, so merges never cross, say, a letter-digit boundary; contractions like 's and 'll are split off.",
  'A common rule of thumb is that one token is about four characters, or three quarters of a word, of English.',
  'In the 1990s, Philip Gage described byte pair encoding as a data-compression algorithm (C Users Journal, 1994);',
  'Sennrich, Haddow and Birch adapted it to subword units for neural machine translation in 2016. Today variants',
  'of it tokenize text for most large language models, from GPT-4 ("cl100k_base", ~100k tokens) to GPT-4o',
  '("o200k_base", ~200k tokens), each with its own pre-tokenization pattern and special tokens.',
].join(' ');

// ---- A few hundred generated lines of real-looking text (seeded, so the golden is reproducible) ------------

function mulberry32(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rand = mulberry32(20240229);
const pick = (xs) => xs[Math.floor(rand() * xs.length)];
const chance = (p) => rand() < p;

const subjects = ['The committee', 'Our small team', 'Dr. Alvarez', 'The new model', 'My neighbour', 'Everyone',
  'The city council', 'A reviewer', 'The compiler', 'Her grandmother', 'Nobody', 'The algorithm', 'Professor Chen',
  'The JSON parser', 'A user on the forum', 'The 3rd-year students', 'NASA', 'The U.K. government', 'iPhone users'];
const verbs = ['announced', 'rejected', 'rewrote', 'measured', "didn't expect", 'will publish', 'has tokenized',
  'carefully reviewed', 'quietly ignored', 'can\'t explain', 'reported', 'benchmarked', 'translated', 'was asked about'];
const objects = ['the quarterly results', 'a 40-page proposal', 'three new features', 'the error message',
  'an old recipe for bread', 'the GPU kernels', "last year's budget", 'the café menu', 'every unit test',
  'a bug in the parser', 'the naïve approach', 'the museum’s collection', 'its 1,536-dimensional embeddings',
  'two thousand emails', 'the Müller–Lyer illusion', 'the Schrödinger equation', 'a résumé'];
const tails = ['yesterday.', 'on Monday morning.', 'in under 3.5 seconds!', 'before the deadline (again).',
  'with mixed results...', '— or so they say.', 'despite the rain.', 'at 9:30 a.m. sharp.', 'for $1,299.00.',
  'and then went home.', 'without telling anyone?', 'in 2023/24.', '(see Fig. 4b).', 'at https://example.com/report.',
  '#breaking', '👍', ':-)', 'lol', 'in Zürich, Kraków and São Paulo.', 'using O(n log n) time.'];
const foreign = ['Merci beaucoup !', '¿Dónde está la biblioteca?', 'Das ist nicht schlecht.', 'Grazie mille.',
  'Спасибо большое.', 'ありがとうございます。', '谢谢你的帮助。', '감사합니다!', 'شكرا جزيلا', 'תודה רבה',
  'धन्यवाद', 'ขอบคุณครับ', 'Ευχαριστώ πολύ.', 'Dziękuję bardzo.', 'Teşekkür ederim.', 'Cảm ơn bạn.'];
const codeBits = ['`x = f(y)`', '`npm install`', '`std::vector<float>`', '`SELECT *`', '`git commit -m "fix"`',
  '`a[i] += b[j] * 2`', '`#include <cstdio>`', '`console.log(x)`'];

function sentence() {
  let s = `${pick(subjects)} ${pick(verbs)} ${pick(objects)} ${pick(tails)}`;
  if (chance(0.15)) s = s.toUpperCase();
  if (chance(0.2)) s += ` ${pick(foreign)}`;
  if (chance(0.15)) s += ` Try ${pick(codeBits)}.`;
  if (chance(0.1)) s = `"${s}" she said.`;
  if (chance(0.1)) s = `- ${s}`;
  if (chance(0.05)) s = `    ${s}`;
  if (chance(0.1)) s += `  (${Math.floor(rand() * 100000)} views, ${(rand() * 100).toFixed(1)}% liked)`;
  return s;
}

function generatedLines(count) {
  const lines = [];
  for (let i = 0; i < count; i++) {
    const parts = [];
    const n = 1 + Math.floor(rand() * 3);
    for (let k = 0; k < n; k++) parts.push(sentence());
    const sep = pick([' ', ' ', ' ', '  ', '\n', ' \n', '\t', '\r\n']);
    lines.push(parts.join(sep) + (chance(0.2) ? pick(['\n', ' ', '\n\n', '  ']) : ''));
  }
  return lines;
}

// Random strings over a pool that hits every branch of the split regex: all 25 JavaScript \s characters,
// contractions, letters, digits and other code points from the whole range (astral, marks, unassigned, private use).
const spaces = [...'\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff'];
const fragments = [' ', ' ', '  ', "'", "'s", "'t", "'re", "'ve", "'m", "'ll", "'d", "'S", '’s', 'a', 'Z', 'é', '7', '٣',
  '!', '.', '-', '\u0301', '😀', '👍🏽', '\u200d'];

function randomCodePoint() {
  const ranges = [[0x20, 0x7e], [0xa0, 0x2fff], [0x3000, 0xd7ff], [0xe000, 0xffff], [0x10000, 0x10ffff]];
  const [lo, hi] = pick(ranges);
  return String.fromCodePoint(lo + Math.floor(rand() * (hi - lo + 1)));
}

function randomStrings(count) {
  const out = [];
  for (let i = 0; i < count; i++) {
    let s = '';
    const n = Math.floor(rand() * 24);
    for (let k = 0; k < n; k++) {
      const r = rand();
      s += r < 0.3 ? pick(spaces) : r < 0.6 ? pick(fragments) : randomCodePoint();
    }
    out.push(s);
  }
  return out;
}

// ---- Encoding ---------------------------------------------------------------------------------------------

function encodeWithEot(text) {
  const ids = [];
  text.split(EOT).forEach((piece, i) => {
    if (i > 0) ids.push(EOT_ID);
    ids.push(...encode(piece));
  });
  return ids;
}

function makeCase(text) {
  if (!text.includes(EOT)) return { text, ids: encode(text) };
  const ids = encodeWithEot(text);
  // Cross-check with gpt-tokenizer's own allowedSpecial path where it works: one special token at the start.
  if (text.startsWith(EOT) && text.indexOf(EOT, 1) < 0) {
    const own = encode(text, { allowedSpecial: 'all' });
    if (JSON.stringify(own) !== JSON.stringify(ids)) throw new Error(`eot cross-check failed for ${JSON.stringify(text)}`);
  }
  return { text, ids, ordinary_ids: encode(text, { disallowedSpecial: new Set() }) };
}

const texts = [
  ...scripts, ...emoji, ...whitespace, ...contractions, ...numbers, ...code, ...urls, ...specials, ...punctuation,
  longParagraph, [longParagraph, longParagraph, longParagraph].join('\n\n'),
  ...generatedLines(300),
  ...randomStrings(200),
];
const cases = texts.map(makeCase);
const gptTokenizerVersion = JSON.parse(
  readFileSync(new URL('../../node_modules/gpt-tokenizer/package.json', import.meta.url), 'utf8')).version;
const golden = {
  generator: 'tests/reference/make_tokenizer_goldens.mjs',
  reference: `gpt-tokenizer ${gptTokenizerVersion} (r50k_base = GPT-2), Node ${process.version}`,
  eot_in_text: 'ids: "<|endoftext|>" is id 50256 (tiktoken allowed_special="all"); ordinary_ids: it is plain text',
  cases,
};
const out = new URL('../golden/tokenizer_gpt2.json', import.meta.url);
// One case per line keeps the file diffable.
writeFileSync(out, `{"generator": ${JSON.stringify(golden.generator)},\n "reference": ${JSON.stringify(golden.reference)},\n`
  + ` "eot_in_text": ${JSON.stringify(golden.eot_in_text)},\n "cases": [\n`
  + cases.map((c) => '  ' + JSON.stringify(c)).join(',\n') + '\n ]}\n');
const tokens = cases.reduce((n, c) => n + c.ids.length, 0);
console.log(`wrote ${out.pathname}: ${cases.length} cases, ${tokens} tokens`);
