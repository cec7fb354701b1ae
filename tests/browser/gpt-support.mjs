// Helpers shared by the <gpt-explorer> browser tests: opening the example page with the widget's events recorded,
// re-running the shipped trained model (or its untrained twin) through the client in the page, reading the
// next-token tables, and writing a safetensors checkpoint.
import { openPage } from './support.mjs';

/** Where the page finds the shipped trained model (the widget resolves the same directory from its bundle). */
export const SHIPPED_URL = '/models/brown/';

/** Opens examples/gpt-explorer.html (+ hash) and waits for the first forward pass and heatmap. */
export async function openExplorer(env, options, hash = '', { wait = true, before } = {}) {
  const { page, context, problems } = await openPage(env.browser, options);
  await page.addInitScript(() => {
    window.__ev = { forward: [], token: [], generated: [], model: [] };
    for (const name of Object.keys(window.__ev)) {
      document.addEventListener(`blockscope-${name}`, (e) => window.__ev[name].push(e.detail));
    }
  });
  await before?.(page, context);
  await page.goto(`${env.url}examples/gpt-explorer.html${hash}`);
  if (wait) {
    await page.waitForFunction(() => window.__ev.forward.length > 0, null, { timeout: 30000 });
    await page.waitForSelector('gpt-explorer .att-heat svg');
  }
  return { page, context, problems };
}

/**
 * The model behind the widget's last forward pass, rebuilt through the client in the page — the shipped checkpoint
 * for 'trained', createGPT(trained config, seed) for 'untrained' — run on the same ids: last-token logits, inspection.
 */
export async function coreRun(page, weights = null) {
  return page.evaluate(async ({ url, weights: w }) => {
    const { connect } = await import('/dist/blockscope-widgets.js');
    const { config, ids, weights: shown } = window.__ev.forward.at(-1);
    const which = w ?? shown;
    const seed = Number(document.querySelector('gpt-explorer').getAttribute('seed') ?? 123);
    const client = await connect();
    const trained = await client.loadModel({ url });
    let gpt = trained;
    if (which === 'untrained') {
      gpt = await client.createGPT(trained.config, { seed });
      await trained.dispose();
    } else if (which !== 'trained') throw new Error(`coreRun cannot rebuild a '${which}' model`);
    const { logits, inspection } = await gpt.forward(ids, { inspect: true });
    await gpt.dispose();
    const V = config.vocab_size;
    const T = ids.length;
    return {
      T, V, config: gpt.config,
      last: Array.from(logits.slice((T - 1) * V)),
      norm1InVar: inspection.layers.map((l) => Array.from(l.norm1.in.var)),
      norm2InMean: inspection.layers.map((l) => Array.from(l.norm2.in.mean)),
      attn: inspection.layers.map((l) => Array.from(l.attnWeights)),
    };
  }, { url: SHIPPED_URL, weights });
}

export function argmax(xs) {
  return xs.reduce((best, v, i) => (v > xs[best] ? i : best), 0);
}

/** softmax(xs)[i] */
export function softmaxAt(xs, i) {
  const m = Math.max(...xs);
  return Math.exp(xs[i] - m) / xs.reduce((s, v) => s + Math.exp(v - m), 0);
}

/** The rows of the next-token table of `model` ('selected', 'trained', 'untrained', ...): id, token, probability, bar. */
export async function tableRows(page, model = 'selected') {
  return page.locator(`gpt-explorer table.candidates.${model} tbody tr`).evaluateAll((rows) => rows.map((r) => ({
    id: Number(r.dataset.id),
    token: r.querySelector('th .tok').textContent,
    byteChips: r.querySelectorAll('th .tok .byte').length,
    prob: r.querySelector('td.prob').textContent,
    logit: r.querySelector('td.logit').textContent,
    timesUniform: Number(r.querySelector('td.xu').dataset.timesUniform),
    timesUniformText: r.querySelector('td.xu').textContent,
    bar: parseFloat(r.querySelector('.fill').style.width),
    uniformAt: parseFloat(r.querySelector('.uline').style.left),
  })));
}

/** Every piece of text in the widget's shadow DOM (HTML and SVG, tooltips included; styles excluded). */
export async function shadowText(page) {
  return page.evaluate(() => {
    const root = document.querySelector('gpt-explorer').shadowRoot;
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    const parts = [];
    for (let n = walker.nextNode(); n; n = walker.nextNode()) if (n.parentElement?.localName !== 'style') parts.push(n.data);
    for (const el of root.querySelectorAll('[title], [aria-label], [aria-valuetext]')) {
      parts.push(el.getAttribute('title') ?? '', el.getAttribute('aria-label') ?? '', el.getAttribute('aria-valuetext') ?? '');
    }
    return parts.join('\n');
  });
}

/** Sets attributes on the widget (in one task, so they coalesce into one update). */
export async function setAttrs(page, attrs) {
  await page.evaluate((a) => {
    const el = document.querySelector('gpt-explorer');
    for (const [k, v] of Object.entries(a)) el.setAttribute(k, v);
  }, attrs);
}

/** A safetensors file (8-byte header length, JSON header, float32 data) from [{name, shape, data}]. */
export function safetensors(params) {
  const header = {};
  let offset = 0;
  for (const { name, shape, data } of params) {
    header[name] = { dtype: 'F32', shape, data_offsets: [offset, offset + 4 * data.length] };
    offset += 4 * data.length;
  }
  const json = Buffer.from(JSON.stringify(header));
  const out = Buffer.alloc(8 + json.length + offset);
  out.writeBigUInt64LE(BigInt(json.length), 0);
  json.copy(out, 8);
  let at = 8 + json.length;
  for (const { data } of params) {
    for (const v of data) {
      out.writeFloatLE(v, at);
      at += 4;
    }
  }
  return out;
}
