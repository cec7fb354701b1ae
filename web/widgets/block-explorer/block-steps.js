// block-steps.js — <block-explorer>'s account of one block's forward pass: the book's TransformerBlock.forward as one
// entry per operation the core records (code line, role, note; pre- and post-norm), the same steps in the words of
// lesson 82's EncoderBlock, and the dataflow diagram (residual-stream lane, branch, highlighted step) drawn with d3.
// A helper of the element, not a custom element.
import { select } from 'd3-selection';

// The book's TransformerBlock.forward, one entry per operation the core records (inspection.steps, by step id), in
// the core's order.
// `stream`: the node sits on the residual stream itself (the input, the additions and, in post-norm, the norms);
// the other nodes are the branch (sublayer) path that is added back.
const NOTE_DROP = 'Dropout only acts while training. This is an inference pass, so drop_shortcut passes x through ' +
  'unchanged: the statistics equal the previous step\'s.';
export const STEPS = {
  pre: [
    { id: 'input', op: 'x (input)', code: ['shortcut = x'], role: 'block input, saved as the shortcut', stream: true,
      note: 'The block input is saved as the shortcut. For block 1 it is the token embedding plus the position ' +
        'embedding; for later blocks it is the previous block\'s output — the residual stream.' },
    { id: 'norm1', op: 'norm1', code: ['x = self.norm1(x)'], role: 'LayerNorm before attention',
      note: 'Pre-norm: norm1 rescales each token to mean 0 and variance 1 over its features (scale 1, shift 0 at ' +
        'initialization), so its L2 norm is about √emb_dim. Only the attention branch sees this normalized copy; ' +
        'the shortcut keeps x as it was.' },
    { id: 'att', op: 'att', code: ['x = self.att(x)'], role: 'causal multi-head attention',
      note: 'Causal multi-head attention mixes information from earlier tokens. Its output is what this half of ' +
        'the block adds to the residual stream.' },
    { id: 'drop1', op: 'drop_shortcut', code: ['x = self.drop_shortcut(x)'], role: 'dropout', note: NOTE_DROP },
    { id: 'add1', op: 'x + shortcut', code: ['x = x + shortcut'], role: 'add the shortcut back', stream: true,
      note: 'The saved input is added back. Nothing normalizes this sum: the residual stream carries the input ' +
        'through untouched, plus the attention contribution. This sum is the shortcut of the feed-forward half.' },
    { id: 'norm2', op: 'norm2', code: ['shortcut = x', 'x = self.norm2(x)'], role: 'LayerNorm before the feed-forward network',
      note: 'The same pattern for the second half: save the current value as the new shortcut, then norm2 ' +
        'normalizes a copy for the feed-forward branch (L2 norm again about √emb_dim).' },
    { id: 'ff', op: 'ff', code: ['x = self.ff(x)'], role: 'feed-forward network (Linear → GELU → Linear)',
      note: 'The feed-forward network expands each token to 4 × emb_dim, applies GELU and projects back, token by ' +
        'token.' },
    { id: 'drop2', op: 'drop_shortcut', code: ['x = self.drop_shortcut(x)'], role: 'dropout', note: NOTE_DROP },
    { id: 'add2', op: 'x + shortcut', code: ['x = x + shortcut'], role: 'add the shortcut back: the block output', stream: true,
      note: 'The block output is input + attention contribution + feed-forward contribution. In pre-norm this sum ' +
        'is never normalized, so the residual stream keeps growing from block to block (see the depth plot).' },
  ],
  post: [
    { id: 'input', op: 'x (input)', code: ['shortcut = x'], role: 'block input, saved as the shortcut', stream: true,
      note: 'The block input is saved as the shortcut. For block 1 it is the token embedding plus the position ' +
        'embedding; for later blocks it is the previous block\'s (normalized) output.' },
    { id: 'att', op: 'att', code: ['x = self.att(x)'], role: 'causal multi-head attention',
      note: 'Post-norm: attention runs on the raw block input; no LayerNorm comes before it.' },
    { id: 'drop1', op: 'drop_shortcut', code: ['x = self.drop_shortcut(x)'], role: 'dropout', note: NOTE_DROP },
    { id: 'add1', op: 'x + shortcut', code: ['x = x + shortcut'], role: 'add the shortcut back', stream: true,
      note: 'The saved input is added back to the attention output …' },
    { id: 'norm1', op: 'norm1', code: ['x = self.norm1(x)'], role: 'LayerNorm after the addition', stream: true,
      note: '… and then the sum itself is normalized: in post-norm the LayerNorm sits on the residual stream, so ' +
        'every token leaves with mean 0, variance 1 and an L2 norm of about √emb_dim.' },
    { id: 'ff', op: 'ff', code: ['shortcut = x', 'x = self.ff(x)'], role: 'feed-forward network (Linear → GELU → Linear)',
      note: 'Save the normalized value as the new shortcut; the feed-forward network expands each token to ' +
        '4 × emb_dim, applies GELU and projects back.' },
    { id: 'drop2', op: 'drop_shortcut', code: ['x = self.drop_shortcut(x)'], role: 'dropout', note: NOTE_DROP },
    { id: 'add2', op: 'x + shortcut', code: ['x = x + shortcut'], role: 'add the shortcut back', stream: true,
      note: 'The shortcut is added back to the feed-forward output …' },
    { id: 'norm2', op: 'norm2', code: ['x = self.norm2(x)'], role: 'LayerNorm after the addition: the block output', stream: true,
      note: '… and norm2 renormalizes the sum. The block output — the residual stream — is back at an L2 norm of ' +
        'about √emb_dim after every block, however deep the model (see the depth plot).' },
  ],
};
export const PLACEMENTS = {
  pre: 'Pre-LayerNorm (GPT-2, the book)',
  post: 'Post-LayerNorm (original Transformer)',
};

