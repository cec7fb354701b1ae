// The wasm core against the PyTorch goldens, for every flavour, with the native tests' tolerances.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { loadBlockscope } from '../../web/runtime/blockscope.js';
import { assertClose, FLAVOURS, goldenCase, goldenCases, LOGITS_ATOL, params, reportDeviations } from './support.mjs';

const ENCODER_RENAME = {
  'norm1.weight': 'norm1.scale', 'norm1.bias': 'norm1.shift', 'norm2.weight': 'norm2.scale', 'norm2.bias': 'norm2.shift',
  'attn.Wq.weight': 'att.W_query.weight', 'attn.Wk.weight': 'att.W_key.weight', 'attn.Wv.weight': 'att.W_value.weight',
  'attn.Wo.weight': 'att.out_proj.weight', 'ffn.0.weight': 'ff.layers.0.weight', 'ffn.0.bias': 'ff.layers.0.bias',
  'ffn.2.weight': 'ff.layers.2.weight', 'ffn.2.bias': 'ff.layers.2.bias',
};

function checkBlockInspection(c, insp, prefix, tag) {
  for (const norm of ['norm1', 'norm2']) {
    for (const side of ['in', 'out']) {
      assertClose(insp[norm][side].mean, c.outputs[`${prefix}${norm}_${side}_mean`], `${tag} inspection LayerNorm stats`);
      assertClose(insp[norm][side].var, c.outputs[`${prefix}${norm}_${side}_var`], `${tag} inspection LayerNorm stats`);
    }
  }
  assertClose(insp.ffnHiddenPre, c.outputs[`${prefix}ffn_hidden_pre`], `${tag} inspection FFN hidden`);
  assertClose(insp.ffnHiddenPost, c.outputs[`${prefix}ffn_hidden_post`], `${tag} inspection FFN hidden`);
  assertClose(insp.attnWeights, c.outputs[`${prefix}attn_weights`], `${tag} inspection attention`);
  assertClose(insp.residualNorm, c.outputs[`${prefix}residual_norm`], `${tag} inspection residual norm`);
}

