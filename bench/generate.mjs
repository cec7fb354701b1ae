// Generation benchmark (not a test): tokens per second inside the context and past it, with the shipped text models
// (web/models/brown: bytes, web/models/brown-bpe: a 4,256-token BPE vocabulary; both context 256, 6 blocks, d 128).
// Inside the context each token is one KV-cache step; past it the window slides, and since the models' position
// embeddings are learned per position, every token is a full forward pass over the last 256 tokens (the core computes
// only the last position's logits). Two settings:
//   - wasm in Node, the iterator called directly (gpt.generate): the core's speed per flavour;
//   - the page: <gpt-explorer>'s path in Debian's Chromium, connect() and its Web Worker, tokens timed as they arrive
//     (the worker's yield between tokens and the messages included).
// A third column gives one full forward pass over 256 tokens with every position's logits (gpt.forward), what a token
// past the context would cost without the last-position-only pass. Greedy (temperature 0), the prompt taken from the
// Brown text below; the first token (the prompt's prefill) is not counted. CPU time in Node, wall time in Chromium.
// Run after `npm run build`:  node bench/generate.mjs [--repeat N] [--flavours simd,baseline] [--no-browser] [--no-docs]
//   --root DIR measures another tree's build (its web/: runtime, wasm, models), e.g. a checkout of an older commit;
//   it never rewrites the docs.
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { serve } from '../scripts/serve.mjs';
import { launchBrowser, openPage } from '../tests/browser/support.mjs';
import { median, report } from './report.mjs';

const args = process.argv.slice(2);
const opt = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const repeat = Number(opt('--repeat', 3));
const flavours = opt('--flavours', 'simd').split(',');
const browserToo = !args.includes('--no-browser');
const ROOT = args.includes('--root') ? pathToFileURL(`${resolve(opt('--root'))}/`) : new URL('../', import.meta.url);
if (args.includes('--root')) process.argv.push('--no-docs'); // another tree's figures do not belong in this one's docs
const TREE = args.includes('--root') ? ` [${opt('--root')}]` : '';
const WEB = fileURLToPath(new URL('web/', ROOT));
const { loadBlockscope } = await import(new URL('web/runtime/blockscope.js', ROOT).href);
const MODELS = [
  { key: 'brown', label: 'brown (bytes, V = 256)' },
  { key: 'brown-bpe', label: 'brown-bpe (BPE, V = 4,256)' },
];
// Long enough for 256 tokens of either vocabulary (BPE packs ~4 bytes per token).
const TEXT = ('The Fulton County Grand Jury said Friday an investigation of Atlanta\'s recent primary election produced ' +
  'no evidence that any irregularities took place. The jury further said in term-end presentments that the City ' +
  'Executive Committee, which had over-all charge of the election, deserves the praise and thanks of the City of ' +
  'Atlanta for the manner in which the election was conducted. ').repeat(6);
const INSIDE = { prompt: 16, tokens: 200 }; // 16 + 200 < 256: every token a cached step
const PAST = { tokens: 40 }; // after a full 256-token prompt: every token a full pass

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** Tokens per second of `it` after its first token (CPU time), checking each token's `sliding` flag. */
function rate(it, sliding) {
  it.next(); // the prompt's prefill and the first token
  const t0 = cpuMs();
  let n = 0;
  for (let s = it.next(); !s.done; s = it.next()) {
    // (a build from before tokens said whether they slid has no flag to check)
    if (s.value.sliding !== undefined && s.value.sliding !== sliding) throw new Error(`token ${s.value.index}: sliding is ${s.value.sliding}, expected ${sliding}`);
    n++;
  }
  return (1000 * n) / (cpuMs() - t0);
}

