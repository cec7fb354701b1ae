// Derives the fuzzers' seed inputs from tests/golden/ at run time (nothing large is committed):
//   node scripts/fuzz-seeds.mjs [outDir=build/fuzz/seeds]  ->  outDir/<target>/<name>
// Each seed follows its target's input format (see the comment at the top of tests/fuzz/<target>.cpp).
// The small hand-written seeds in tests/fuzz/corpus/<target>/ are used as well (scripts/fuzz.sh).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const golden = path.join(root, 'tests/golden');
const outDir = path.resolve(process.argv[2] ?? path.join(root, 'build/fuzz/seeds'));

function write(target, name, ...parts) {
  const dir = path.join(outDir, target);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, name), Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p)))));
}
const byte = (b) => Uint8Array.of(b);
const readJson = (f) => JSON.parse(fs.readFileSync(path.join(golden, f), 'utf8'));

// Checkpoints: safetensors files, (config, weights) pairs and golden-patch mode, read_config inputs.
const models = ['book_tiny', 'hf_tiny', 'hf_tiny_f16', 'hf_tiny_bf16'];
models.forEach((m, i) => {
  const config = fs.readFileSync(path.join(golden, 'models', m, 'config.json'));
  const weights = fs.readFileSync(path.join(golden, 'models', m, 'model.safetensors'));
  write('fuzz_safetensors', m, weights);
  // The header alone, with a data buffer of the right length but zeros: the same structure, less to mutate.
  const n = Number(weights.readBigUInt64LE(0));
  write('fuzz_safetensors', `${m}_header`, weights.subarray(0, 8 + n));
  write('fuzz_model_load', `${m}_pair`, byte(0), Uint8Array.of(config.length & 255, config.length >> 8), config, weights);
  write('fuzz_model_load', `${m}_patch`, byte(1), byte(i), byte(0));  // no patch yet: the golden as it is
  write('fuzz_config_json', `read_config_${m}`, byte(0), config);
  // Streamed loading: no patch, sampled generation (5 tokens, T 0.78, top-k 40, top-p 0.9), chunks of 1, 7, 4096, 32.
  for (const int8 of [0, 1]) {
    write('fuzz_stream_load', `${m}_${int8 ? 'int8' : 'f32'}`, Uint8Array.of(i, int8, 0, 5, 25, 40, 230, 7, 1, 0, 6, 255, 31));
  }
});

// Every config object in the module goldens, with the selector byte of the reader that takes it.
const readers = [
  [1, (c) => 'n_layers' in c && 'emb_dim' in c],  // GPTConfig
  [2, (c) => 'emb_dim' in c && 'n_heads' in c && !('n_layers' in c)],  // BlockConfig
  [3, (c) => 'd_in' in c],  // AttentionConfig
  [4, (c) => 'hidden_dim' in c],  // FeedForwardConfig
];
for (const f of ['gpt_tiny.json', 'transformer_block.json', 'attention.json', 'feed_forward.json', 'encoder_block.json']) {
  const j = readJson(f);
  (j.cases ?? []).forEach((c, k) => {
    if (!c.config) return;
    for (const [sel, fits] of readers) {
      if (fits(c.config)) write('fuzz_config_json', `${path.basename(f, '.json')}_${k}`, byte(sel), JSON.stringify(c.config));
    }
  });
}

// Tokenizer: the golden texts (mode 0) and their ids (mode 1); a few mode-3 merge lists over them.
const tok = readJson('tokenizer_gpt2.json');
tok.cases.slice(0, 40).forEach((c, k) => {
  write('fuzz_tokenizer', `text_${k}`, byte(0), c.text);
  write('fuzz_tokenizer', `ids_${k}`, byte(1), new Uint8Array(Int32Array.from(c.ids).buffer));
  // Merges (u16 pairs): h+e, l+l, he+ll, o+' ', ' '+t, t+h, hell+o, ' '+' ', 256..263 are the merged ids.
  const merges = [104, 101, 108, 108, 256, 257, 111, 32, 32, 116, 116, 104, 258, 111, 32, 32];
  write('fuzz_tokenizer', `merges_${k}`, byte(3), byte(merges.length / 2), new Uint8Array(Uint16Array.from(merges).buffer), c.text);
});
console.log(`fuzz seeds written to ${path.relative(root, outDir) || '.'}`);