for (const flavour of FLAVOURS) {
  describe(`wasm ${flavour}: PyTorch goldens`, () => {
    let bs;
    before(async () => {
      bs = await loadBlockscope({ flavour });
      assert.equal(bs.buildInfo().flavour, flavour);
    });

    test('the lessons: LayerNorm of [1,3,5,7] and the GELU table', () => {
      const ln = bs.layerNorm([1, 3, 5, 7]);
      assert.deepEqual([...ln.output].map((v) => +v.toFixed(4)), [-1.3416, -0.4472, 0.4472, 1.3416]);
      assert.equal(ln.mean[0], 4);
      assert.equal(ln.variance[0], 5);
      const y = bs.gelu([-3, -1, -0.5, 0, 0.5, 1, 2, 3]);
      assert.deepEqual([...y].map((v) => +v.toFixed(4)), [-0.0036, -0.1588, -0.1543, 0, 0.3457, 0.8412, 1.9546, 2.9964]);
    });

    test('layer_norm.json', () => {
      for (const c of goldenCases('layer_norm.json')) {
        const r = bs.layerNorm(c.inputs.x.data, { gamma: c.params.scale.data, beta: c.params.shift.data, eps: c.config.eps });
        assertClose(r.output, c.outputs.y, `${flavour} LayerNorm`);
        assertClose(r.mean, c.outputs.mean, `${flavour} LayerNorm mean`);
        assertClose(r.variance, c.outputs.var, `${flavour} LayerNorm var`, { rtol: 1e-5 });
        assertClose(r.rstd, c.outputs.rstd, `${flavour} LayerNorm rstd`);
      }
    });

    test('activations.json', () => {
      for (const c of goldenCases('activations.json')) {
        assertClose(bs.activation(c.name, c.inputs.x.data), c.outputs.y, `${flavour} activation ${c.name}`);
        if (c.outputs.dy) {
          assertClose(bs.activationDerivative(c.name, c.inputs.x.data), c.outputs.dy, `${flavour} derivative ${c.name}`);
        }
      }
    });

    test('feed_forward.json', () => {
      for (const c of goldenCases('feed_forward.json')) {
        const ff = bs.createFeedForward({
          embDim: c.config.emb_dim, hiddenDim: c.config.hidden_dim, activation: c.config.activation,
        });
        ff.loadParameters(params(c));
        const r = ff.forward(c.inputs.x.data);
        assertClose(r.output, c.outputs.y, `${flavour} FeedForward`);
        assertClose(r.hiddenPre, c.outputs.hidden_pre, `${flavour} FeedForward hidden`);
        assertClose(r.hiddenPost, c.outputs.hidden_post, `${flavour} FeedForward hidden`);
        ff.dispose();
      }
    });

    test('attention.json', () => {
      for (const c of goldenCases('attention.json')) {
        const att = bs.createAttention(c.config);
        att.loadParameters(params(c));
        const [B, T] = c.inputs.x.shape;
        const r = att.forward(c.inputs.x.data, B, T);
        assertClose(r.output, c.outputs.y, `${flavour} MultiHeadAttention`);
        assertClose(r.weights, c.outputs.attn_weights, `${flavour} attention weights`);
        att.dispose();
      }
    });

    test('transformer_block.json (pre and post norm, with inspection)', () => {
      for (const c of goldenCases('transformer_block.json')) {
        const block = bs.createBlock(c.config);
        block.loadParameters(params(c));
        const [B, T] = c.inputs.x.shape;
        const r = block.forward(c.inputs.x.data, B, T);
        assertClose(r.output, c.outputs.y, `${flavour} TransformerBlock`);
        checkBlockInspection(c, r.inspection, '', flavour);
        block.dispose();
      }
    });

    test('encoder_block.json (the lesson EncoderBlock(8,2,32), 840 parameters)', () => {
      const c = goldenCase('encoder_block.json', 'lesson_d8_h2_ff32');
      const block = bs.createBlock({
        emb_dim: 8, n_heads: 2, context_length: 64, ffn_hidden: 32, activation: 'gelu_erf', causal: false,
        attn_out_bias: false, qkv_bias: false,
      });
      assert.equal(block.numParameters, 840);
      block.loadParameters(params(c, ENCODER_RENAME));
      const r = block.forward(c.inputs.x.data, 2, 5);
      assertClose(r.output, c.outputs.y, `${flavour} EncoderBlock`);
      block.dispose();
    });

    test('gpt_tiny.json: logits and inspection in every variant', () => {
      for (const c of goldenCases('gpt_tiny.json')) {
        const gpt = bs.createGPT(c.config);
        gpt.loadParameters(params(c));
        const [B, T] = c.inputs.ids.shape;
        const ids = Array.from({ length: B }, (_, b) => c.inputs.ids.data.slice(b * T, (b + 1) * T));
        const r = gpt.forward(ids, { inspect: true });
        assert.deepEqual(r.shape, [B, T, c.config.vocab_size]);
        assertClose(r.logits, c.outputs.logits, `${flavour} GPT logits`, { atol: LOGITS_ATOL, rtol: 0 });
        r.inspection.layers.forEach((l, i) => checkBlockInspection(c, l, `layers.${i}.`, flavour));
        for (const side of ['in', 'out']) {
          assertClose(r.inspection.finalNorm[side].mean, c.outputs[`final_norm_${side}_mean`], `${flavour} inspection LayerNorm stats`);
          assertClose(r.inspection.finalNorm[side].var, c.outputs[`final_norm_${side}_var`], `${flavour} inspection LayerNorm stats`);
        }
        gpt.dispose();
      }
    });

    after(() => reportDeviations(flavour));
  });
}

test('every flavour builds bit-identical seeded weights and nearly identical logits', async () => {
  const [simd, ...others] = await Promise.all(FLAVOURS.map((flavour) => loadBlockscope({ flavour })));
  const config = { vocab_size: 64, context_length: 16, emb_dim: 32, n_heads: 4, n_layers: 2 };
  const a = simd.createGPT(config, { seed: 99 });
  const ids = [1, 5, 9, 33, 63, 0, 2];
  for (const other of others) {
    const b = other.createGPT(config, { seed: 99 });
    for (const { name } of a.parameters()) assert.deepEqual(a.getParameter(name), b.getParameter(name), name);
    assertClose(a.forward(ids).logits, b.forward(ids).logits, `simd vs ${other.flavour} logits`, { atol: 1e-4, rtol: 1e-5 });
    b.dispose();
  }
  // lastOnly returns exactly the last position's row; an inspection subset leaves the big arrays out.
  const full = a.forward([ids, ids.map((x) => 63 - x)]);
  const last = a.forward([ids, ids.map((x) => 63 - x)], { lastOnly: true, inspect: { ffnHidden: false, attention: false } });
  assert.deepEqual(last.shape, [2, 1, 64]);
  assert.deepEqual(last.logits.subarray(0, 64), full.logits.subarray(6 * 64, 7 * 64));
  assert.deepEqual(last.logits.subarray(64), full.logits.subarray(13 * 64, 14 * 64));
  assert.equal(last.inspection.layers[0].ffnHiddenPre, undefined);
  assert.equal(last.inspection.layers[0].attnWeights, undefined);
  assert.equal(last.inspection.layers[1].residualNorm.length, 14);
  a.dispose();
});
