// The runtime demo page: a tiny byte-level GPT forward pass through web/runtime/blockscope.js, showing the next-token
// logits and the per-layer LayerNorm statistics recorded during that same pass.
import { loadBlockscope } from './runtime/blockscope.js';

const CONFIG = { vocab_size: 256, context_length: 64, emb_dim: 64, n_heads: 4, n_layers: 2, drop_rate: 0.1, qkv_bias: false };
const $ = (id) => document.getElementById(id);
const fmt = (v) => v.toFixed(4);
const tokenLabel = (id) => (id >= 32 && id < 127 ? JSON.stringify(String.fromCharCode(id)) : `byte ${id}`);

function row(cells) {
  const tr = document.createElement('tr');
  for (const c of cells) tr.append(Object.assign(document.createElement('td'), { textContent: c }));
  return tr;
}

function render(bs, gpt) {
  const bytes = [...new TextEncoder().encode($('prompt').value)].slice(-CONFIG.context_length);
  if (bytes.length === 0) {
    $('status').textContent = 'Type at least one character.';
    return;
  }
  const t0 = performance.now();
  const { logits, inspection } = gpt.forward(bytes, { inspect: true });
  const ms = performance.now() - t0;
  const V = CONFIG.vocab_size;
  const last = logits.subarray((bytes.length - 1) * V, bytes.length * V);
  const max = Math.max(...last);
  const z = last.reduce((s, v) => s + Math.exp(v - max), 0);
  const top = [...last.keys()].sort((a, b) => last[b] - last[a]).slice(0, 5);
  $('logits').tBodies[0].replaceChildren(
    ...top.map((id) => row([tokenLabel(id), fmt(last[id]), fmt(Math.exp(last[id] - max) / z)])),
  );
  const t = bytes.length - 1;
  const statsRows = [];
  inspection.layers.forEach((layer, l) => {
    for (const name of ['norm1', 'norm2']) {
      const n = layer[name];
      statsRows.push(row([`block ${l} · ${name}`, fmt(n.in.mean[t]), fmt(n.in.var[t]), fmt(n.out.mean[t]), fmt(n.out.var[t])]));
    }
  });
  const f = inspection.finalNorm;
  statsRows.push(row(['final_norm', fmt(f.in.mean[t]), fmt(f.in.var[t]), fmt(f.out.mean[t]), fmt(f.out.var[t])]));
  $('stats').tBodies[0].replaceChildren(...statsRows);
  $('status').textContent = `${bytes.length} tokens · forward pass ${ms.toFixed(1)} ms · wasm ${bs.flavour} · ` +
    `${gpt.numParameters.toLocaleString('en')} parameters`;
  document.body.dataset.ready = 'true';
}

try {
  const flavour = new URLSearchParams(location.search).get('flavour') ?? 'auto';
  const bs = await loadBlockscope({ flavour });
  const gpt = bs.createGPT(CONFIG, { seed: 123 });
  $('prompt').addEventListener('input', () => render(bs, gpt));
  render(bs, gpt);
} catch (err) {
  $('status').textContent = `Could not start the WebAssembly core: ${err.message}`;
  throw err;
}