async function nodeRun(flavour) {
  const bs = await loadBlockscope({ flavour });
  const rows = [];
  for (const m of MODELS) {
    const dir = new URL(`web/models/${m.key}/`, ROOT);
    const gpt = await bs.loadModel({ url: dir.href });
    const tok = await bs.loadTokenizer({ url: dir.href }, { vocabSize: gpt.config.vocab_size });
    const ids = Array.from(tok.encode(TEXT));
    const ctx = gpt.config.context_length;
    if (ids.length < ctx) throw new Error(`the benchmark text has ${ids.length} ${m.key} tokens, fewer than the context ${ctx}`);
    const opts = (n) => ({ maxNewTokens: n, temperature: 0, overflow: 'crop' });
    const inside = median(Array.from({ length: repeat }, () => rate(gpt.generate(ids.slice(0, INSIDE.prompt), opts(INSIDE.tokens)), false)));
    const past = median(Array.from({ length: repeat }, () => rate(gpt.generate(ids.slice(0, ctx), opts(PAST.tokens)), true)));
    const window = ids.slice(0, ctx);
    gpt.forward(window);
    const fullMs = median(Array.from({ length: repeat * 3 }, () => {
      const t0 = cpuMs();
      gpt.forward(window);
      return cpuMs() - t0;
    }));
    rows.push({ runtime: `wasm ${flavour}, Node ${process.versions.node}${TREE}`, model: m.label, inside, past, fullMs });
    tok.dispose();
    gpt.dispose();
  }
  return rows;
}

/** The page's path: connect() and its worker; tokens/s from the arrival times of the token events after the first. */
async function browserRun() {
  const { server, url } = await serve({ root: WEB, port: 0 });
  const browser = await launchBrowser();
  const rows = [];
  try {
    const { page, context } = await openPage(browser);
    // A blank page on the server's origin: only the client and its worker run.
    await page.route(`${url}bench-generate.html`, (route) => route.fulfill({ contentType: 'text/html',
      body: '<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"></head><body></body></html>' }));
    await page.goto(`${url}bench-generate.html`);
    for (const m of MODELS) {
      const r = await page.evaluate(async ({ key, text, inside, past, repeat: n }) => {
        const { connect } = await import('/dist/blockscope-widgets.js');
        const client = await connect();
        const gpt = await client.loadModel({ url: `/models/${key}/` });
        const tok = await client.loadTokenizer({ url: `/models/${key}/` }, { vocabSize: gpt.config.vocab_size });
        const ids = Array.from(await tok.encode(text));
        const ctx = gpt.config.context_length;
        const timed = async (prompt, tokens) => {
          const times = [];
          await gpt.generate(prompt, { maxNewTokens: tokens, temperature: 0, overflow: 'crop' },
            { onToken: () => times.push(performance.now()) });
          return (1000 * (times.length - 1)) / (times.at(-1) - times[0]);
        };
        const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
        const runs = async (f) => { const out = []; for (let i = 0; i < n; i++) out.push(await f()); return median(out); };
        const result = {
          flavour: client.flavour,
          inside: await runs(() => timed(ids.slice(0, inside.prompt), inside.tokens)),
          past: await runs(() => timed(ids.slice(0, ctx), past.tokens)),
        };
        await tok.dispose();
        await gpt.dispose();
        return result;
      }, { key: m.key, text: TEXT, inside: INSIDE, past: PAST, repeat });
      rows.push({ runtime: `Chromium, worker (${r.flavour})${TREE}`, model: m.label, inside: r.inside, past: r.past, fullMs: null });
    }
    await context.close();
  } finally {
    await browser.close();
    server.close();
  }
  return rows;
}

const out = report('generate', 'npm run bench:generate');
await out.capture(async () => {
  const rows = [];
  for (const flavour of flavours) rows.push(...await nodeRun(flavour));
  if (browserToo) rows.push(...await browserRun());
  console.log(`## Generation inside and past the context, tokens/s (greedy, median of ${repeat})\n`);
  console.log(`inside: ${INSIDE.tokens} tokens after a ${INSIDE.prompt}-token prompt (KV-cache steps); past: ${PAST.tokens} tokens after a`);
  console.log('full 256-token prompt (each a full pass over the slid window, last position only); full forward: one');
  console.log('gpt.forward over 256 tokens with every position\'s logits, ms (CPU).\n');
  console.log('| runtime | model | inside the context | past the context | ratio | full forward ms |');
  console.log('|---|---|---:|---:|---:|---:|');
  for (const r of rows) {
    console.log(`| ${r.runtime} | ${r.model} | ${r.inside.toFixed(0)} | ${r.past.toFixed(1)} | ${(r.inside / r.past).toFixed(1)}× | ${r.fullMs == null ? '' : r.fullMs.toFixed(1)} |`);
  }
});
out.publish();
