// What the SIMD128 flavour computes, bit for bit, on a small seeded GPT: the outputs behind the claim that the simd
// flavour gives the same bits on every engine and from build to build (its kernels round every product and every sum
// as their generic twins do; simd-relaxed may fuse them). Shared by tests/reference/make_simd128_bits.mjs, which
// writes tests/golden/simd128_bits.json, and by the tests that compare a build against it in Node
// (tests/wasm/simd128-bits.test.mjs) and in Chromium (tests/browser/flavours.test.mjs). No imports: the browser test
// runs this file as it is.
//   bs: a loaded runtime (any flavour); sha256(Uint8Array) -> Promise<hex string>.
// Returns {name: SHA-256 of the float32 bytes, or a list of token ids} — each output covers one kernel path:
// forward at T = 7 (packed GEMM, blocked attention), at T = 2 (GEMV, the decoding attention kernels), sampled KV-cache
// generation, and three training steps (the accumulating GEMM of the backward pass) with the weights they leave.
export const CONFIG = { vocab_size: 67, context_length: 16, emb_dim: 36, n_heads: 4, n_layers: 2, drop_rate: 0, qkv_bias: true };

export async function simd128Outputs(bs, sha256) {
  const hash = (arrays) => {
    const bytes = new Uint8Array(arrays.reduce((n, a) => n + a.byteLength, 0));
    let at = 0;
    for (const a of arrays) {
      bytes.set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), at);
      at += a.byteLength;
    }
    return sha256(bytes);
  };
  const gpt = bs.createGPT(CONFIG, { seed: 99 });
  const out = {};
  out.forward_t7 = await hash([gpt.forward([1, 5, 9, 33, 63, 0, 2]).logits]);
  out.forward_t2 = await hash([gpt.forward([[7, 66], [3, 4]]).logits]);
  out.generate = [...gpt.generate([1, 2, 3], { maxNewTokens: 12, temperature: 0.9, topK: 20, seed: 77 })].map((s) => s.token);
  const tokens = Int32Array.from({ length: 400 }, (_, i) => (i * 7 + (i >> 3)) % CONFIG.vocab_size);
  const trainer = bs.createTrainer(gpt, { tokens, config: { steps: 10, batch_size: 4, seq_len: 9, lr: 3e-3, seed: 1 } });
  const losses = [];
  for (let i = 0; i < 3; i++) losses.push(trainer.step().loss);
  out.train_losses = await hash([Float64Array.from(losses)]);
  out.trained_weights = await hash(gpt.parameters().map(({ name }) => gpt.getParameter(name)));
  gpt.dispose();
  return out;
}
