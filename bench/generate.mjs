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
// Run after `npm run build`:
//   node bench/generate.mjs [--rounds N] [--flavours simd,baseline] [--no-browser] [--no-docs] [--baseline DIR]
// --baseline DIR adds rows for another tree's build (its web/: runtime, wasm, models; e.g. a checkout of an older
// commit, built), measured in the same interleaved rounds, so the two are compared under the same machine load.
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { serve } from '../scripts/serve.mjs';
import { launchBrowser, openPage } from '../tests/browser/support.mjs';
import { median, report } from './report.mjs';

const args = process.argv.slice(2);
const opt = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const rounds = Number(opt('--rounds', 3));
const flavours = opt('--flavours', 'simd').split(',');
const browserToo = !args.includes('--no-browser');
const TREES = [{ label: 'this tree', root: new URL('../', import.meta.url) }];
if (args.includes('--baseline')) {
  TREES.push({ label: opt('--baseline-label', `baseline ${opt('--baseline')}`), root: pathToFileURL(`${resolve(opt('--baseline'))}/`) });
}
for (const tree of TREES) {
  tree.web = fileURLToPath(new URL('web/', tree.root));
  tree.runtime = await import(new URL('web/runtime/blockscope.js', tree.root).href);
}
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

/** One round in Node: each model's speeds inside and past the context and its full forward pass, wasm `flavour`. */
async function nodeRun(tree, flavour) {
  const bs = await tree.runtime.loadBlockscope({ flavour });
  const rows = [];
  for (const m of MODELS) {
    const dir = new URL(`web/models/${m.key}/`, tree.root);
    const gpt = await bs.loadModel({ url: dir.href });
    const tok = await bs.loadTokenizer({ url: dir.href }, { vocabSize: gpt.config.vocab_size });
    const ids = Array.from(tok.encode(TEXT));
    const ctx = gpt.config.context_length;
    if (ids.length < ctx) throw new Error(`the benchmark text has ${ids.length} ${m.key} tokens, fewer than the context ${ctx}`);
    const opts = (n) => ({ maxNewTokens: n, temperature: 0, overflow: 'crop' });
    const inside = rate(gpt.generate(ids.slice(0, INSIDE.prompt), opts(INSIDE.tokens)), false);
    const past = rate(gpt.generate(ids.slice(0, ctx), opts(PAST.tokens)), true);
    const window = ids.slice(0, ctx);
    gpt.forward(window);
    const fullMs = median(Array.from({ length: 3 }, () => {
      const t0 = cpuMs();
      gpt.forward(window);
      return cpuMs() - t0;
    }));
    rows.push({ runtime: `wasm ${flavour}, Node ${process.versions.node}`, model: m.label, inside, past, fullMs });
    tok.dispose();
    gpt.dispose();
  }
  return rows;
}

/** One round on the page's path: connect() and its worker; tokens/s from the token events' arrival after the first. */
async function browserRun(tree, browser) {
  const { server, url } = await serve({ root: tree.web, port: 0 });
  const rows = [];
  try {
    const { page, context } = await openPage(browser);
    // A blank page on the server's origin: only the client and its worker run.
    await page.route(`${url}bench-generate.html`, (route) => route.fulfill({ contentType: 'text/html',
      body: '<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"></head><body></body></html>' }));
    await page.goto(`${url}bench-generate.html`);
    for (const m of MODELS) {
      const r = await page.evaluate(async ({ key, text, inside, past }) => {
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
        const result = {
          flavour: client.flavour,
          inside: await timed(ids.slice(0, inside.prompt), inside.tokens),
          past: await timed(ids.slice(0, ctx), past.tokens),
        };
        await tok.dispose();
        await gpt.dispose();
        return result;
      }, { key: m.key, text: TEXT, inside: INSIDE, past: PAST });
      rows.push({ runtime: `Chromium, worker (${r.flavour})`, model: m.label, inside: r.inside, past: r.past, fullMs: null });
    }
    await context.close();
  } finally {
    server.close();
  }
  return rows;
}

const out = report('generate', `npm run bench:generate${args.length ? ` -- ${args.map((a) => (/\s/.test(a) ? `"${a}"` : a)).join(' ')}` : ''}`);
await out.capture(async () => {
  const browser = browserToo ? await launchBrowser() : null;
  const measured = new Map(); // "tree|runtime|model" -> {tree, runtime, model, inside[], past[], fullMs[]}
  try {
    for (let round = 0; round < rounds; round++) {
      for (const tree of TREES) {
        const rows = [];
        for (const flavour of flavours) rows.push(...await nodeRun(tree, flavour));
        if (browser) rows.push(...await browserRun(tree, browser));
        for (const r of rows) {
          const key = `${tree.label}|${r.runtime}|${r.model}`;
          if (!measured.has(key)) measured.set(key, { tree: tree.label, runtime: r.runtime, model: r.model, inside: [], past: [], fullMs: [] });
          const m = measured.get(key);
          m.inside.push(r.inside);
          m.past.push(r.past);
          if (r.fullMs != null) m.fullMs.push(r.fullMs);
        }
      }
    }
  } finally {
    await browser?.close();
  }
  console.log(`## Generation inside and past the context, tokens/s (greedy, median of ${rounds} interleaved rounds)\n`);
  console.log(`inside: ${INSIDE.tokens} tokens after a ${INSIDE.prompt}-token prompt (KV-cache steps); past: ${PAST.tokens} tokens after a full`);
  console.log('256-token prompt (each a full pass over the slid window); full forward: one gpt.forward over 256 tokens with');
  console.log('every position\'s logits, ms. Node: CPU time; Chromium: wall time between token events, so a busy machine');
  console.log('slows those rows.\n');
  const withTree = TREES.length > 1;
  console.log(`| ${withTree ? 'build | ' : ''}runtime | model | inside the context | past the context | ratio | full forward ms |`);
  console.log(`|${withTree ? '---|' : ''}---|---|---:|---:|---:|---:|`);
  const rows = [...measured.values()].sort((a, b) => a.runtime.localeCompare(b.runtime) || a.model.localeCompare(b.model));
  for (const r of rows) {
    const inside = median(r.inside);
    const past = median(r.past);
    const full = r.fullMs.length ? median(r.fullMs).toFixed(1) : '';
    console.log(`| ${withTree ? `${r.tree} | ` : ''}${r.runtime} | ${r.model} | ${inside.toFixed(0)} | ${past.toFixed(1)} | ${(inside / past).toFixed(1)}× | ${full} |`);
  }
});
out.publish();