// Lesson 82's EncoderBlock.forward — `x = x + self.attn(self.norm1(x))`, then `x = x + self.ffn(self.norm2(x))` —
// in the core's pre-norm steps. The lesson's block has no dropout: the core records an identity step there.
const NOTE_NO_DROP = 'The lesson’s EncoderBlock has no dropout. The core’s block records an identity step here, so the ' +
  'statistics equal the previous step’s.';
const LESSON_PRE = byId([
  { id: 'input', code: ['x  # torch.randn(2, 5, 8)'], role: 'block input x (the lesson’s x)',
    note: 'The lesson’s input: x = torch.randn(2, 5, 8) after torch.manual_seed(42) and the block’s construction — ' +
      '2 sequences of 5 tokens with 8 features. The shortcut carries it to the first addition.' },
  { id: 'norm1', code: ['self.norm1(x)'], role: 'nn.LayerNorm(8) before attention',
    note: 'norm1 is nn.LayerNorm(8) with the lesson’s weights (γ = 1, β = 0 as initialized): every token leaves with ' +
      'mean 0 and variance ≈ 1.' },
  { id: 'att', code: ['self.attn(self.norm1(x))'], role: 'multi-head self-attention (2 heads, not causal, no biases)',
    note: 'The lesson’s MultiHeadSelfAttn: Wq, Wk, Wv and Wo are nn.Linear(8, 8, bias=False) and there is no causal ' +
      'mask — every token attends to all 5 tokens of its sequence.' },
  { id: 'drop1', code: ['# (no dropout)'], role: 'no dropout in the lesson’s block', note: NOTE_NO_DROP },
  { id: 'add1', code: ['x = x + self.attn(self.norm1(x))'], role: 'sublayer 1: add the shortcut back',
    note: 'The first residual connection: the block input plus the attention contribution.' },
  { id: 'norm2', code: ['self.norm2(x)'], role: 'nn.LayerNorm(8) before the feed-forward network',
    note: 'norm2 normalizes a copy of the residual stream for the FFN; the shortcut keeps x as it is.' },
  { id: 'ff', code: ['self.ffn(self.norm2(x))'], role: 'feed-forward: Linear(8, 32) → nn.GELU() → Linear(32, 8)',
    note: 'nn.Sequential(nn.Linear(8, 32), nn.GELU(), nn.Linear(32, 8)); nn.GELU() is the exact erf form.' },
  { id: 'drop2', code: ['# (no dropout)'], role: 'no dropout in the lesson’s block', note: NOTE_NO_DROP },
  { id: 'add2', code: ['x = x + self.ffn(self.norm2(x))'], role: 'sublayer 2: add the shortcut back — the block output',
    note: 'The block output: the lesson’s out = block(x), shape (2, 5, 8). Compare it with PyTorch’s below.' },
]);

