// block-config-view.js — <block-explorer preset="gpt2-124m">: the book's TransformerBlock built from GPT_CONFIG_124M
// (seed 002: "the constructor only builds these parts; the forward method wires them"), shown as its constructor —
// the five components with the arguments cfg gives them and each one's parameter count from the core — while the
// stepper runs one such block (emb_dim 768, 12 heads, context 1024) on the prompt's bytes.
// A helper of the element (it gets the element's panelPort: t, num), not a custom element.
import { h } from '../kit/base.js';

export const GPT2_PRESET = 'gpt2-124m';
/** The book's GPT_CONFIG_124M, verbatim. */
export const GPT_CONFIG_124M = { vocab_size: 50257, context_length: 1024, emb_dim: 768, n_heads: 12, n_layers: 12,
  drop_rate: 0.1, qkv_bias: false };
/** The model the widget steps: one block of that config on a byte vocabulary (GPT-2's 50,257-token embedding alone
 * would be 38.6M parameters, and the block is the same either way). */
export const GPT2_BLOCK_MODEL = { ...GPT_CONFIG_124M, vocab_size: 256, n_layers: 1, norm: 'pre' };

/** The keys of a GPT config that the book's TransformerBlock(cfg) reads. */
export const blockConfigOf = ({ emb_dim, context_length, n_heads, drop_rate, qkv_bias }) =>
  ({ emb_dim, context_length, n_heads, drop_rate, qkv_bias });

export class ConfigView {
  constructor(port) {
    this.port = port;
    this.code = h('table', { class: 'ctor' });
    this.root = h('section', { class: 'config-view', part: 'config', 'aria-labelledby': 'ctor-title', hidden: true },
      h('h4', { id: 'ctor-title' }, port.t('block.config.title')),
      h('p', { class: 'muted' }, port.t('block.config.intro', { bytes: 256, tokens: GPT_CONFIG_124M.vocab_size })),
      h('pre', { class: 'cfg' }, `GPT_CONFIG_124M = ${JSON.stringify(GPT_CONFIG_124M).replace(/false/g, 'False').replace(/,"/g, ', "').replace(/":/g, '": ')}`),
      h('div', { class: 'scroll' }, this.code));
  }

  set hidden(v) {
    this.root.hidden = v;
  }

  /** parts: the core's blockParameters(GPT_CONFIG_124M). */
  draw(parts) {
    const { t, num } = this.port;
    const c = GPT_CONFIG_124M;
    const d = c.emb_dim;
    const rows = [
      ['self.att', `MultiHeadAttention(d_in=${d}, d_out=${d}, context_length=${c.context_length}, num_heads=${c.n_heads}, dropout=${c.drop_rate}, qkv_bias=False)`, parts.attention, 'att'],
      ['self.ff', 'FeedForward(cfg)  # Linear(768, 3072) → GELU → Linear(3072, 768)', parts.feedForward, 'ff'],
      ['self.norm1', `LayerNorm(${d})`, parts.norms / 2, 'norm1'],
      ['self.norm2', `LayerNorm(${d})`, parts.norms / 2, 'norm2'],
      ['self.drop_shortcut', `nn.Dropout(${c.drop_rate})`, 0, 'drop'],
    ];
    this.code.replaceChildren(
      h('caption', { class: 'visually-hidden' }, t('block.config.caption')),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, t('block.config.attribute')), h('th', { scope: 'col' }, t('block.config.builtAs')),
        h('th', { scope: 'col' }, t('block.config.params')))),
      h('tbody', {}, ...rows.map(([name, ctor, n, key]) => h('tr', { 'data-part': key }, h('th', { scope: 'row' }, h('code', {}, name)),
        h('td', {}, h('code', {}, ctor)), h('td', { class: 'num' }, num(n))))),
      h('tfoot', {}, h('tr', {}, h('th', { scope: 'row' }, t('block.config.oneBlock')),
        h('td', {}, t('block.config.blocks', { count: c.n_layers })),
        h('td', { class: 'num', 'data-part': 'total' }, num(parts.total)))));
  }
}