function byId(list) {
  return Object.fromEntries(list.map((entry) => [entry.id, entry]));
}

/**
 * One {id, op, code, role, note, stream} per recorded step of placement p, matched by the core's step id;
 * `lesson` uses lesson 82's words (pre-norm).
 */
export function stepInfo(p, steps, { lesson = false } = {}) {
  const book = byId(STEPS[p]);
  return steps.map((st) => {
    const entry = book[st.id] ?? { id: st.id };
    // A block without shortcut connections records 'no shortcut' where the book adds one: name it as recorded.
    const info = entry.op === st.op ? entry : { ...entry, op: st.op, code: [st.op], role: st.op, note: '' };
    if (!lesson) return info;
    if (p === 'pre' && LESSON_PRE[st.id]) return { ...info, ...LESSON_PRE[st.id], stream: info.stream };
    // Post-norm has no lesson code (the lesson's block is pre-norm): the book's lines, the lesson's attention.
    return st.id === 'att' ? { ...info, role: LESSON_PRE.att.role } : info;
  });
}

/** The block's dataflow diagram in `box`; clicking a node calls onSelect(index). */
export class BlockDiagram {
  constructor(box, onSelect) {
    this.box = box;
    this.onSelect = onSelect;
    this.key = null;
  }

  /**
   * Shows step `current` of `steps` (the inspection's steps of block b, 0-based) described by `info` (one
   * {code, role, stream} per step); `labels` {top, bottom} name what enters and leaves the block. Draws the block
   * once per (placement, block, wiring); moving between steps only moves the highlight.
   */
  render({ p, steps, info, current, b, labels }) {
    const key = `${p}|${b}|${labels.top}|${labels.bottom}|${steps.map((st) => `${st.id}:${st.op}`).join()}|${info.map((i) => i.code.at(-1)).join()}`;
    if (key !== this.key) this.draw(steps, info, labels);
    this.key = key;
    const svg = select(this.box).select('svg');
    svg.selectAll('.node').classed('current', (_, k) => k === current);
    svg.selectAll('.lane[data-to]').classed('current', function () {
      return Number(this.dataset.to) === current && steps[current].op === 'x + shortcut';
    });
    const code = (k) => info[k].code.join('; ');
    svg.select('title').text(`Dataflow of block ${b + 1}, ${p}-norm, step ${current + 1} of ${steps.length} ` +
      `highlighted. ${steps.map((_, k) => `${k + 1}. ${code(k)}`).join(' ')}`);
    this.box.setAttribute('aria-label', `Block dataflow, ${p}-norm. Step ${current + 1} of ${steps.length}: ` +
      `${code(current)}. Arrow keys step through the operations.`);
  }

  draw(steps, info, labels) {
    const W = 320;
    const pitch = 40;
    const nodeH = 28;
    const top = 34;
    const laneX = 30;
    const branchX = 58;
    const H = top + steps.length * pitch + 30;
    const y = (k) => top + k * pitch;
    this.box.replaceChildren();
    const svg = select(this.box).append('svg').attr('viewBox', `0 0 ${W} ${H}`).attr('role', 'img')
      .attr('aria-labelledby', 'diagram-title');
    svg.append('title').attr('id', 'diagram-title');
    const streamIdx = steps.map((st, k) => (info[k]?.stream ? k : -1)).filter((k) => k >= 0);
    // The residual stream: a lane through the stream nodes; the segment feeding the current addition is highlighted.
    const lanes = svg.append('g');
    lanes.append('line').attr('class', 'lane').attr('x1', laneX).attr('x2', laneX).attr('y1', 4).attr('y2', y(0));
    streamIdx.slice(1).forEach((k, n) => {
      lanes.append('line').attr('class', 'lane animate').attr('data-to', k).attr('x1', laneX).attr('x2', laneX)
        .attr('y1', y(streamIdx[n]) + nodeH / 2).attr('y2', y(k) + nodeH / 2);
    });
    const last = steps.length - 1;
    lanes.append('line').attr('class', 'lane').attr('x1', laneX).attr('x2', laneX).attr('y1', y(last) + nodeH).attr('y2', H - 6);
    svg.append('text').attr('class', 'lane-label').attr('x', laneX + 8).attr('y', 14)
      .text(labels.top);
    svg.append('text').attr('class', 'lane-label').attr('x', laneX + 8).attr('y', H - 8)
      .text(labels.bottom);
    // The branch: arrows between consecutive nodes (the lane carries stream-to-stream steps).
    const flow = svg.append('g');
    for (let k = 0; k < last; k++) {
      if (info[k]?.stream && info[k + 1]?.stream) continue;
      const x = W / 2 + 20;
      const y1 = y(k) + nodeH;
      const y2 = y(k + 1) - 1;
      flow.append('line').attr('class', 'flow').attr('x1', x).attr('x2', x).attr('y1', y1).attr('y2', y2 - 5);
      flow.append('path').attr('class', 'arrowhead').attr('d', `M${x - 4},${y2 - 6}L${x + 4},${y2 - 6}L${x},${y2}Z`);
    }
    // Shortcut labels along the lane next to the branch.
    streamIdx.slice(1).forEach((k, n) => {
      const from = streamIdx[n];
      if (k - from < 2) return;
      const mid = (y(from) + y(k) + nodeH) / 2;
      svg.append('text').attr('class', 'lane-label').attr('transform', `translate(${laneX - 6},${mid}) rotate(-90)`)
        .attr('text-anchor', 'middle').text('shortcut');
    });
    const nodes = svg.append('g').selectAll('g').data(steps).join('g')
      .attr('class', (st) => `node${st.id.startsWith('norm') ? ' norm' : ''}`)
      .attr('data-op', (st) => st.op)
      .attr('data-step', (st) => st.id)
      .attr('transform', (_, k) => `translate(0,${y(k)})`)
      .on('click', (_, st) => this.onSelect(steps.indexOf(st)));
    nodes.append('rect').attr('class', 'animate').attr('x', (_, k) => (info[k]?.stream ? 12 : branchX))
      .attr('width', (_, k) => W - 8 - (info[k]?.stream ? 12 : branchX)).attr('height', nodeH).attr('rx', 6);
    nodes.append('text').attr('x', (_, k) => (info[k]?.stream ? 48 : branchX + 10)).attr('y', nodeH / 2 + 4)
      .text((st, k) => (info[k]?.code ?? [st.op]).at(-1));
    nodes.append('title').text((st, k) => `${info[k]?.role ?? st.op}`);
    nodes.filter((st) => st.op === 'x + shortcut').append('g').attr('class', 'plus')
      .call((g) => g.append('circle').attr('cx', laneX).attr('cy', nodeH / 2).attr('r', 9))
      .call((g) => g.append('text').attr('x', laneX).attr('y', nodeH / 2 + 5).attr('text-anchor', 'middle').text('+'));
  }
}
